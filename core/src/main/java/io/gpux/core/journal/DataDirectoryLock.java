package io.gpux.core.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * One writer per data directory: an operating-system lock on {@code <data>/LOCK}, held for as long as
 * the process runs the exchange. The file says who holds it ({@code pid=...}, {@code started=...}), so
 * that a second server can name the first; only the OS lock counts, so a LOCK file left behind by a
 * process that died is taken over (the lock died with its process). The file is never deleted: a
 * process that opened it just before a delete would lock a file that nobody else can see.
 */
public final class DataDirectoryLock implements AutoCloseable
{
    /** The lock file's name inside the data directory. */
    public static final String FILE_NAME = "LOCK";
    private static final int LOCK_RETRIES = 3;
    private static final long LOCK_RETRY_MS = 20;

    /** The data directory is held by another live process (or by another exchange in this one). */
    public static final class InUseException extends IOException
    {
        private final String holder;

        InUseException(final Path dir, final String holder)
        {
            super("data directory " + dir + " is in use by " + holder, null);
            this.holder = holder;
        }

        /** Who holds it, e.g. {@code pid 4242 (started 2026-12-01T14:03:11Z)}. */
        public String holder()
        {
            return holder;
        }

        @Override
        public synchronized Throwable fillInStackTrace()
        {
            return this;
        }
    }

    private final Path dir;
    private final FileChannel channel;
    private final FileLock lock;

    private DataDirectoryLock(final Path dir, final FileChannel channel, final FileLock lock)
    {
        this.dir = dir;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Creates the directory if need be and locks it for this process.
     *
     * @throws InUseException another process (or another exchange in this process) holds it.
     * @throws IOException    the path is not a directory, or the lock file cannot be written.
     */
    public static DataDirectoryLock acquire(final Path dir) throws IOException
    {
        createDirectory(dir);
        // made before locking, so that the file says who holds it a moment after the lock is taken
        final byte[] text = ("pid=" + ProcessHandle.current().pid() + "\nstarted=" +
            Instant.now().truncatedTo(ChronoUnit.SECONDS) + "\n").getBytes(StandardCharsets.US_ASCII);
        final FileChannel channel = FileChannel.open(dir.resolve(FILE_NAME),
            StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try
        {
            FileLock lock = tryLock(channel, false);
            for (int retry = 0; lock == null && retry < LOCK_RETRIES; retry++)
            {
                // a reader checking holder() holds a shared lock for an instant
                sleepQuietly();
                lock = tryLock(channel, false);
            }
            if (lock == null)
            {
                throw new InUseException(dir, describe(readHolder(channel)));
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(text), 0);
            channel.force(true);
            return new DataDirectoryLock(dir, channel, lock);
        }
        catch (final IOException | RuntimeException ex)
        {
            channel.close();
            throw ex;
        }
    }

    /**
     * Who holds the directory now, or null when nobody does (or it has no lock file). For readers
     * that share the directory with a live server; takes and drops a shared lock to find out.
     */
    public static String holder(final Path dir) throws IOException
    {
        final FileChannel channel;
        try
        {
            channel = FileChannel.open(dir.resolve(FILE_NAME), StandardOpenOption.READ);
        }
        catch (final NoSuchFileException ex)
        {
            return null;
        }
        try (channel)
        {
            final FileLock lock = tryLock(channel, true);
            if (lock != null)
            {
                lock.release();
                return null;
            }
            return describe(readHolder(channel));
        }
    }

    /** The directory this lock holds. */
    public Path dir()
    {
        return dir;
    }

    /** Releases the lock (the file stays). Idempotent. */
    @Override
    public void close() throws IOException
    {
        if (channel.isOpen())
        {
            try
            {
                lock.release();
            }
            finally
            {
                channel.close();
            }
        }
    }

    private static void createDirectory(final Path dir) throws IOException
    {
        if (Files.exists(dir) && !Files.isDirectory(dir))
        {
            throw new NotDirectoryException(dir.toString());
        }
        Files.createDirectories(dir);
    }

    /** null: held by another process; a lock held by this very process counts as held too. */
    private static FileLock tryLock(final FileChannel channel, final boolean shared) throws IOException
    {
        try
        {
            return channel.tryLock(0, Long.MAX_VALUE, shared);
        }
        catch (final OverlappingFileLockException ex)
        {
            return null;
        }
    }

    private static void sleepQuietly() throws IOException
    {
        try
        {
            Thread.sleep(LOCK_RETRY_MS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while locking the data directory");
        }
    }

    private static String readHolder(final FileChannel channel) throws IOException
    {
        final ByteBuffer buffer = ByteBuffer.allocate(256);
        channel.read(buffer, 0);
        return new String(buffer.array(), 0, buffer.position(), StandardCharsets.US_ASCII);
    }

    private static String describe(final String text)
    {
        String pid = null;
        String started = null;
        for (final String line : text.split("\n"))
        {
            if (line.startsWith("pid="))
            {
                pid = line.substring(4).trim();
            }
            else if (line.startsWith("started="))
            {
                started = line.substring(8).trim();
            }
        }
        if (pid == null)
        {
            return "another process";
        }
        final String self = pid.equals(Long.toString(ProcessHandle.current().pid())) ? "this process" : null;
        final String when = started != null ? "started " + started : null;
        return "pid " + pid + (self == null && when == null ? "" :
            " (" + (self != null && when != null ? self + ", " + when : self != null ? self : when) + ")");
    }
}
