package io.gpux.gateway.workload;

import io.gpux.proto.v1.WorkloadAuditRecord;

import com.google.protobuf.InvalidProtocolBufferException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * The append-only audit journal of workloads: every launch and every status report, in the order
 * the exchange accepted them. A record is a 4-byte big-endian length, the CRC32C of the record and
 * the {@link WorkloadAuditRecord}; each append is forced to the disk before it is acknowledged. A
 * torn tail (a crash in the middle of an append) is cut at the last whole record when the journal
 * is opened. One thread appends.
 */
public final class WorkloadAuditJournal implements AutoCloseable
{
    /** The journal's file in the data directory. */
    public static final String FILE = "workloads.audit";
    /** Larger records are refused: no launch comes near it (a frame is at most a few MiB). */
    static final int MAX_RECORD_BYTES = 16 << 20;

    private final FileChannel channel;
    private final CRC32C crc = new CRC32C();

    private WorkloadAuditJournal(final FileChannel channel)
    {
        this.channel = channel;
    }

    /**
     * Opens (or creates) the journal, hands every whole record to {@code replay} in order, cuts a
     * torn tail, and positions for appending.
     */
    public static WorkloadAuditJournal open(final Path dataDir, final Consumer<WorkloadAuditRecord> replay,
        final Consumer<String> log) throws IOException
    {
        Files.createDirectories(dataDir);
        final Path file = dataDir.resolve(FILE);
        final FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
            StandardOpenOption.WRITE);
        try
        {
            final long good = replay(channel, replay);
            if (good < channel.size())
            {
                log.accept("workload journal " + file + ": cut a torn tail of " + (channel.size() - good) +
                    " bytes at byte " + good);
                channel.truncate(good);
                channel.force(true);
            }
            channel.position(good);
            return new WorkloadAuditJournal(channel);
        }
        catch (final IOException | RuntimeException ex)
        {
            channel.close();
            throw ex;
        }
    }

    /** @return the end of the last whole record. */
    private static long replay(final FileChannel channel, final Consumer<WorkloadAuditRecord> replay) throws IOException
    {
        final long size = channel.size();
        final ByteBuffer header = ByteBuffer.allocate(8);
        final CRC32C crc = new CRC32C();
        long at = 0;
        while (at + 8 <= size)
        {
            header.clear();
            channel.read(header, at);
            final int length = header.getInt(0);
            final int checksum = header.getInt(4);
            if (length < 0 || length > MAX_RECORD_BYTES || at + 8 + length > size)
            {
                break;
            }
            final ByteBuffer body = ByteBuffer.allocate(length);
            while (body.hasRemaining() && channel.read(body, at + 8 + body.position()) > 0)
            {
                // read the whole record
            }
            crc.reset();
            crc.update(body.array(), 0, length);
            if ((int)crc.getValue() != checksum)
            {
                break;
            }
            final WorkloadAuditRecord record;
            try
            {
                record = WorkloadAuditRecord.parseFrom(body.array());
            }
            catch (final InvalidProtocolBufferException ex)
            {
                break;
            }
            replay.accept(record);
            at += 8 + length;
        }
        return at;
    }

    /** Appends a record and forces it to the disk. */
    public void append(final WorkloadAuditRecord record) throws IOException
    {
        final byte[] bytes = record.toByteArray();
        if (bytes.length > MAX_RECORD_BYTES)
        {
            throw new IOException("a workload record of " + bytes.length + " bytes is over the journal's maximum of " +
                MAX_RECORD_BYTES);
        }
        crc.reset();
        crc.update(bytes, 0, bytes.length);
        final ByteBuffer frame = ByteBuffer.allocate(8 + bytes.length);
        frame.putInt(bytes.length).putInt((int)crc.getValue()).put(bytes).flip();
        while (frame.hasRemaining())
        {
            channel.write(frame);
        }
        channel.force(false);
    }

    @Override
    public void close() throws IOException
    {
        channel.close();
    }
}
