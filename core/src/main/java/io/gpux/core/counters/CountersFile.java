package io.gpux.core.counters;

import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The counters file, {@code <data>/counters.dat}: the exchange's counters in shared memory, written by
 * the server and read by {@code gpux stat} from another process (Aeron's CnC file).
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                     magic "GPXC" (int)                        |  0
 *  |                     version (int)                             |  4
 *  |                     metadata length (int)                     |  8
 *  |                     values length (int)                       | 12
 *  |                     server pid (long)                         | 16
 *  |                                                               |
 *  |                     server start, epoch ms (long)             | 24
 *  |                                                               |
 *  |                     ... zeros up to HEADER_LENGTH             |
 *  +---------------------------------------------------------------+
 *  |        Agrona counters metadata (metadata length bytes)       |  HEADER_LENGTH
 *  +---------------------------------------------------------------+
 *  |        Agrona counters values (values length bytes)           |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * The magic is written last, after the rest of the header, so a reader that sees it sees a whole header.
 */
public final class CountersFile implements AutoCloseable
{
    public static final String FILE_NAME = "counters.dat";
    public static final int MAGIC = 0x43585047; // "GPXC" little-endian
    public static final int VERSION = 1;
    public static final int HEADER_LENGTH = 128;
    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 4;
    static final int METADATA_LENGTH_OFFSET = 8;
    static final int VALUES_LENGTH_OFFSET = 12;
    static final int PID_OFFSET = 16;
    static final int START_TIME_OFFSET = 24;

    private final Path file;
    private final MappedByteBuffer mapped;
    private final UnsafeBuffer header;
    private final UnsafeBuffer metadata;
    private final UnsafeBuffer values;

    private CountersFile(final Path file, final MappedByteBuffer mapped, final int metadataLength, final int valuesLength)
    {
        this.file = file;
        this.mapped = mapped;
        header = new UnsafeBuffer(mapped, 0, HEADER_LENGTH);
        metadata = new UnsafeBuffer(mapped, HEADER_LENGTH, metadataLength);
        values = new UnsafeBuffer(mapped, HEADER_LENGTH + metadataLength, valuesLength);
    }

    /**
     * Makes a fresh counters file in {@code dataDir} for up to {@code maxCounters} counters, replacing the
     * last run's (a reader still mapping that one keeps its old figures).
     */
    public static CountersFile create(final Path dataDir, final int maxCounters, final long pid, final long startTimeMs)
        throws IOException
    {
        final int valuesLength = maxCounters * CountersReader.COUNTER_LENGTH;
        final int metadataLength = maxCounters * CountersReader.METADATA_LENGTH;
        final Path file = dataDir.resolve(FILE_NAME);
        final Path tmp = dataDir.resolve(FILE_NAME + ".new");
        Files.deleteIfExists(tmp);
        final MappedByteBuffer mapped;
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
            StandardOpenOption.WRITE))
        {
            mapped = ch.map(FileChannel.MapMode.READ_WRITE, 0, (long)HEADER_LENGTH + metadataLength + valuesLength);
        }
        final CountersFile counters = new CountersFile(file, mapped, metadataLength, valuesLength);
        counters.header.putInt(VERSION_OFFSET, VERSION);
        counters.header.putInt(METADATA_LENGTH_OFFSET, metadataLength);
        counters.header.putInt(VALUES_LENGTH_OFFSET, valuesLength);
        counters.header.putLong(PID_OFFSET, pid);
        counters.header.putLong(START_TIME_OFFSET, startTimeMs);
        counters.header.putIntRelease(MAGIC_OFFSET, MAGIC);
        Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        return counters;
    }

    /**
     * Maps the counters file of {@code dataDir} to read it.
     *
     * @throws IOException with a one-line reason when there is none or it is not a counters file.
     */
    public static CountersFile open(final Path dataDir) throws IOException
    {
        final Path file = dataDir.resolve(FILE_NAME);
        final MappedByteBuffer mapped;
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r"))
        {
            final long length = raf.length();
            if (length < HEADER_LENGTH)
            {
                throw new IOException(file + " is not a gpux counters file (" + length + " bytes)");
            }
            mapped = raf.getChannel().map(FileChannel.MapMode.READ_ONLY, 0, length);
        }
        catch (final NoSuchFileException | java.io.FileNotFoundException ex)
        {
            throw new IOException("no counters in " + dataDir + ": no server has started there (no " + FILE_NAME + ")");
        }
        final UnsafeBuffer header = new UnsafeBuffer(mapped, 0, HEADER_LENGTH);
        final int magic = header.getIntVolatile(MAGIC_OFFSET);
        final int version = header.getInt(VERSION_OFFSET);
        final int metadataLength = header.getInt(METADATA_LENGTH_OFFSET);
        final int valuesLength = header.getInt(VALUES_LENGTH_OFFSET);
        if (magic != MAGIC || version != VERSION || metadataLength < 0 || valuesLength < 0 ||
            (long)HEADER_LENGTH + metadataLength + valuesLength > mapped.capacity())
        {
            IoUtil.unmap(mapped);
            throw new IOException(file + " is not a gpux counters file of version " + VERSION);
        }
        return new CountersFile(file, mapped, metadataLength, valuesLength);
    }

    public Path file()
    {
        return file;
    }

    /** The metadata buffer (for a {@link org.agrona.concurrent.status.CountersManager} or reader). */
    public UnsafeBuffer metadata()
    {
        return metadata;
    }

    public UnsafeBuffer values()
    {
        return values;
    }

    /** The process id of the server that made this file. */
    public long pid()
    {
        return header.getLong(PID_OFFSET);
    }

    /** When that server started (epoch ms). */
    public long startTimeMs()
    {
        return header.getLong(START_TIME_OFFSET);
    }

    /**
     * Whether the server that made this file is still running: its pid is alive and (where the system says
     * when a process started) that process started before the file was made, not a later one given the pid again.
     */
    public boolean serverRunning()
    {
        return ProcessHandle.of(pid()).filter(ProcessHandle::isAlive)
            .map(p -> p.info().startInstant().map(started -> started.toEpochMilli() <= startTimeMs()).orElse(true))
            .orElse(false);
    }

    @Override
    public void close()
    {
        IoUtil.unmap(mapped);
    }
}
