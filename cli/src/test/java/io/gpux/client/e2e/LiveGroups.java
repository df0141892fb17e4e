package io.gpux.client.e2e;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Which processes of a process group are alive, read from {@code /proc} (zombies, which are dead
 * and only wait for their parent, do not count); and a kill of what is left, for a test's cleanup.
 */
final class LiveGroups
{
    private LiveGroups()
    {
    }

    /** The live members of process group pgid. */
    static List<Long> members(final long pgid)
    {
        final List<Long> members = new ArrayList<>();
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), p -> p.getFileName().toString().matches("\\d+")))
        {
            for (final Path proc : procs)
            {
                final String stat;
                try
                {
                    stat = Files.readString(proc.resolve("stat"));
                }
                catch (final IOException gone)
                {
                    continue;
                }
                // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so read after the last ')'
                final String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                if (!f[0].equals("Z") && Long.parseLong(f[2]) == pgid)
                {
                    members.add(Long.parseLong(proc.getFileName().toString()));
                }
            }
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot list /proc: " + ex.getMessage(), ex);
        }
        return members;
    }

    static boolean alive(final long pgid)
    {
        return !members(pgid).isEmpty();
    }

    /** SIGKILLs whatever is left of the group (a failed test's workload). */
    static void killQuietly(final long pgid)
    {
        for (final long pid : members(pgid))
        {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }
}
