package io.gpux.core.journal;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.MappedBytesStore;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.wire.DocumentContext;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * The writing side of a {@link Journal}: gathers the records of a batch off the heap and writes them
 * as one queue document when the batch ends, only into file space a {@link JournalSpace} guard has
 * reserved once one watches the journal. Runs on the journal's single writer thread; the writer's
 * place in its file (offset, mapped chunk, file, wanted reservation) is published through volatile
 * fields for the {@link Pretoucher} and the guard, which read it from their own threads.
 */
final class JournalAppender
{
    /** A batch larger than this is split over several documents. */
    private static final int MAX_DOCUMENT = 1 << 20;
    private static final long RESERVE_WAIT_NS = java.util.concurrent.TimeUnit.SECONDS.toNanos(5);

    /** Null for a read-only journal. */
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
    private volatile Journal.Reservation reservation;
    /** The guard, once one watches this journal: then every batch is written into reserved space only. */
    private JournalSpace guard;
    /** The file offset the writer waits to see reserved (for a batch larger than what is reserved ahead), else 0. */
    private volatile long wantedUpTo;

    JournalAppender(final ExcerptAppender appender, final Path dir)
    {
        this.appender = appender;
        this.dir = dir;
    }

    void add(final byte[] record, final int length)
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

    int pendingBytes()
    {
        return pendingLength;
    }

    void discardBatch()
    {
        pendingLength = 0;
    }

    boolean hasRoom(final long moreBytes, final boolean fallback)
    {
        final Journal.Reservation r = reservation;
        final java.io.File file = writerFile;
        if (file == null || r == null || r.file() != file)
        {
            return fallback;
        }
        return writtenUpTo + pendingLength + moreBytes <= r.upTo();
    }

    private void awaitRoom()
    {
        wantedUpTo = writtenUpTo + pendingLength + Journal.SLACK_BYTES;
        final long deadline = System.nanoTime() + RESERVE_WAIT_NS;
        try
        {
            while (!hasRoom(Journal.SLACK_BYTES, guard.refusal() == null))
            {
                final String refusal = guard.refusal();
                if (refusal != null || System.nanoTime() - deadline > 0)
                {
                    throw new Journal.JournalFullException((refusal != null ? refusal : "journal disk: no space reserved in time") +
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

    void reserved(final Journal.Reservation r)
    {
        reservation = r;
    }

    void endBatch()
    {
        if (pendingLength == 0)
        {
            return;
        }
        if (guard != null && !hasRoom(Journal.SLACK_BYTES, guard.refusal() == null))
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

    long lastIndexAppended()
    {
        return appender.lastIndexAppended();
    }

    void takeOverWriting()
    {
        if (appender != null)
        {
            appender.singleThreadedCheckReset();
        }
    }

    void sync()
    {
        appender.sync();
    }

    void cutTornTail(final long tornIndex)
    {
        try (DocumentContext dc = appender.writingDocument())
        {
            dc.wire().bytes().writeInt(JournalDocument.VOID_MAGIC).writeLong(tornIndex);
        }
    }

    /** Writes what is left of the batch (a writing journal only), before the queue closes. */
    void flush()
    {
        if (appender != null)
        {
            endBatch();
        }
    }

    /** Frees the batch's off-heap memory, once the queue is closed. */
    void release()
    {
        pendingStore.releaseLast();
    }
}
