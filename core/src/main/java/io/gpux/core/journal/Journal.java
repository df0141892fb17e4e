package io.gpux.core.journal;

import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.TailerDirection;
import net.openhft.chronicle.wire.DocumentContext;

import java.nio.file.Path;

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
 *
 * <p>This class is the journal's face: its batches are gathered and written by a {@link JournalAppender}
 * on the single writer thread, its documents parsed by {@link JournalDocument}, and each {@link Reader}
 * (one reader thread each) finds where to start with a {@link JournalSeek}.
 */
public final class Journal implements AutoCloseable
{
    /** Room left after a batch, for Chronicle's index entries and document headers. */
    public static final long SLACK_BYTES = 256 * 1024;

    private final ChronicleQueue queue;
    private final JournalAppender writer;
    private final Path dir;

    /** File space reserved (allocated on the device) in {@code file}, from its start to {@code upTo}. */
    record Reservation(java.io.File file, long upTo)
    {
    }

    private Journal(final Path dir, final boolean readOnly)
    {
        this.dir = dir;
        queue = ChronicleQueue.singleBuilder(dir.toFile()).readOnly(readOnly).build();
        writer = new JournalAppender(readOnly ? null : queue.createAppender(), dir);
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
        writer.add(record, length);
    }

    /** Bytes of the current batch not written yet. */
    public int pendingBytes()
    {
        return writer.pendingBytes();
    }

    /**
     * Drops the records added since the last document was written, unwritten: a batch refused because
     * its journal has no room for it, or the output of a command the engine failed on.
     */
    public void discardBatch()
    {
        writer.discardBatch();
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
        return writer.hasRoom(moreBytes, fallback);
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
        return writer.writerFile();
    }

    long wantedUpTo()
    {
        return writer.wantedUpTo();
    }

    void guardedBy(final JournalSpace space)
    {
        writer.guardedBy(space);
    }

    void reserved(final Reservation r)
    {
        writer.reserved(r);
    }

    /**
     * Writes the current batch as one queue document, making its records visible to readers. Under a
     * {@link JournalSpace} guard, only into space reserved for it: when the batch does not fit, the
     * writer asks the guard for more and waits for it; if the disk has no room for it, nothing is
     * written and a {@link JournalFullException} says why.
     */
    public void endBatch()
    {
        writer.endBatch();
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
        return writer.writtenUpTo();
    }

    long chunkAddress()
    {
        return writer.chunkAddress();
    }

    long chunkStart()
    {
        return writer.chunkStart();
    }

    long chunkLimit()
    {
        return writer.chunkLimit();
    }

    /** The queue index of the last document this journal wrote (asked only when needed: it costs a scan). */
    public long lastIndexAppended()
    {
        return writer.lastIndexAppended();
    }

    /** Appends one record as its own document. */
    public void append(final byte[] record, final int length)
    {
        writer.add(record, length);
        writer.endBatch();
    }

    /**
     * Hands the single writer role to the calling thread (Chronicle binds an appender to the first
     * thread that uses it; recovery writes from the starting thread, then the pipeline's thread takes over).
     */
    public void takeOverWriting()
    {
        writer.takeOverWriting();
    }

    /** Forces what was appended to the storage device (msync). */
    public void sync()
    {
        writer.sync();
    }

    /** Appends a VOID document naming a torn tail document. */
    public void cutTornTail(final long tornIndex)
    {
        writer.cutTornTail(tornIndex);
    }

    /**
     * The records of the last {@code maxDocuments} documents, newest first, each passed to
     * {@code visitor} until it returns true (no VOID handling: for finding the last good record).
     */
    public void readBackward(final byte[] dst, final int maxDocuments, final RecordVisitor visitor)
    {
        final ExcerptTailer tailer = queue.createTailer().direction(TailerDirection.BACKWARD).toEnd();
        final JournalDocument doc = new JournalDocument();
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
        final JournalDocument doc = new JournalDocument();
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
        writer.flush();
        queue.close();
        writer.release();
    }

    /**
     * Reads records in order, skipping voided documents. A document that fails its checks is returned
     * whole as one record, which will not decode: the caller decides whether it is a torn tail
     * ({@link #atEnd()}) or corruption.
     */
    public final class Reader implements AutoCloseable
    {
        private final ExcerptTailer tailer;
        private JournalDocument current = new JournalDocument();
        private JournalDocument next = new JournalDocument();
        private boolean nextLoaded;
        private boolean nextPresent;
        private int position;
        private boolean currentLoaded;
        private final JournalSeek seeker;
        private long documentsRead;

        Reader(final ExcerptTailer tailer)
        {
            this.tailer = tailer;
            this.seeker = new JournalSeek(queue, tailer);
        }

        /**
         * Lets the next thread that uses this reader take it over (the queue's tailer remembers the thread that
         * used it and refuses others). The caller has stopped using it, and the reader reaches the next thread
         * through something that orders the two (a queue, a thread's start).
         */
        public void handOver()
        {
            tailer.singleThreadedCheckReset();
        }

        /** Queue documents this reader has read, probes of {@link #seek} included. */
        public long documentsRead()
        {
            return documentsRead + seeker.documentsRead();
        }

        /**
         * Positions the reader at the document that holds the record of key {@code key}, found by a
         * {@link JournalSeek} (from the document last read when there is one). The records of that
         * document before the one wanted are the caller's to skip.
         *
         * @return false if the journal holds nothing at or before {@code key} (it is empty, or starts after).
         */
        public boolean seek(final long key, final RecordKey keyOf)
        {
            final boolean fromCurrent = currentLoaded && current.valid && current.recordCount > 0;
            final long at = seeker.find(fromCurrent ? current : null, key, keyOf);
            return at >= 0 && startAt(at);
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
            final JournalDocument d = current;
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

        /**
         * Positions the reader after the last valid document (nothing of the journal's history is read but
         * its last documents, newest first, up to the first valid one).
         *
         * @return the key of the last record of that document, or 0 when the journal holds none.
         */
        public long startAtEnd(final RecordKey keyOf)
        {
            final long found = seeker.lastValid(keyOf);
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
            return seeker.lastKey();
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
                final JournalDocument d = next;
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
