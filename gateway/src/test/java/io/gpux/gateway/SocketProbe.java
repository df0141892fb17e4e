package io.gpux.gateway;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * What this process holds open, read from /proc (Linux): its file descriptors, and the accepted TCP
 * connections of a listening port that are still open in this process, i.e. the server side of
 * the gateway's connections (the client side of a test connection has the gateway's port as its
 * remote port, not its local one). A socket the server has closed is no longer in the process's
 * descriptor table even while the kernel still holds it (FIN_WAIT, TIME_WAIT).
 */
final class SocketProbe
{
    private SocketProbe()
    {
    }

    static boolean available()
    {
        return Files.isDirectory(Path.of("/proc/self/fd")) && Files.isReadable(Path.of("/proc/net/tcp"));
    }

    static int openFileDescriptors()
    {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd")))
        {
            return (int)fds.count();
        }
        catch (final IOException ex)
        {
            return -1;
        }
    }

    /** The server-side connections of {@code port} that this process still has open. */
    static int serverConnections(final int port)
    {
        return serverConnections(port, -1);
    }

    /** As {@link #serverConnections(int)}, only the one whose peer is {@code remotePort} (-1: any). */
    static int serverConnections(final int port, final int remotePort)
    {
        final Set<String> inodes = socketInodes();
        int n = 0;
        for (final String table : List.of("/proc/net/tcp", "/proc/net/tcp6"))
        {
            final List<String> lines;
            try
            {
                lines = Files.readAllLines(Path.of(table));
            }
            catch (final IOException ex)
            {
                continue;
            }
            for (int i = 1; i < lines.size(); i++)
            {
                final String[] f = lines.get(i).trim().split("\\s+");
                if (f.length < 10)
                {
                    continue;
                }
                final int local = Integer.parseInt(f[1].substring(f[1].lastIndexOf(':') + 1), 16);
                final int remote = Integer.parseInt(f[2].substring(f[2].lastIndexOf(':') + 1), 16);
                final boolean listening = "0A".equals(f[3]);
                if (local == port && !listening && (remotePort < 0 || remote == remotePort) && inodes.contains(f[9]))
                {
                    n++;
                }
            }
        }
        return n;
    }

    private static Set<String> socketInodes()
    {
        final Set<String> inodes = new HashSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd")))
        {
            fds.forEach(fd ->
            {
                try
                {
                    final String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:["))
                    {
                        inodes.add(target.substring(8, target.length() - 1));
                    }
                }
                catch (final IOException ignored)
                {
                    // closed meanwhile
                }
            });
        }
        catch (final IOException ignored)
        {
            // no /proc: nothing to report
        }
        return inodes;
    }

    /** Waits (polling, up to {@code timeoutMs}) until the condition holds; returns whether it did. */
    static boolean await(final java.util.function.BooleanSupplier condition, final long timeoutMs)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                return false;
            }
            Thread.sleep(20);
        }
        return true;
    }
}
