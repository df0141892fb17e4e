package io.gpux.client.agent.workload;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Process groups as Linux shows them in {@code /proc}: who is in one, and signals to all of them
 * ({@code kill -s SIG -- -PGID}). A zombie (exited, not yet reaped) counts as gone: it holds no GPU.
 */
final class ProcessGroups
{
    private static final Path PROC = Path.of("/proc");
    private static final long KILL_TIMEOUT_MS = 5_000;

    private ProcessGroups()
    {
    }

    /** One {@code /proc/PID/stat} line: the fields after the command name. */
    record Stat(long pid, char state, long pgid, long startTicks)
    {
    }

    /** The stat of a process, or null if it is gone or a zombie. */
    static Stat stat(final long pid)
    {
        final String line;
        try
        {
            line = Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"), StandardCharsets.US_ASCII);
        }
        catch (final IOException ex)
        {
            return null;
        }
        // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
        // cutime cstime priority nice threads itrealvalue starttime: comm may hold spaces and ')'
        final String[] f = line.substring(line.lastIndexOf(')') + 2).trim().split(" ");
        final char state = f[0].charAt(0);
        if (state == 'Z' || state == 'X')
        {
            return null;
        }
        return new Stat(pid, state, Long.parseLong(f[2]), Long.parseLong(f[19]));
    }

    /** The live processes of a group that started no earlier than minStartTicks. */
    static List<Long> members(final long pgid, final long minStartTicks)
    {
        final List<Long> members = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(PROC, "[0-9]*"))
        {
            for (final Path dir : dirs)
            {
                final Stat stat = stat(Long.parseLong(dir.getFileName().toString()));
                if (stat != null && stat.pgid() == pgid && stat.startTicks() >= minStartTicks)
                {
                    members.add(stat.pid());
                }
            }
        }
        catch (final IOException ex)
        {
            throw new java.io.UncheckedIOException(ex);
        }
        return members;
    }

    /** Whether the group's leader still runs: alive, not a zombie, and the same process (same start). */
    static boolean leaderAlive(final long pid, final long startTicks)
    {
        final Stat stat = stat(pid);
        return stat != null && stat.startTicks() == startTicks;
    }

    /** Sends a signal to every process of the group; nothing if none is left. */
    static void signal(final long pgid, final long minStartTicks, final WorkloadSignal signal) throws WorkloadException
    {
        if (members(pgid, minStartTicks).isEmpty())
        {
            return;
        }
        final CommandRunner.Result result = CommandRunner.run(
            List.of("kill", "-s", signal.name(), "--", "-" + pgid), KILL_TIMEOUT_MS);
        if (result.exitCode() != 0 && !members(pgid, minStartTicks).isEmpty())
        {
            throw new WorkloadException("cannot send " + signal + " to process group " + pgid + ": "
                + result.firstErrorLine());
        }
    }

    /** Kills every process of the group and waits until none is left. */
    static void kill(final long pgid, final long minStartTicks) throws WorkloadException
    {
        final long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(KILL_TIMEOUT_MS);
        while (!members(pgid, minStartTicks).isEmpty())
        {
            signal(pgid, minStartTicks, WorkloadSignal.KILL);
            if (System.nanoTime() - deadline > 0)
            {
                throw new WorkloadException("process group " + pgid + " is still there " + KILL_TIMEOUT_MS
                    + " ms after SIGKILL");
            }
            pause(10);
        }
    }

    static void pause(final long ms) throws WorkloadException
    {
        try
        {
            Thread.sleep(ms);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new WorkloadException("interrupted");
        }
    }
}
