package io.gpux.bench.platform;

import io.gpux.bench.ResultFile;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import io.gpux.bench.LatencyLine;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The machine's floor under the gateway's round trip: the same open-loop load as {@code bench-roundtrip} (a
 * message due at a fixed rate, its latency taken from when it was due), but answered by a bare echo instead of
 * the exchange. Two threads that only spin, as the bot's loop and the exchange's loop do: the load thread writes
 * what is due and reads the echoes; the echo thread reads each connection and writes back, in one write, all that
 * the read brought. Plain non-blocking {@code java.nio} sockets on 127.0.0.1, TCP_NODELAY, no framework, no
 * allocation in the loops, nothing but the system calls: whatever the exchange's code does, its round trip
 * cannot be faster than this on this machine.
 *
 * <p>{@code --work-ns} makes the echo spin that long per message before answering, standing in for the exchange's
 * work (gateway decode, journals, engine, egress encode): the latency of a loop that is that busy, on this
 * machine. Also printed: how long the system calls took (write and non-empty read, each side), since each
 * message costs a write and a read on each side whatever the code around them.
 */
@CommandLine.Command(name = "bench-loopback", mixinStandardHelpOptions = true,
    description = "The machine's floor under the round trip: an open-loop echo over loopback TCP between two spinning threads")
public final class LoopbackFloor implements Callable<Integer>
{
    /** Bytes of a message: its due time and send time (nanos), its sequence, padding. */
    static final int HEADER = 24;

    @Option(names = "--json", description = "also write the figures to this JSON file (what ./gpux bench reads)")
    Path json;

    @Option(names = "--rate", description = "offered messages per second, over all connections (default ${DEFAULT-VALUE})")
    long rate = 50_000;

    @Option(names = "--connections", description = "connections, used in turn (default ${DEFAULT-VALUE})")
    int connections = 1;

    @Option(names = "--size", description = "bytes a message, each way (default ${DEFAULT-VALUE}: about a bid, and " +
        "about a fill back)")
    int size = 64;

    @Option(names = "--work-ns", description = "the echo spins this long per message before answering (default ${DEFAULT-VALUE})")
    long workNs;

    @Option(names = "--seconds", description = "measured seconds (default ${DEFAULT-VALUE})")
    int seconds = 10;

    @Option(names = "--warmup", description = "warm-up seconds, not measured (default ${DEFAULT-VALUE})")
    int warmup = 3;

    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new LoopbackFloor()).execute(args));
    }

    /** What a run measured. */
    record Result(Histogram fromDue, Histogram fromSend, long sent, long received, long outOfOrder, long lateSends,
        SysCalls load, SysCalls echo, long echoed)
    {
    }

    /** Counts and total time of one thread's system calls. */
    static final class SysCalls
    {
        long writes;
        long writeNs;
        long reads;
        long readNs;
        long emptyReads;

        String summary()
        {
            return String.format("%,d writes (%.2f us each), %,d reads with data (%.2f us each), %,d empty reads",
                writes, writes == 0 ? 0 : writeNs / 1e3 / writes, reads, reads == 0 ? 0 : readNs / 1e3 / reads, emptyReads);
        }
    }

    @Override
    public Integer call() throws Exception
    {
        System.out.printf("loopback echo: %,d messages/s offered over %d connection(s), %d bytes each way, echo work %,d ns " +
            "a message, %d s warm-up + %d s measured, %d CPU(s)%n", rate, connections, size, workNs, warmup, seconds,
            Runtime.getRuntime().availableProcessors());
        final long total = rate * (warmup + seconds);
        final Result r = run(rate, connections, size, workNs, total, rate * warmup);
        final Histogram h = r.fromDue();
        System.out.printf("sent %,d, received %,d, out of order %d, sent late (more than 10 us after due) %,d%n",
            r.sent(), r.received(), r.outOfOrder(), r.lateSends());
        System.out.printf("load thread: %s%n", r.load().summary());
        System.out.printf("echo thread: %s%n", r.echo().summary());
        print("due -> echo back, us", h);
        print("  from the send (the load thread's own lateness excluded), us", r.fromSend());
        final ObjectNode figures = ResultFile.create();
        figures.put("sent", r.sent());
        figures.put("received", r.received());
        ResultFile.latency(figures, "fromDue", h);
        ResultFile.latency(figures, "fromSend", r.fromSend());
        for (final String side : new String[] {"load", "echo"})
        {
            final SysCalls c = side.equals("load") ? r.load() : r.echo();
            final ObjectNode calls = figures.putObject(side);
            calls.put("writeUs", c.writes == 0 ? 0 : c.writeNs / 1e3 / c.writes);
            calls.put("readUs", c.reads == 0 ? 0 : c.readNs / 1e3 / c.reads);
        }
        ResultFile.write(json, figures);
        return r.received() == total && r.outOfOrder() == 0 ? 0 : 1;
    }

    private static void print(final String what, final Histogram h)
    {
        System.out.printf("%s (%,d measured): %s%n", what, h.getTotalCount(), LatencyLine.of(h));
    }

    /**
     * Runs {@code total} messages at {@code rate} a second over {@code connections} connections and records the
     * latency of those after the first {@code unmeasured}.
     */
    static Result run(final long rate, final int connections, final int size, final long workNs, final long total,
        final long unmeasured) throws Exception
    {
        if (size < HEADER || connections < 1 || rate < 1)
        {
            throw new IllegalArgumentException("need size >= " + HEADER + ", connections >= 1, rate >= 1");
        }
        try (ServerSocketChannel server = ServerSocketChannel.open())
        {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            final SocketChannel[] client = new SocketChannel[connections];
            final SocketChannel[] accepted = new SocketChannel[connections];
            try
            {
                for (int i = 0; i < connections; i++)
                {
                    client[i] = SocketChannel.open(server.getLocalAddress());
                    accepted[i] = server.accept();
                    for (final SocketChannel c : new SocketChannel[] {client[i], accepted[i]})
                    {
                        c.setOption(StandardSocketOptions.TCP_NODELAY, true);
                        c.configureBlocking(false);
                    }
                }
                final Echo echo = new Echo(accepted, size, workNs);
                final Thread echoThread = new Thread(echo, "loopback-echo");
                echoThread.setDaemon(true);
                echoThread.start();
                try
                {
                    final Load load = new Load(client, size, rate, total, unmeasured);
                    load.run();
                    return new Result(load.fromDue, load.fromSend, load.sent, load.received, load.outOfOrder,
                        load.lateSends, load.calls, echo.calls, echo.echoed);
                }
                finally
                {
                    echo.stop = true;
                    echoThread.join(10_000);
                    if (echo.failure.get() != null)
                    {
                        throw new IllegalStateException("echo failed", echo.failure.get());
                    }
                }
            }
            finally
            {
                for (int i = 0; i < connections; i++)
                {
                    closeQuietly(client[i]);
                    closeQuietly(accepted[i]);
                }
            }
        }
    }

    private static void closeQuietly(final SocketChannel c)
    {
        if (c != null)
        {
            try
            {
                c.close();
            }
            catch (final IOException ignored)
            {
                // the run's result stands; the socket goes with the process anyway
            }
        }
    }

    /** Writes everything in {@code b} (flipped) that the socket takes now, timing the call; leaves the rest. */
    private static void write(final SocketChannel c, final ByteBuffer b, final SysCalls calls) throws IOException
    {
        final long t0 = System.nanoTime();
        c.write(b);
        calls.writeNs += System.nanoTime() - t0;
        calls.writes++;
    }

    /** Reads what is there into {@code b}; returns the bytes read. */
    private static int read(final SocketChannel c, final ByteBuffer b, final SysCalls calls) throws IOException
    {
        final long t0 = System.nanoTime();
        final int n = c.read(b);
        if (n < 0)
        {
            throw new IOException("peer closed");
        }
        if (n == 0)
        {
            calls.emptyReads++;
        }
        else
        {
            calls.readNs += System.nanoTime() - t0;
            calls.reads++;
        }
        return n;
    }

    /** The load: writes each message when due (all that are due in one write a connection), reads the echoes. */
    private static final class Load
    {
        final Histogram fromDue = new Histogram(3_600_000_000_000L, 3);
        final Histogram fromSend = new Histogram(3_600_000_000_000L, 3);
        final SysCalls calls = new SysCalls();
        private final SocketChannel[] channels;
        private final ByteBuffer[] out;
        private final ByteBuffer[] in;
        private final long[] expected;
        private final int size;
        private final long intervalNs;
        private final long total;
        private final long unmeasured;
        long sent;
        long received;
        long outOfOrder;
        long lateSends;

        Load(final SocketChannel[] channels, final int size, final long rate, final long total, final long unmeasured)
        {
            this.channels = channels;
            this.size = size;
            this.intervalNs = 1_000_000_000L / rate;
            this.total = total;
            this.unmeasured = unmeasured;
            out = new ByteBuffer[channels.length];
            in = new ByteBuffer[channels.length];
            expected = new long[channels.length];
            for (int i = 0; i < channels.length; i++)
            {
                out[i] = ByteBuffer.allocateDirect(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
                in[i] = ByteBuffer.allocateDirect(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
                expected[i] = i;
            }
        }

        void run() throws IOException
        {
            final long start = System.nanoTime() + 1_000_000;
            final long deadline = start + (total + 1) * intervalNs + 30_000_000_000L;
            while (received < total)
            {
                long now = System.nanoTime();
                if (now > deadline)
                {
                    throw new IOException("echoes stopped: " + received + " of " + total + " back");
                }
                while (sent < total && start + sent * intervalNs <= now)
                {
                    final ByteBuffer b = out[(int)(sent % channels.length)];
                    if (b.remaining() < size)
                    {
                        // the socket has not taken 1 MiB of what was written: the rest waits (and counts late)
                        break;
                    }
                    final long due = start + sent * intervalNs;
                    if (now - due > 10_000)
                    {
                        lateSends++;
                    }
                    b.putLong(due).putLong(now).putLong(sent);
                    for (int k = HEADER; k < size; k++)
                    {
                        b.put((byte)0);
                    }
                    sent++;
                }
                for (int i = 0; i < channels.length; i++)
                {
                    final ByteBuffer b = out[i];
                    if (b.position() > 0)
                    {
                        b.flip();
                        write(channels[i], b, calls);
                        b.compact();
                    }
                }
                for (int i = 0; i < channels.length; i++)
                {
                    final ByteBuffer b = in[i];
                    if (read(channels[i], b, calls) > 0)
                    {
                        now = System.nanoTime();
                        b.flip();
                        while (b.remaining() >= size)
                        {
                            final int p = b.position();
                            final long due = b.getLong(p);
                            final long sentAt = b.getLong(p + 8);
                            final long seq = b.getLong(p + 16);
                            if (seq != expected[i])
                            {
                                outOfOrder++;
                            }
                            expected[i] = seq + channels.length;
                            if (seq >= unmeasured)
                            {
                                fromDue.recordValue(Math.max(0, now - due));
                                fromSend.recordValue(Math.max(0, now - sentAt));
                            }
                            received++;
                            b.position(p + size);
                        }
                        b.compact();
                    }
                }
            }
        }
    }

    /** The echo: reads each connection and writes back, in one write, every whole message the read brought. */
    private static final class Echo implements Runnable
    {
        final SysCalls calls = new SysCalls();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final SocketChannel[] channels;
        private final ByteBuffer[] in;
        private final ByteBuffer[] out;
        private final int size;
        private final long workNs;
        volatile boolean stop;
        long echoed;

        Echo(final SocketChannel[] channels, final int size, final long workNs)
        {
            this.channels = channels;
            this.size = size;
            this.workNs = workNs;
            in = new ByteBuffer[channels.length];
            out = new ByteBuffer[channels.length];
            for (int i = 0; i < channels.length; i++)
            {
                in[i] = ByteBuffer.allocateDirect(1 << 20);
                out[i] = ByteBuffer.allocateDirect(1 << 20);
            }
        }

        @Override
        public void run()
        {
            try
            {
                while (!stop)
                {
                    for (int i = 0; i < channels.length; i++)
                    {
                        turn(i);
                    }
                }
            }
            catch (final Throwable t)
            {
                if (!stop)
                {
                    failure.set(t);
                }
            }
        }

        private void turn(final int i) throws IOException
        {
            final ByteBuffer o = out[i];
            final ByteBuffer b = in[i];
            if (read(channels[i], b, calls) > 0)
            {
                b.flip();
                while (b.remaining() >= size && o.remaining() >= size)
                {
                    if (workNs > 0)
                    {
                        final long until = System.nanoTime() + workNs;
                        while (System.nanoTime() < until)
                        {
                            Thread.onSpinWait();
                        }
                    }
                    final int limit = b.limit();
                    b.limit(b.position() + size);
                    o.put(b);
                    b.limit(limit);
                    echoed++;
                }
                b.compact();
            }
            if (o.position() > 0)
            {
                o.flip();
                write(channels[i], o, calls);
                o.compact();
            }
        }
    }
}
