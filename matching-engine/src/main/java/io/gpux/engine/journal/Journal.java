package io.gpux.engine.journal;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.wire.DocumentContext;

import java.nio.file.Path;

/**
 * An append-only journal of binary records on a Chronicle Queue. One writer thread appends; any
 * number of readers read from the start or from a given queue index.
 *
 * <p>A record that fails its checksum at the very end of the journal is a torn tail (a crash
 * mid-write): {@link #cutTornTail} voids it by appending a VOID record naming its index, and readers
 * skip a record followed by such a VOID. A bad record anywhere else is corruption, reported as such.
 */
public final class Journal implements AutoCloseable
{
    /** Record kind of a VOID marker: 4-byte magic then the voided record's queue index. */
    private static final int VOID_MAGIC = 0x564F4944;
    private static final int VOID_LENGTH = 12;

    private final ChronicleQueue queue;
    private final ExcerptAppender appender;
    private final Path dir;

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

    /** Appends a record; returns its queue index. */
    public long append(final byte[] record, final int length)
    {
        try (DocumentContext dc = appender.writingDocument())
        {
            dc.wire().bytes().write(record, 0, length);
        }
        return appender.lastIndexAppended();
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

    public long lastIndex()
    {
        return queue.lastIndex();
    }

    /** Appends a VOID record naming the index of a torn tail record. */
    public void cutTornTail(final long tornIndex)
    {
        final byte[] marker = new byte[VOID_LENGTH];
        final org.agrona.concurrent.UnsafeBuffer b = new org.agrona.concurrent.UnsafeBuffer(marker);
        b.putInt(0, VOID_MAGIC);
        b.putLong(4, tornIndex);
        append(marker, VOID_LENGTH);
    }

    /**
     * The last {@code max} raw records, newest first, each passed to {@code visitor} until it returns
     * true (no VOID handling: for finding the last good record).
     */
    public void readBackward(final byte[] dst, final int max, final RecordVisitor visitor)
    {
        final ExcerptTailer tailer = queue.createTailer().direction(net.openhft.chronicle.queue.TailerDirection.BACKWARD).toEnd();
        for (int i = 0; i < max; i++)
        {
            try (DocumentContext dc = tailer.readingDocument())
            {
                if (!dc.isPresent())
                {
                    return;
                }
                final Bytes<?> bytes = dc.wire().bytes();
                final int length = (int)Math.min(bytes.readRemaining(), dst.length);
                bytes.read(dst, 0, length);
                if (visitor.visit(dst, length))
                {
                    return;
                }
            }
        }
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
        queue.close();
    }

    /** Reads records in order, skipping voided ones. */
    public final class Reader
    {
        private final ExcerptTailer tailer;
        private long index = -1;
        private final byte[] pending = new byte[RecordDescriptor.MAX_RECORD_LENGTH];
        private int pendingLength = -1;
        private long pendingIndex;

        Reader(final ExcerptTailer tailer)
        {
            this.tailer = tailer;
        }

        /** Positions so that the next record read is the one after {@code queueIndex}. */
        public boolean startAfter(final long queueIndex)
        {
            if (!tailer.moveToIndex(queueIndex))
            {
                return false;
            }
            try (DocumentContext dc = tailer.readingDocument())
            {
                return dc.isPresent();
            }
        }

        /** Queue index of the record last returned by {@link #next}. */
        public long index()
        {
            return index;
        }

        /**
         * Reads the next record into {@code dst}, skipping VOID markers and the records they void.
         *
         * @return its length, or -1 at the end of the journal.
         */
        public int next(final byte[] dst)
        {
            while (true)
            {
                final int length;
                final long at;
                if (pendingLength >= 0)
                {
                    length = pendingLength;
                    at = pendingIndex;
                    System.arraycopy(pending, 0, dst, 0, length);
                    pendingLength = -1;
                }
                else
                {
                    try (DocumentContext dc = tailer.readingDocument())
                    {
                        if (!dc.isPresent())
                        {
                            return -1;
                        }
                        final Bytes<?> bytes = dc.wire().bytes();
                        length = (int)Math.min(bytes.readRemaining(), dst.length);
                        bytes.read(dst, 0, length);
                        at = dc.index();
                    }
                }
                if (isVoid(dst, length))
                {
                    continue;
                }
                // a record followed by a VOID naming it was cut off as a torn tail
                try (DocumentContext dc = tailer.readingDocument())
                {
                    if (dc.isPresent())
                    {
                        final Bytes<?> bytes = dc.wire().bytes();
                        final int n = (int)Math.min(bytes.readRemaining(), pending.length);
                        bytes.read(pending, 0, n);
                        if (isVoid(pending, n) && voidedIndex(pending) == at)
                        {
                            continue;
                        }
                        pendingLength = n;
                        pendingIndex = dc.index();
                    }
                }
                index = at;
                return length;
            }
        }

        /** True when no record follows the one last returned. */
        public boolean atEnd()
        {
            if (pendingLength >= 0)
            {
                return false;
            }
            try (DocumentContext dc = tailer.readingDocument())
            {
                if (!dc.isPresent())
                {
                    return true;
                }
                final Bytes<?> bytes = dc.wire().bytes();
                final int n = (int)Math.min(bytes.readRemaining(), pending.length);
                bytes.read(pending, 0, n);
                pendingLength = n;
                pendingIndex = dc.index();
                return false;
            }
        }
    }

    private static boolean isVoid(final byte[] record, final int length)
    {
        return length == VOID_LENGTH && new org.agrona.concurrent.UnsafeBuffer(record, 0, VOID_LENGTH).getInt(0) == VOID_MAGIC;
    }

    private static long voidedIndex(final byte[] record)
    {
        return new org.agrona.concurrent.UnsafeBuffer(record, 0, VOID_LENGTH).getLong(4);
    }
}
