package io.gpux.client.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on 127.0.0.1 for end-to-end tests: forwards each accepted connection to a target port,
 * and can break the connections on demand.
 * <ul>
 *   <li>{@link #cutAll()}: every current connection is reset at once on both sides (SO_LINGER 0, then
 *   close: an RST, not a polite FIN), as when a network path dies or a NAT forgets it;</li>
 *   <li>{@link #suspendAll()}: every current connection stops forwarding in both directions but stays
 *   open, as when the peer hangs or the path black-holes: nothing reaches either end, not even a close
 *   (what the proxy reads meanwhile is dropped, an end of stream is not passed on; a suspended
 *   connection is never resumed, only cut).</li>
 * </ul>
 * Blocking sockets, two daemon threads per connection: plain and small, plenty for a test's handful of
 * connections.
 */
final class TcpProxy implements AutoCloseable
{
    /** One proxied connection. */
    static final class Link
    {
        private final Socket downstream;
        private final Socket upstream;
        private volatile boolean suspended;
        private volatile boolean closed;
        private volatile long upstreamEndNanos;

        Link(final Socket downstream, final Socket upstream)
        {
            this.downstream = downstream;
            this.upstream = upstream;
        }

        /** When the target closed its side (System.nanoTime), or 0: still open, as far as the proxy knows. */
        long upstreamEndNanos()
        {
            return upstreamEndNanos;
        }

        boolean isClosed()
        {
            return closed;
        }

        void suspend()
        {
            suspended = true;
        }

        /** Resets both sides. */
        void cut()
        {
            closed = true;
            for (final Socket s : new Socket[] {downstream, upstream})
            {
                try
                {
                    s.setSoLinger(true, 0);
                }
                catch (final SocketException ignored)
                {
                    // already closed
                }
                closeQuietly(s);
            }
        }

        /** Closes both sides politely (after one direction ended). */
        void close()
        {
            closed = true;
            closeQuietly(downstream);
            closeQuietly(upstream);
        }

        /**
         * Copies one direction. While suspended it keeps reading (so that it notices the end of the
         * stream, and the sender's writes never block) but drops what it reads, and keeps the
         * other side open until cut.
         */
        private void pump(final Socket from, final Socket to, final boolean fromUpstream)
        {
            final byte[] buffer = new byte[16 * 1024];
            try
            {
                final InputStream in = from.getInputStream();
                final OutputStream out = to.getOutputStream();
                while (!closed)
                {
                    final int n = in.read(buffer);
                    if (n < 0)
                    {
                        if (fromUpstream)
                        {
                            upstreamEndNanos = System.nanoTime();
                        }
                        break;
                    }
                    if (suspended)
                    {
                        continue;
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            }
            catch (final IOException ex)
            {
                if (fromUpstream && upstreamEndNanos == 0 && !closed)
                {
                    upstreamEndNanos = System.nanoTime();
                }
            }
            finally
            {
                while (suspended && !closed)
                {
                    sleepQuietly();
                }
                close();
            }
        }
    }

    private final int targetPort;
    private final ServerSocket listener;
    private final Thread acceptor;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final List<Link> allLinks = new ArrayList<>();
    private final AtomicInteger accepted = new AtomicInteger();
    private volatile boolean closed;

    TcpProxy(final int targetPort) throws IOException
    {
        this.targetPort = targetPort;
        this.listener = new ServerSocket();
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        this.acceptor = new Thread(this::acceptLoop, "e2e-proxy-accept-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** The port clients connect to. */
    int port()
    {
        return listener.getLocalPort();
    }

    /** Connections accepted so far. */
    int accepted()
    {
        return accepted.get();
    }

    /** Every connection ever accepted, in order. */
    synchronized List<Link> allLinks()
    {
        return new ArrayList<>(allLinks);
    }

    /** Resets every open connection; returns how many were cut. */
    int cutAll()
    {
        int n = 0;
        for (final Link link : links)
        {
            if (!link.isClosed())
            {
                link.cut();
                n++;
            }
            links.remove(link);
        }
        return n;
    }

    /** Freezes every open connection (see the class comment); returns them. */
    List<Link> suspendAll()
    {
        final List<Link> frozen = new ArrayList<>();
        for (final Link link : links)
        {
            if (!link.isClosed())
            {
                link.suspend();
                frozen.add(link);
            }
        }
        return frozen;
    }

    private void acceptLoop()
    {
        while (!closed)
        {
            final Socket downstream;
            try
            {
                downstream = listener.accept();
            }
            catch (final IOException ex)
            {
                return;
            }
            final Socket upstream = new Socket();
            try
            {
                downstream.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 5_000);
            }
            catch (final IOException ex)
            {
                closeQuietly(downstream);
                closeQuietly(upstream);
                continue;
            }
            final Link link = new Link(downstream, upstream);
            accepted.incrementAndGet();
            synchronized (this)
            {
                allLinks.add(link);
            }
            links.add(link);
            final int id = accepted.get();
            start("e2e-proxy-" + id + "-up", () -> link.pump(downstream, upstream, false));
            start("e2e-proxy-" + id + "-down", () -> link.pump(upstream, downstream, true));
            if (closed)
            {
                link.cut();
            }
        }
    }

    private static void start(final String name, final Runnable task)
    {
        final Thread t = new Thread(task, name);
        t.setDaemon(true);
        t.start();
    }

    /** Stops accepting and resets every connection, suspended ones included. */
    @Override
    public void close()
    {
        closed = true;
        closeQuietly(listener);
        for (final Link link : allLinks())
        {
            link.cut();
        }
        links.clear();
        try
        {
            acceptor.join(5_000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleepQuietly()
    {
        try
        {
            Thread.sleep(5);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(final java.io.Closeable c)
    {
        try
        {
            c.close();
        }
        catch (final IOException ignored)
        {
            // nothing to do
        }
    }
}
