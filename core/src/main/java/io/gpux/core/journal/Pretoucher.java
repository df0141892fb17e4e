package io.gpux.core.journal;

import net.openhft.posix.PosixAPI;
import org.agrona.concurrent.Agent;

import java.util.function.Consumer;

/**
 * Makes the pages of each journal's mapped file writable ahead of its writer, so that the writer (the
 * exchange's core thread) never takes a page fault on the journal itself.
 *
 * <p>A journal is a memory-mapped file that grows sparsely. The first write to each 4 KiB page of the
 * mapping faults into the kernel, which allocates the page and, on a disk file system, reserves its
 * blocks under the file system's journal: measured here (ext4 in a VM) one append in about thirty
 * thousand took over a millisecond, the worst 17-26 ms, and at 100k commands/s that is a queue of over
 * a thousand commands behind it. This agent, on its own mostly sleeping thread, asks the kernel to
 * populate the writer's own mapping as writable ({@code madvise(MADV_POPULATE_WRITE)}, Linux 5.14+)
 * from the writer's position to {@value #AHEAD_BYTES} bytes beyond it, within the mapped chunk the
 * writer is in: the faults, and any wait for the file system, happen here. Page tables belong to the
 * process, so the writer then finds the pages mapped. It changes no byte of the file.
 *
 * <p>Why a system call and not a touch of each page: the chunk is Chronicle's mapping, which Chronicle
 * may unmap at any time once the writer has moved on. A touch of an unmapped address would kill the
 * process; {@code madvise} on it only returns an error. (Touching a second mapping of the same file
 * does not help: it was measured, and the writer still faults on its own mapping.) On a kernel without
 * {@code MADV_POPULATE_WRITE} the first call fails, the failure is reported once, and the agent stops
 * trying: the exchange runs as it would without it. Chronicle's own {@code pretouch()} is a no-op
 * outside its commercial edition.
 */
public final class Pretoucher implements Agent
{
    /** {@code MADV_POPULATE_WRITE} from the Linux uapi {@code mman-common.h}. */
    private static final int MADV_POPULATE_WRITE = 23;
    static final long PAGE = 4096;
    static final long AHEAD_BYTES = 8L << 20;
    /** At most this much populated per call, so that one call never holds the address space lock long. */
    private static final long STEP_BYTES = 256L << 10;

    private final Journal[] journals;
    private final long[] populatedUpTo;
    private final long[] populatedChunk;
    private final Consumer<String> log;
    private final PosixAPI posix;
    private boolean everWorked;
    private boolean unsupported;

    /** @param log where it is reported that the kernel cannot do this (then the exchange goes on without it). */
    public Pretoucher(final Consumer<String> log, final Journal... journals)
    {
        this.journals = journals.clone();
        this.log = log;
        populatedUpTo = new long[journals.length];
        populatedChunk = new long[journals.length];
        PosixAPI api = null;
        try
        {
            api = PosixAPI.posix();
        }
        catch (final RuntimeException | LinkageError ex)
        {
            unsupported = true;
            log.accept("journal pretouch unavailable (no native POSIX access: " + ex +
                "): the core thread takes the journals' page faults itself");
        }
        posix = api;
    }

    @Override
    public int doWork()
    {
        if (unsupported)
        {
            return 0;
        }
        int work = 0;
        for (int i = 0; i < journals.length; i++)
        {
            work += populate(i);
        }
        return work;
    }

    /** @return how many steps it populated for journal {@code i}. */
    private int populate(final int i)
    {
        final Journal journal = journals[i];
        final long writer = journal.writtenUpTo() & ~(PAGE - 1);
        final long address = journal.chunkAddress();
        final long start = journal.chunkStart();
        final long limit = journal.chunkLimit() & ~(PAGE - 1);
        if (address == 0 || writer < start || writer >= limit)
        {
            return 0;
        }
        if (populatedChunk[i] != address)
        {
            populatedChunk[i] = address;
            populatedUpTo[i] = writer;
        }
        long from = Math.max(populatedUpTo[i], writer);
        final long to = Math.min(writer + AHEAD_BYTES, limit);
        int steps = 0;
        while (from < to && steps < 4)
        {
            final long length = Math.min(STEP_BYTES, to - from);
            final int rc;
            try
            {
                rc = posix.madvise(address + (from - start), length, MADV_POPULATE_WRITE);
            }
            catch (final RuntimeException | LinkageError ex)
            {
                // e.g. a platform whose POSIX layer has no madvise: the exchange goes on without it
                unsupported = true;
                log.accept("journal pretouch unavailable (" + ex + "): the core thread takes the journals' page faults itself");
                return steps;
            }
            if (rc != 0)
            {
                if (!everWorked)
                {
                    unsupported = true;
                    log.accept("journal pretouch unavailable (madvise MADV_POPULATE_WRITE returned " + rc +
                        ", errno " + posix.lastError() + "): the core thread takes the journals' page faults itself");
                }
                // otherwise the chunk was unmapped under us (the writer moved on): wait for its next position
                populatedUpTo[i] = to;
                return steps;
            }
            everWorked = true;
            from += length;
            populatedUpTo[i] = from;
            steps++;
        }
        return steps;
    }

    @Override
    public String roleName()
    {
        return "gpux-pretouch";
    }
}
