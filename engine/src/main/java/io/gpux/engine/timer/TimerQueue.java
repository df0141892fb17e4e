package io.gpux.engine.timer;

import java.util.Arrays;

/**
 * Timers in (due time, creation sequence) order; timers are pooled. The order is total, so the firing
 * order does not depend on how the timers are stored:
 *
 * <ul>
 * <li>a timer due no earlier than the last one of a FIFO lane goes to the end of that lane (the lane whose
 * last timer is latest, among those it can follow): timers set a fixed delay ahead of a non-decreasing
 * time (a lease's period timer, a machine's heartbeat timeout) are scheduled in firing order, and a lane
 * takes and drops each in O(1);</li>
 * <li>the others go to a binary min-heap;</li>
 * <li>the next timer is the earliest of the lanes' heads and the heap's top.</li>
 * </ul>
 *
 * <p>Cancellation is lazy: a cancelled timer stays where it is, marked, until it reaches a head (where
 * {@link #peek()} drops it) or until cancelled timers outnumber live ones and every lane and the heap are
 * rebuilt without them. Most timers are cancelled before they are due; a removal from the middle of the
 * heap cost a sift through cold timers.
 *
 * <p>Lanes and heap hold each timer's slot (its index in {@link #registry}) and its keys in primitive
 * arrays: they compare and move without touching the timers and without reference stores (each one a GC
 * write barrier, a fence under G1 for an old-generation array).
 */
public final class TimerQueue
{
    /** Cancelled timers tolerated before a rebuild is considered. */
    private static final int COMPACT_MIN_CANCELLED = 256;
    private static final int LANES = 4;
    private static final int FROM_HEAP = -1;

    /** A FIFO of timers in firing order: a ring of slots and keys. */
    private static final class Lane
    {
        int[] slots = new int[64];
        long[] dues = new long[64];
        long[] seqs = new long[64];
        int head;
        int count;

        int at(final int i)
        {
            return (head + i) & (slots.length - 1);
        }

        int last()
        {
            return at(count - 1);
        }

        void append(final int slot, final long due, final long seq)
        {
            if (count == slots.length)
            {
                grow();
            }
            final int i = at(count++);
            slots[i] = slot;
            dues[i] = due;
            seqs[i] = seq;
        }

        void dropHead()
        {
            head = (head + 1) & (slots.length - 1);
            count--;
        }

        private void grow()
        {
            final int n = slots.length * 2;
            final int[] s = new int[n];
            final long[] d = new long[n];
            final long[] q = new long[n];
            for (int i = 0; i < count; i++)
            {
                final int j = at(i);
                s[i] = slots[j];
                d[i] = dues[j];
                q[i] = seqs[j];
            }
            slots = s;
            dues = d;
            seqs = q;
            head = 0;
        }
    }

    /** Every timer this queue made, by slot. */
    private Timer[] registry = new Timer[256];
    /**
     * By slot: whether the timer is live. Dropping a cancelled timer reads this and not the timer, which by
     * then is cold.
     */
    private boolean[] live = new boolean[256];
    private int registered;
    private final Lane[] lanes = new Lane[LANES];
    private int[] heap = new int[256];
    private long[] dues = new long[256];
    private long[] seqs = new long[256];
    /** Timers in the heap, cancelled ones included. */
    private int heapSize;
    /** Timers in lanes and heap, cancelled ones included. */
    private int size;
    private int cancelled;
    /** Where the timer {@link #peek()} last answered is: a lane, or {@link #FROM_HEAP}. */
    private int peekedFrom;
    private long nextSeq = 1;
    /**
     * No timer is due before this: the earliest due time when last looked at, lowered by each new timer
     * (a cancellation only raises the earliest), so that asking whether a timer is due is one comparison.
     */
    private long dueBound = Long.MAX_VALUE;
    /** Slots of the free timers. */
    private int[] pool = new int[256];
    private int poolSize;

    public TimerQueue()
    {
        for (int i = 0; i < LANES; i++)
        {
            lanes[i] = new Lane();
        }
    }

    /** Live timers. */
    public int size()
    {
        return size - cancelled;
    }

    /** Whether a live timer is due at or before {@code timeMs}; if so, {@link #poll()} removes the earliest. */
    public boolean anyDueBy(final long timeMs)
    {
        if (timeMs < dueBound)
        {
            return false;
        }
        final Timer first = peek();
        dueBound = first == null ? Long.MAX_VALUE : first.dueMs;
        return first != null && first.dueMs <= timeMs;
    }

    /** The earliest live timer, or null. */
    public Timer peek()
    {
        while (size > 0)
        {
            int from = FROM_HEAP;
            long due = Long.MAX_VALUE;
            long seq = Long.MAX_VALUE;
            int slot = -1;
            if (heapSize > 0)
            {
                due = dues[0];
                seq = seqs[0];
                slot = heap[0];
            }
            for (int l = 0; l < LANES; l++)
            {
                final Lane lane = lanes[l];
                if (lane.count > 0)
                {
                    final int h = lane.head;
                    if (slot < 0 || less(lane.dues[h], lane.seqs[h], due, seq))
                    {
                        from = l;
                        due = lane.dues[h];
                        seq = lane.seqs[h];
                        slot = lane.slots[h];
                    }
                }
            }
            if (live[slot])
            {
                peekedFrom = from;
                return registry[slot];
            }
            remove(from);
            cancelled--;
            free(slot);
        }
        return null;
    }

    public Timer schedule(final long dueMs, final int kind, final Object target)
    {
        return add(dueMs, nextSeq++, kind, target);
    }

    /** Removes the earliest live timer; the caller hands it back with {@link #recycle(Timer)}. */
    public Timer poll()
    {
        final Timer first = peek();
        remove(peekedFrom);
        dueBound = Long.MIN_VALUE;
        first.state = Timer.FREE;
        live[first.slot] = false;
        return first;
    }

    /** Cancels a scheduled timer; it is recycled once it leaves the queue. Null-safe. */
    public void cancel(final Timer t)
    {
        if (t != null && t.state == Timer.LIVE)
        {
            t.state = Timer.CANCELLED;
            t.target = null;
            live[t.slot] = false;
            cancelled++;
            if (cancelled >= COMPACT_MIN_CANCELLED && cancelled > size - cancelled)
            {
                compact();
            }
        }
    }

    public void recycle(final Timer t)
    {
        t.target = null;
        t.state = Timer.FREE;
        free(t.slot);
    }

    /** A cancelled timer's target was cleared when it was cancelled, and its state says it is not scheduled. */
    private void free(final int slot)
    {
        if (poolSize == pool.length)
        {
            pool = Arrays.copyOf(pool, poolSize * 2);
        }
        pool[poolSize++] = slot;
    }

    /** Live timers in firing order (a copy), for hashing and snapshots. */
    public Timer[] sorted()
    {
        final Timer[] copy = new Timer[size - cancelled];
        int n = 0;
        for (int i = 0; i < heapSize; i++)
        {
            final Timer t = registry[heap[i]];
            if (t.state == Timer.LIVE)
            {
                copy[n++] = t;
            }
        }
        for (final Lane lane : lanes)
        {
            for (int i = 0; i < lane.count; i++)
            {
                final Timer t = registry[lane.slots[lane.at(i)]];
                if (t.state == Timer.LIVE)
                {
                    copy[n++] = t;
                }
            }
        }
        Arrays.sort(copy, (a, b) -> a.dueMs != b.dueMs ? Long.compare(a.dueMs, b.dueMs) : Long.compare(a.seq, b.seq));
        return copy;
    }

    public long nextSeq()
    {
        return nextSeq;
    }

    /** Restores a timer from a snapshot, with its original creation sequence. */
    public Timer restore(final long dueMs, final long seq, final int kind, final Object target)
    {
        return add(dueMs, seq, kind, target);
    }

    public void nextSeq(final long value)
    {
        nextSeq = value;
    }

    private Timer add(final long dueMs, final long seq, final int kind, final Object target)
    {
        final Timer t = poolSize == 0 ? newTimer() : registry[pool[--poolSize]];
        t.dueMs = dueMs;
        t.seq = seq;
        t.kind = kind;
        t.target = target;
        t.state = Timer.LIVE;
        live[t.slot] = true;
        size++;
        if (dueMs < dueBound)
        {
            dueBound = dueMs;
        }
        int best = -1;
        int empty = -1;
        long bestDue = 0;
        long bestSeq = 0;
        for (int l = 0; l < LANES; l++)
        {
            final Lane lane = lanes[l];
            if (lane.count == 0)
            {
                if (empty < 0)
                {
                    empty = l;
                }
                continue;
            }
            final int last = lane.last();
            final long lastDue = lane.dues[last];
            final long lastSeq = lane.seqs[last];
            if (less(lastDue, lastSeq, dueMs, seq) && (best < 0 || less(bestDue, bestSeq, lastDue, lastSeq)))
            {
                best = l;
                bestDue = lastDue;
                bestSeq = lastSeq;
            }
        }
        if (best < 0)
        {
            best = empty;
        }
        if (best >= 0)
        {
            lanes[best].append(t.slot, dueMs, seq);
            return t;
        }
        if (heapSize == heap.length)
        {
            heap = Arrays.copyOf(heap, heapSize * 2);
            dues = Arrays.copyOf(dues, heapSize * 2);
            seqs = Arrays.copyOf(seqs, heapSize * 2);
        }
        siftUp(heapSize++, t.slot, dueMs, seq);
        return t;
    }

    private Timer newTimer()
    {
        if (registered == registry.length)
        {
            registry = Arrays.copyOf(registry, registered * 2);
            live = Arrays.copyOf(live, registered * 2);
        }
        final Timer t = new Timer();
        t.slot = registered;
        registry[registered++] = t;
        return t;
    }

    private void remove(final int from)
    {
        size--;
        if (from != FROM_HEAP)
        {
            lanes[from].dropHead();
            return;
        }
        heapSize--;
        if (heapSize > 0)
        {
            siftDown(0, heap[heapSize], dues[heapSize], seqs[heapSize]);
        }
    }

    /** Drops every cancelled timer: lanes keep their order, the heap is rebuilt (Floyd's construction). */
    private void compact()
    {
        for (final Lane lane : lanes)
        {
            int n = 0;
            for (int i = 0; i < lane.count; i++)
            {
                final int r = lane.at(i);
                if (live[lane.slots[r]])
                {
                    final int w = lane.at(n++);
                    lane.slots[w] = lane.slots[r];
                    lane.dues[w] = lane.dues[r];
                    lane.seqs[w] = lane.seqs[r];
                }
                else
                {
                    free(lane.slots[r]);
                }
            }
            lane.count = n;
        }
        int n = 0;
        for (int i = 0; i < heapSize; i++)
        {
            if (live[heap[i]])
            {
                heap[n] = heap[i];
                dues[n] = dues[i];
                seqs[n] = seqs[i];
                n++;
            }
            else
            {
                free(heap[i]);
            }
        }
        heapSize = n;
        size -= cancelled;
        cancelled = 0;
        for (int i = (n >>> 1) - 1; i >= 0; i--)
        {
            siftDown(i, heap[i], dues[i], seqs[i]);
        }
    }

    private static boolean less(final long dueA, final long seqA, final long dueB, final long seqB)
    {
        return dueA < dueB || (dueA == dueB && seqA < seqB);
    }

    private void siftUp(int i, final int slot, final long due, final long seq)
    {
        while (i > 0)
        {
            final int parent = (i - 1) >>> 1;
            if (!less(due, seq, dues[parent], seqs[parent]))
            {
                break;
            }
            heap[i] = heap[parent];
            dues[i] = dues[parent];
            seqs[i] = seqs[parent];
            i = parent;
        }
        heap[i] = slot;
        dues[i] = due;
        seqs[i] = seq;
    }

    private void siftDown(int i, final int slot, final long due, final long seq)
    {
        final int half = heapSize >>> 1;
        while (i < half)
        {
            int child = 2 * i + 1;
            final int right = child + 1;
            if (right < heapSize && less(dues[right], seqs[right], dues[child], seqs[child]))
            {
                child = right;
            }
            if (!less(dues[child], seqs[child], due, seq))
            {
                break;
            }
            heap[i] = heap[child];
            dues[i] = dues[child];
            seqs[i] = seqs[child];
            i = child;
        }
        heap[i] = slot;
        dues[i] = due;
        seqs[i] = seq;
    }
}
