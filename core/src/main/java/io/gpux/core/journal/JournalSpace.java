package io.gpux.core.journal;

import net.openhft.posix.PosixAPI;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Keeps the journals' writer off a full disk, on a mostly sleeping thread of its own.
 *
 * <p>A journal is a memory-mapped file that grows sparsely: a write to a page the device has no room
 * for does not fail where it happens, it raises SIGBUS, which the JVM turns into an
 * {@code InternalError} some instructions later, possibly after the batch it belonged to was applied
 * and acknowledged. So nothing may write where space is not already allocated. This agent reserves
 * (allocates with {@code fallocate}, changing no byte and not the file's size) each journal's file
 * from where its writer is to {@value #RESERVE_AHEAD_BYTES} bytes beyond, and publishes how far it
 * got; the writer checks the room left before each batch ({@link Journal#hasRoom}) and refuses a batch
 * that does not fit, unwritten and unapplied.
 *
 * <p>It also watches the free space of the file system every {@value #CHECK_INTERVAL_MS} ms: below
 * the floor ({@code minFreeBytes}), or when a reservation fails, it says why in {@link #refusal()},
 * which the exchange answers new commands with (UNAVAILABLE); once space is back it clears it. Each
 * change is logged in one line. A file system without {@code fallocate} is reported once; its
 * journals are then guarded by the floor alone.
 */
public final class JournalSpace implements Agent
{
    static final long RESERVE_AHEAD_BYTES = 4L << 20;
    /** Reserve again once the writer has used this much of what was reserved ahead of it. */
    private static final long RESERVE_STEP_BYTES = 1L << 20;
    static final long CHECK_INTERVAL_MS = 50;
    private static final int FALLOC_FL_KEEP_SIZE = 1;
    private static final int O_RDWR = 2;
    private static final long MB = 1L << 20;

    private final Journal[] journals;
    private final Path dir;
    private final FileStore store;
    private final long minFreeBytes;
    private final NanoClock clock;
    private final Consumer<String> log;
    private final PosixAPI posix;
    private final File[] reservedFile;
    private final int[] fds;
    private final long[] reservedUpTo;
    private boolean fallocateUnsupported;
    private long nextCheckNs;
    private boolean reserveFailed;
    private volatile String refusal;

    /**
     * @param dir          the data directory (its file system is the one watched, and the name in the reason).
     * @param minFreeBytes below this much free space new commands are refused.
     * @param log          where the start and the end of a refusal are reported, one line each.
     */
    public JournalSpace(final Path dir, final long minFreeBytes, final NanoClock clock, final Consumer<String> log,
        final Journal... journals)
    {
        this.journals = journals.clone();
        this.dir = dir;
        this.minFreeBytes = minFreeBytes;
        this.clock = clock;
        this.log = log;
        try
        {
            store = Files.getFileStore(dir);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        PosixAPI api = null;
        try
        {
            api = PosixAPI.posix();
        }
        catch (final RuntimeException | LinkageError ex)
        {
            fallocateUnsupported = true;
            log.accept("journal space cannot be reserved ahead of the writer (no native POSIX access: " + ex +
                "): only the free-space floor guards the journals");
        }
        posix = api;
        reservedFile = new File[journals.length];
        fds = new int[journals.length];
        java.util.Arrays.fill(fds, -1);
        reservedUpTo = new long[journals.length];
        nextCheckNs = clock.nanoTime();
        for (final Journal journal : journals)
        {
            journal.guardedBy(this);
        }
    }

    /**
     * Why new commands are refused now ("journal disk full: 3 MB free under /data, need 64 MB"), or
     * null while there is room. Any thread.
     */
    public String refusal()
    {
        return refusal;
    }

    @Override
    public int doWork()
    {
        int work = 0;
        for (int i = 0; i < journals.length; i++)
        {
            work += reserve(i);
        }
        final long now = clock.nanoTime();
        if (now - nextCheckNs >= 0)
        {
            nextCheckNs = now + TimeUnit.MILLISECONDS.toNanos(CHECK_INTERVAL_MS);
            if (reserveFailed)
            {
                // a failed reservation is retried at the pace of the free-space check
                reserveFailed = false;
                for (int i = 0; i < journals.length; i++)
                {
                    work += reserve(i);
                }
            }
            checkFreeSpace();
            work++;
        }
        return work;
    }

    /** Reserves journal {@code i}'s file ahead of its writer when the writer has used a step of it; 1 if it did. */
    private int reserve(final int i)
    {
        final Journal journal = journals[i];
        final File file = journal.writerFile();
        if (fallocateUnsupported || file == null || reserveFailed)
        {
            return 0;
        }
        final long writer = journal.writtenUpTo();
        final long wanted = journal.wantedUpTo();
        if (file != reservedFile[i])
        {
            closeFd(i);
            fds[i] = posix.open(file.getPath(), O_RDWR, 0);
            if (fds[i] < 0)
            {
                reserveFailed = true;
                log.accept("journal space: cannot open " + file + " to reserve space: " + posix.lastErrorStr());
                return 0;
            }
            reservedFile[i] = file;
            reservedUpTo[i] = writer;
        }
        if (reservedUpTo[i] - writer >= RESERVE_AHEAD_BYTES - RESERVE_STEP_BYTES && reservedUpTo[i] >= wanted)
        {
            return 0;
        }
        final long from = Math.max(reservedUpTo[i], writer);
        final long to = Math.max(writer + RESERVE_AHEAD_BYTES, wanted);
        if (posix.fallocate(fds[i], FALLOC_FL_KEEP_SIZE, from, to - from) != 0)
        {
            final int errno = posix.lastError();
            if (errno == 95)
            {
                // EOPNOTSUPP: this file system cannot reserve; the floor is all there is
                fallocateUnsupported = true;
                log.accept("journal space cannot be reserved ahead of the writer on the file system of " + dir +
                    " (fallocate: " + posix.strerror(errno) + "): only the free-space floor guards the journals");
                return 0;
            }
            reserveFailed = true;
            refuse(usableBytes(), Math.max(minFreeBytes, to - from), "cannot reserve journal space: " + posix.strerror(errno));
            return 0;
        }
        reservedUpTo[i] = to;
        journal.reserved(new Journal.Reservation(file, to));
        return 1;
    }

    private void checkFreeSpace()
    {
        final long free = usableBytes();
        if (free < minFreeBytes)
        {
            refuse(free, minFreeBytes, null);
        }
        else if (!reserveFailed && refusal != null)
        {
            log.accept("journal disk: " + free / MB + " MB free under " + dir + ": accepting commands again");
            refusal = null;
        }
    }

    private void refuse(final long free, final long need, final String detail)
    {
        if (refusal == null)
        {
            final String reason = "journal disk full: " + free / MB + " MB free under " + dir + ", need " +
                (need + MB - 1) / MB + " MB";
            refusal = reason;
            log.accept(reason + (detail == null ? "" : " (" + detail + ")") + ": refusing new commands");
        }
    }

    private long usableBytes()
    {
        try
        {
            return store.getUsableSpace();
        }
        catch (final IOException ex)
        {
            return 0;
        }
    }

    private void closeFd(final int i)
    {
        if (fds[i] >= 0)
        {
            posix.close(fds[i]);
            fds[i] = -1;
        }
    }

    @Override
    public void onClose()
    {
        for (int i = 0; i < journals.length; i++)
        {
            closeFd(i);
        }
    }

    @Override
    public String roleName()
    {
        return "gpux-journal-space";
    }
}
