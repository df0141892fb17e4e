package io.gpux.core.journal;

import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.TailerDirection;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;

/**
 * Finds where a {@link Journal.Reader} starts: the document that holds a record of a given key, over
 * the queue's index (the key of a document is that of its first record; keys grow through the
 * journal), and the last valid document of the journal. It moves the reader's tailer while it probes
 * documents; the reader then positions itself at the index found. Runs on the reader's thread.
 */
final class JournalSeek
{
    private final ChronicleQueue queue;
    private final ExcerptTailer tailer;
    private final JournalDocument probe = new JournalDocument();
    private long documentsRead;
    private long lastKey;

    JournalSeek(final ChronicleQueue queue, final ExcerptTailer tailer)
    {
        this.queue = queue;
        this.tailer = tailer;
    }

    /** Queue documents probed. */
    long documentsRead()
    {
        return documentsRead;
    }

    /**
     * The queue index of the document that holds the record of key {@code key}: from {@code current}
     * (the valid document with records last read, or null), a galloping search (O(log d) documents read
     * for a key d documents away); else a binary search, first over the queue's cycles, then within the
     * cycle (O(log n)).
     *
     * @return -1 if the journal holds nothing at or before {@code key} (it is empty, or starts after).
     */
    long find(final JournalDocument current, final long key, final Journal.RecordKey keyOf)
    {
        final RollCycle roll = queue.rollCycle();
        if (current != null)
        {
            final int cycle = roll.toCycle(current.index);
            final long base = roll.toSequenceNumber(current.index);
            if (keyOf.key(current.bytes, current.offsets[0], current.lengths[0]) <= key)
            {
                if (cycle != singleQueue().lastCycle())
                {
                    // the key may be in a later cycle
                    return fromTheStart(key, keyOf, roll);
                }
                return roll.toIndex(cycle, gallopForward(cycle, base, key, keyOf, roll));
            }
            long step = 1;
            long above = base;
            while (step <= base)
            {
                final long probe = base - step;
                if (keyAt(roll.toIndex(cycle, probe), keyOf) <= key)
                {
                    return roll.toIndex(cycle, bisect(cycle, probe, above, key, keyOf, roll));
                }
                above = probe;
                step *= 2;
            }
            if (keyAt(roll.toIndex(cycle, 0), keyOf) <= key)
            {
                return roll.toIndex(cycle, bisect(cycle, 0, above, key, keyOf, roll));
            }
        }
        return fromTheStart(key, keyOf, roll);
    }

    private long fromTheStart(final long key, final Journal.RecordKey keyOf, final RollCycle roll)
    {
        final int first = singleQueue().firstCycle();
        final int last = singleQueue().lastCycle();
        if (first == Integer.MAX_VALUE || last == Integer.MIN_VALUE)
        {
            return -1;
        }
        final long[] cycles = singleQueue().listCyclesBetween(first, last).stream().mapToLong(Long::longValue).toArray();
        int lo = -1;
        int hi = cycles.length;
        while (hi - lo > 1)
        {
            final int mid = (lo + hi) >>> 1;
            if (keyAt(roll.toIndex((int)cycles[mid], 0), keyOf) <= key)
            {
                lo = mid;
            }
            else
            {
                hi = mid;
            }
        }
        if (lo < 0)
        {
            return -1;
        }
        final int cycle = (int)cycles[lo];
        return roll.toIndex(cycle, gallopForward(cycle, 0, key, keyOf, roll));
    }

    /** The last document of the cycle from {@code from} on (whose key is at most key) whose key is at most key. */
    private long gallopForward(final int cycle, final long from, final long key, final Journal.RecordKey keyOf, final RollCycle roll)
    {
        long below = from;
        long step = 1;
        while (keyAt(roll.toIndex(cycle, from + step), keyOf) <= key)
        {
            below = from + step;
            step *= 2;
        }
        return bisect(cycle, below, from + step, key, keyOf, roll);
    }

    /** The last document in [below, above) whose key is at most key, given that below's is and above's is not. */
    private long bisect(
        final int cycle, final long below, final long above, final long key, final Journal.RecordKey keyOf, final RollCycle roll)
    {
        long lo = below;
        long hi = above;
        while (hi - lo > 1)
        {
            final long mid = (lo + hi) >>> 1;
            if (keyAt(roll.toIndex(cycle, mid), keyOf) <= key)
            {
                lo = mid;
            }
            else
            {
                hi = mid;
            }
        }
        return lo;
    }

    /** The key of the first valid document at or after {@code queueIndex}; Long.MAX_VALUE if there is none. */
    private long keyAt(final long queueIndex, final Journal.RecordKey keyOf)
    {
        if (!tailer.moveToIndex(queueIndex))
        {
            return Long.MAX_VALUE;
        }
        while (probe.read(tailer))
        {
            documentsRead++;
            if (probe.valid && probe.recordCount > 0)
            {
                return keyOf.key(probe.bytes, probe.offsets[0], probe.lengths[0]);
            }
        }
        return Long.MAX_VALUE;
    }

    /**
     * The queue index of the last valid document, neither a VOID nor voided (read newest first, on a
     * tailer of its own), or -1 when the journal holds none; {@link #lastKey()} is then the key of its
     * last record.
     */
    long lastValid(final Journal.RecordKey keyOf)
    {
        long voided = -1;
        lastKey = 0;
        try (ExcerptTailer backward = queue.createTailer().direction(TailerDirection.BACKWARD).toEnd())
        {
            while (probe.read(backward))
            {
                documentsRead++;
                if (probe.isVoid)
                {
                    voided = probe.voided;
                    continue;
                }
                if (probe.index == voided || !probe.valid || probe.recordCount == 0)
                {
                    continue;
                }
                final int r = probe.recordCount - 1;
                lastKey = keyOf.key(probe.bytes, probe.offsets[r], probe.lengths[r]);
                return probe.index;
            }
        }
        return -1;
    }

    /** The key of the last record of the document {@link #lastValid} found. */
    long lastKey()
    {
        return lastKey;
    }

    private SingleChronicleQueue singleQueue()
    {
        return (SingleChronicleQueue)queue;
    }
}
