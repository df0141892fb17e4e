package io.gpux.core.journal;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.MappedBytesStore;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.TailerDirection;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.wire.DocumentContext;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * An append-only journal of binary records on a Chronicle Queue. Records are written in batches: one
 * queue document holds every record of a batch, each framed by its 4-byte length and protected by its
 * own CRC32C (the layout of {@link RecordDescriptor}), so a batch costs one queue write: the records
 * are gathered off the heap and copied into the queue at once when the batch ends. One writer thread
 * appends; readers read records in order from the start or after a given document. The writer's
 * place in the queue's file is published for a {@link Pretoucher} and a {@link JournalSpace} guard; under
 * the guard, a batch is written only into file space reserved for it, never where a full disk would
 * fault the write.
 *
 * <p>A document that fails its checks at the very end of the journal is a torn tail (a crash
 * mid-write): {@link #cutTornTail} voids it by appending a VOID document naming its index, and readers
 * skip a document followed by such a VOID. A bad document anywhere else is corruption.
 */
public final class Journal implements AutoCloseable
{
    /** A VOID document: 4-byte magic then the voided document's queue index. */
    private static final int VOID_MAGIC = 0x564F4944;
    private static final int VOID_LENGTH = 12;
    /** A batch larger than this is split over several documents. */
    private static final int MAX_DOCUMENT = 1 << 20;

    private final ChronicleQueue queue;
    private final ExcerptAppender appender;
    private final Path dir;
    /**
     * The records of the batch being written, [4-byte length, record]..., off the heap, so that the
     * queue copies them into its mapped file with one memcpy (from a heap array Chronicle copies a
     * word at a time).
     */
    private final ByteBuffer pendingMemory = ByteBuffer.allocateDirect(MAX_DOCUMENT + 4 + RecordDescriptor.MAX_RECORD_LENGTH);
    private final UnsafeBuffer pending = new UnsafeBuffer(pendingMemory);
    private final BytesStore<?, ByteBuffer> pendingStore = BytesStore.wrap(pendingMemory);
    private int pendingLength;
    /** The writer's place for the pretoucher: the mapped chunk it writes in (fields set before the volatile write of writtenUpTo). */
    private BytesStore<?, ?> chunk;
    private long chunkAddress;
    private long chunkStart;
    private long chunkLimit;
    private volatile long writtenUpTo;
    /** The file the writer last wrote in (set when its chunk changes, before the volatile write of writtenUpTo). */
    private volatile java.io.File writerFile;
    /** Space the {@link JournalSpace} guard has reserved in the writer's file; null until it has. */
    private volatile Reservation reservation;
    /** The guard, once one watches this journal: then every batch is written into reserved space only. */
    private JournalSpace guard;
    /** The file offset the writer waits to see reserved (for a batch larger than what is reserved ahead), else 0. */
    private volatile long wantedUpTo;
    /** Room left after a batch, for Chronicle's index entries and document headers. */
    public static final long SLACK_BYTES = 256 * 1024;
    private static final long RESERVE_WAIT_NS = java.util.concurrent.TimeUnit.SECONDS.toNanos(5);

    /** File space reserved (allocated on the device) in {@code file}, from its start to {@code upTo}. */
    record Reservation(java.io.File file, long upTo)
    {
    }

    private Journal(final Path dir, final boolean readOnly)
    {
        this.dir = dir;
        queue = ChronicleQueue.singleBuilder(dir.toFile()).readOnly(readOnly).build();
        appender = readOnly ? null : queue.createAppender();
    }

    public static Journal open(final Path dir)
    {
        return new Journal(dir, false);
    }

    public static Journal openReadOnly(final Path dir)
    {
        return new Journal(dir, true);
    }

    public Path dir()
    {
        return dir;
    }

    /** Adds a record to the current batch (a batch that would outgrow a document is written first). */
    public void add(final byte[] record, final int length)
    {
        if (length < 0 || length > RecordDescriptor.MAX_RECORD_LENGTH)
        {
            throw new IllegalArgumentException("record of " + length + " bytes");
        }
        if (pendingLength > 0 && pendingLength + 4 + length > MAX_DOCUMENT)
        {
            endBatch();
        }
        pending.putInt(pendingLength, length);
        pending.putBytes(pendingLength + 4, record, 0, length);
        pendingLength += 4 + length;
    }

    /** Bytes of the current batch not written yet. */
    public int pendingBytes()
    {
        return pendingLength;
    }

    /**
     * Drops the records added since the last document was written, unwritten: a batch refused because
     * its journal has no room for it, or the output of a command the engine failed on.
     */
    public void discardBatch()
    {
        pendingLength = 0;
    }

    /**
     * Whether the current batch and {@code moreBytes} after it fit in the file space reserved ahead of
     * the writer, so that writing them cannot fault on a full device. Before this journal's first write
     * (its position in its file is not known yet) and until the guard has reserved space in a file the
     * writer has just rolled to, the answer is {@code fallback}: the guard's free-space floor then stands
     * between the writer and a full device. A volatile read and a comparison: no system call.
     */
    public boolean hasRoom(final long moreBytes, final boolean fallback)
    {
        final Reservation r = reservation;
        final java.io.File file = writerFile;
        if (file == null || r == null || r.file() != file)
        {
            return fallback;
        }
        return writtenUpTo + pendingLength + moreBytes <= r.upTo();
    }

    private void awaitRoom()
    {
        wantedUpTo = writtenUpTo + pendingLength + SLACK_BYTES;
        final long deadline = System.nanoTime() + RESERVE_WAIT_NS;
        try
        {
            while (!hasRoom(SLACK_BYTES, guard.refusal() == null))
            {
                final String refusal = guard.refusal();
                if (refusal != null || System.nanoTime() - deadline > 0)
                {
                    throw new JournalFullException((refusal != null ? refusal : "journal disk: no space reserved in time") +
                        ": a batch of " + pendingLength + " bytes could not be written to " + dir);
                }
                Thread.yield();
            }
        }
        finally
        {
            wantedUpTo = 0;
        }
    }

    /** A batch could not be written: the journal's disk has no room for it. Nothing of it was written. */
    public static final class JournalFullException extends IllegalStateException
    {
        JournalFullException(final String message)
        {
            super(message);
        }
    }

    java.io.File writerFile()
    {
        return writerFile;
    }

    long wantedUpTo()
    {
        return wantedUpTo;
    }

    void guardedBy(final JournalSpace space)
    {
        guard = space;
    }

    void reserved(final Reservation r)
    {
        reservation = r;
    }

    /**
     * Writes the current batch as one queue document, making its records visible to readers. Under a
     * {@link JournalSpace} guard, only into space reserved for it: when the batch does not fit, the
     * writer asks the guard for more and waits for it; if the disk has no room for it, nothing is
     * written and a {@link JournalFullException} says why.
     */
    public void endBatch()
    {
        if (pendingLength == 0)
        {
            return;
        }
        if (guard != null && !hasRoom(SLACK_BYTES, guard.refusal() == null))
        {
            awaitRoom();
        }
        final long end;
        try (DocumentContext dc = appender.writingDocument())
        {
            final Bytes<?> bytes = dc.wire().bytes();
            bytes.write(pendingStore, 0L, pendingLength);
            end = bytes.writePosition();
            final BytesStore<?, ?> store = bytes.bytesStore();
            if (store != chunk)
            {
                chunk = store;
                final java.io.File file = appender.currentFile();
                final java.io.File known = writerFile;
                if (known == null || !known.equals(file))
                {
                    writerFile = file;
                }
                if (store instanceof MappedBytesStore)
                {
                    final MappedBytesStore mapped = (MappedBytesStore)store;
                    chunkStart = mapped.start();
                    chunkAddress = mapped.addressForRead(chunkStart);
                    chunkLimit = mapped.safeLimit();
                }
                else
                {
                    chunkAddress = 0;
                }
            }
        }
        pendingLength = 0;
        writtenUpTo = end;
    }

    /**
     * Where the writer is, for a {@link Pretoucher} on another thread: the file offset just past the
     * last document written, and the mapped chunk it was written in (address, first and last file
     * offsets; address 0 when the queue is not mapped). The chunk may be a newer one than the offset's
     * (the fields are read without a lock): a pretoucher only advises the kernel, so a stale or
     * mismatched view costs nothing but a useless call.
     */
    long writtenUpTo()
    {
        return writtenUpTo;
    }

    long chunkAddress()
    {
        return chunkAddress;
    }

    long chunkStart()
    {
        return chunkStart;
    }

    long chunkLimit()
    {
        return chunkLimit;
    }

    /** The queue index of the last document this journal wrote (asked only when needed: it costs a scan). */
    public long lastIndexAppended()
    {
        return appender.lastIndexAppended();
    }

    /** Appends one record as its own document. */
    public void append(final byte[] record, final int length)
    {
        add(record, length);
        endBatch();
    }

    /**
     * Hands the single writer role to the calling thread (Chronicle binds an appender to the first
     * thread that uses it; recovery writes from the starting thread, then the pipeline's thread takes over).
     */
    public void takeOverWriting()
    {
        if (appender != null)
        {
            appender.singleThreadedCheckReset();
        }
    }

    /** Forces what was appended to the storage device (msync). */
    public void sync()
    {
        appender.sync();
    }

    /** Appends a VOID document naming a torn tail document. */
    public void cutTornTail(final long tornIndex)
    {
        try (DocumentContext dc = appender.writingDocument())
        {
            dc.wire().bytes().writeInt(VOID_MAGIC).writeLong(tornIndex);
        }
    }

    /**
     * The records of the last {@code maxDocuments} documents, newest first, each passed to
     * {@code visitor} until it returns true (no VOID handling: for finding the last good record).
     */
    public void readBackward(final byte[] dst, final int maxDocuments, final RecordVisitor visitor)
    {
        final ExcerptTailer tailer = queue.createTailer().direction(TailerDirection.BACKWARD).toEnd();
        final Document doc = new Document();
        for (int i = 0; i < maxDocuments; i++)
        {
            if (!doc.read(tailer))
            {
                return;
            }
            for (int r = doc.recordCount - 1; r >= 0; r--)
            {
                final int length = doc.lengths[r];
                System.arraycopy(doc.bytes, doc.offsets[r], dst, 0, Math.min(length, dst.length));
                if (visitor.visit(dst, Math.min(length, dst.length)))
                {
                    return;
                }
            }
        }
    }

    /**
     * Walks documents from the newest back, passing each valid document's first record to
     * {@code visitor}; returns the queue index of the first document it accepts, or -1.
     */
    public long findBackward(final byte[] dst, final RecordVisitor visitor)
    {
        final ExcerptTailer tailer = queue.createTailer().direction(TailerDirection.BACKWARD).toEnd();
        final Document doc = new Document();
        while (doc.read(tailer))
        {
            if (doc.valid && doc.recordCount > 0)
            {
                final int length = Math.min(doc.lengths[0], dst.length);
                System.arraycopy(doc.bytes, doc.offsets[0], dst, 0, length);
                if (visitor.visit(dst, length))
                {
                    return doc.index;
                }
            }
        }
        return -1;
    }

    /** The key of a record (an engine sequence), which grows from record to record through the journal. */
    @FunctionalInterface
    public interface RecordKey
    {
        long key(byte[] bytes, int offset, int length);
    }

    /** Sees one record; returns true to stop. */
    @FunctionalInterface
    public interface RecordVisitor
    {
        boolean visit(byte[] record, int length);
    }

    public Reader reader()
    {
        return new Reader(queue.createTailer());
    }

    @Override
    public void close()
    {
        if (appender != null)
        {
            endBatch();
        }
        queue.close();
        pendingStore.releaseLast();
    }

    /** One queue document, split into its records; {@code valid} is false if any framing or CRC fails. */
    private static final class Document
    {
        byte[] bytes = new byte[1 << 16];
        int length;
        long index;
        int recordCount;
        int[] offsets = new int[256];
        int[] lengths = new int[256];
        boolean valid;
        boolean isVoid;
        long voided;
        private final CRC32C crc = new CRC32C();
        private final UnsafeBuffer view = new UnsafeBuffer(new byte[1]);

        boolean read(final ExcerptTailer tailer)
        {
            try (DocumentContext dc = tailer.readingDocument())
            {
                if (!dc.isPresent())
                {
                    return false;
                }
                final Bytes<?> in = dc.wire().bytes();
                length = (int)in.readRemaining();
                if (bytes.length < length)
                {
                    bytes = new byte[Math.max(length, bytes.length * 2)];
                }
                in.read(bytes, 0, length);
                index = dc.index();
            }
            parse();
            return true;
        }

        private void parse()
        {
            final UnsafeBuffer b = view;
            b.wrap(bytes, 0, Math.max(length, 1));
            isVoid = length == VOID_LENGTH && b.getInt(0) == VOID_MAGIC;
            voided = isVoid ? b.getLong(4) : -1;
            recordCount = 0;
            valid = !isVoid && length > 0;
            int at = 0;
            while (valid && at < length)
            {
                if (at + 4 > length)
                {
                    valid = false;
                    break;
                }
                final int n = b.getInt(at);
                if (n < RecordDescriptor.FIELDS_OFFSET || n > RecordDescriptor.MAX_RECORD_LENGTH || at + 4 + n > length)
                {
                    valid = false;
                    break;
                }
                crc.reset();
                crc.update(bytes, at + 4 + 4, n - 4);
                if ((int)crc.getValue() != b.getInt(at + 4))
                {
                    valid = false;
                    break;
                }
                if (recordCount == offsets.length)
                {
                    offsets = java.util.Arrays.copyOf(offsets, recordCount * 2);
                    lengths = java.util.Arrays.copyOf(lengths, recordCount * 2);
                }
                offsets[recordCount] = at + 4;
                lengths[recordCount] = n;
                recordCount++;
                at += 4 + n;
            }
        }
    }

    /**
     * Reads records in order, skipping voided documents. A document that fails its checks is returned
     * whole as one record, which will not decode: the caller decides whether it is a torn tail
     * ({@link #atEnd()}) or corruption.
     */
    public final class Reader implements AutoCloseable
    {
        private final ExcerptTailer tailer;
        private Document current = new Document();
        private Document next = new Document();
        private boolean nextLoaded;
        private boolean nextPresent;
        private int position;
        private boolean currentLoaded;
        private final Document probe = new Document();
        private long documentsRead;

        Reader(final ExcerptTailer tailer)
        {
            this.tailer = tailer;
        }

        /** Queue documents this reader has read, probes of {@link #seek} included. */
        public long documentsRead()
        {
            return documentsRead;
        }

        /**
         * Positions the reader at the document that holds the record of key {@code key}, found over the
         * queue's index (the key of a document is that of its first record; keys grow through the
         * journal): from the document last read, a galloping search (O(log d) documents read for a key d
         * documents away); else a binary search, first over the queue's cycles, then within the cycle
         * (O(log n)). The records of that document before the one wanted are the caller's to skip.
         *
         * @return false if the journal holds nothing at or before {@code key} (it is empty, or starts after).
         */
        public boolean seek(final long key, final RecordKey keyOf)
        {
            final RollCycle roll = queue.rollCycle();
            if (currentLoaded && current.valid && current.recordCount > 0)
            {
                final int cycle = roll.toCycle(current.index);
                final long base = roll.toSequenceNumber(current.index);
                if (keyOf.key(current.bytes, current.offsets[0], current.lengths[0]) <= key)
                {
                    if (cycle != singleQueue().lastCycle())
                    {
                        // the key may be in a later cycle
                        return seekFromTheStart(key, keyOf, roll);
                    }
                    return startAt(roll.toIndex(cycle, gallopForward(cycle, base, key, keyOf, roll)));
                }
                long step = 1;
                long above = base;
                while (step <= base)
                {
                    final long probe = base - step;
                    if (keyAt(roll.toIndex(cycle, probe), keyOf) <= key)
                    {
                        return startAt(roll.toIndex(cycle, bisect(cycle, probe, above, key, keyOf, roll)));
                    }
                    above = probe;
                    step *= 2;
                }
                if (keyAt(roll.toIndex(cycle, 0), keyOf) <= key)
                {
                    return startAt(roll.toIndex(cycle, bisect(cycle, 0, above, key, keyOf, roll)));
                }
            }
            return seekFromTheStart(key, keyOf, roll);
        }

        private boolean seekFromTheStart(final long key, final RecordKey keyOf, final RollCycle roll)
        {
            final int first = singleQueue().firstCycle();
            final int last = singleQueue().lastCycle();
            if (first == Integer.MAX_VALUE || last == Integer.MIN_VALUE)
            {
                return false;
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
                return false;
            }
            final int cycle = (int)cycles[lo];
            return startAt(roll.toIndex(cycle, gallopForward(cycle, 0, key, keyOf, roll)));
        }

        /** The last document of the cycle from {@code from} on (whose key is at most key) whose key is at most key. */
        private long gallopForward(final int cycle, final long from, final long key, final RecordKey keyOf, final RollCycle roll)
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
            final int cycle, final long below, final long above, final long key, final RecordKey keyOf, final RollCycle roll)
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

        /**
         * Reads the record of key {@code key} into {@code dst}: from the document last read when it holds
         * the key, else after a {@link #seek}. Reading on with {@link #next} continues after it.
         *
         * @return its length, or -1 when the journal does not hold it.
         */
        public int read(final long key, final RecordKey keyOf, final byte[] dst)
        {
            if (!inCurrent(key, keyOf) && !seek(key, keyOf))
            {
                return -1;
            }
            int n;
            while ((n = next(dst)) >= 0)
            {
                final long k = keyOf.key(dst, 0, n);
                if (k == key)
                {
                    return n;
                }
                if (k > key || !current.valid)
                {
                    return -1;
                }
            }
            return -1;
        }

        /** Whether the document last read holds {@code key}; if so, the next record read is its record. */
        private boolean inCurrent(final long key, final RecordKey keyOf)
        {
            final Document d = current;
            if (!currentLoaded || !d.valid || d.recordCount == 0 ||
                keyOf.key(d.bytes, d.offsets[0], d.lengths[0]) > key)
            {
                return false;
            }
            int lo = 0;
            int hi = d.recordCount - 1;
            if (keyOf.key(d.bytes, d.offsets[hi], d.lengths[hi]) < key)
            {
                return false;
            }
            while (lo < hi)
            {
                final int mid = (lo + hi) >>> 1;
                if (keyOf.key(d.bytes, d.offsets[mid], d.lengths[mid]) < key)
                {
                    lo = mid + 1;
                }
                else
                {
                    hi = mid;
                }
            }
            position = lo;
            return true;
        }

        /** The key of the first valid document at or after {@code queueIndex}; Long.MAX_VALUE if there is none. */
        private long keyAt(final long queueIndex, final RecordKey keyOf)
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
         * Positions the reader after the last valid document (nothing of the journal's history is read but
         * its last documents, newest first, up to the first valid one).
         *
         * @return the key of the last record of that document, or 0 when the journal holds none.
         */
        public long startAtEnd(final RecordKey keyOf)
        {
            long voided = -1;
            long found = -1;
            long lastKey = 0;
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
                    found = probe.index;
                    break;
                }
            }
            nextLoaded = false;
            currentLoaded = false;
            if (found < 0)
            {
                tailer.toStart();
                return 0;
            }
            if (!tailer.moveToIndex(found))
            {
                throw new IllegalStateException("journal document " + found + " vanished while it was read");
            }
            try (DocumentContext dc = tailer.readingDocument())
            {
                documentsRead++;
            }
            return lastKey;
        }

        private SingleChronicleQueue singleQueue()
        {
            return (SingleChronicleQueue)queue;
        }

        /** Positions so that the next record read is the first of the document after {@code queueIndex}. */
        public boolean startAfter(final long queueIndex)
        {
            if (!tailer.moveToIndex(queueIndex))
            {
                return false;
            }
            nextLoaded = false;
            currentLoaded = false;
            try (DocumentContext dc = tailer.readingDocument())
            {
                return dc.isPresent();
            }
        }

        /** Positions so that the next record read is the first of the document at {@code queueIndex}. */
        public boolean startAt(final long queueIndex)
        {
            nextLoaded = false;
            currentLoaded = false;
            return tailer.moveToIndex(queueIndex);
        }

        /** Queue index of the document holding the record last returned by {@link #next}. */
        public long index()
        {
            return current.index;
        }

        private boolean loadNext()
        {
            if (!nextLoaded)
            {
                nextPresent = next.read(tailer);
                documentsRead += nextPresent ? 1 : 0;
                // a miss is not remembered: a live journal may have a document there by the next call
                nextLoaded = nextPresent;
            }
            return nextPresent;
        }

        /** Advances to the next document that is neither a VOID nor voided. */
        private boolean advance()
        {
            while (true)
            {
                if (!loadNext())
                {
                    return false;
                }
                final Document d = next;
                next = current;
                current = d;
                nextLoaded = false;
                if (current.isVoid)
                {
                    continue;
                }
                if (loadNext() && next.isVoid && next.voided == current.index)
                {
                    continue;
                }
                position = 0;
                currentLoaded = true;
                return true;
            }
        }

        /**
         * Reads the next record into {@code dst}.
         *
         * @return its length, or -1 at the end of the journal.
         */
        public int next(final byte[] dst)
        {
            if (!currentLoaded || (current.valid && position >= current.recordCount) || (!current.valid && position > 0))
            {
                if (!advance())
                {
                    currentLoaded = false;
                    return -1;
                }
            }
            if (!current.valid)
            {
                position = 1;
                final int n = Math.min(current.length, dst.length);
                System.arraycopy(current.bytes, 0, dst, 0, n);
                return n;
            }
            final int n = current.lengths[position];
            System.arraycopy(current.bytes, current.offsets[position], dst, 0, n);
            position++;
            return n;
        }

        /**
         * True when the record last returned by {@link #next} was the last of its document: a batch boundary,
         * the only place a snapshot may cover (it records the document's index, and recovery starts after it).
         */
        public boolean endOfDocument()
        {
            return !currentLoaded || !current.valid || position >= current.recordCount;
        }

        /** Lets go of the reader's place in the queue (its tailer); the reader is not used after. */
        @Override
        public void close()
        {
            tailer.close();
        }

        /** True when no record follows the one last returned. */
        public boolean atEnd()
        {
            if (currentLoaded && current.valid && position < current.recordCount)
            {
                return false;
            }
            while (loadNext())
            {
                if (!next.isVoid)
                {
                    return false;
                }
                nextLoaded = false;
            }
            return true;
        }
    }
}
