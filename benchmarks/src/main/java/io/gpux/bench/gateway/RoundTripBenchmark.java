package io.gpux.bench.gateway;

import io.gpux.bench.ResultFile;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpux.bench.LatencyLine;
import io.gpux.client.ClientContext;
import io.gpux.client.ClientListener;
import io.gpux.client.GpuxClient;
import io.gpux.client.SpinningLoop;
import io.gpux.core.pipeline.Durability;
import io.gpux.gateway.Exchange;
import io.gpux.gateway.ExchangeContext;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Configure;
import io.gpux.proto.v1.CreateMarket;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Fill;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.TimeInForce;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import java.util.stream.Stream;

/**
 * Round trip through the whole exchange: the client library sends a bid, the gateway checks and
 * publishes it, the core journals and matches it, the egress sends the fill back, and the client's
 * listener sees it. Open loop: bids are due at a fixed offered rate, spread over the connections,
 * and each latency is measured from when the bid was due (not sent), so a stall counts against
 * every bid queued behind it (coordinated omission corrected). The exchange runs in this JVM (two
 * cores: a second process would only add a scheduler between them), on a fresh data directory.
 *
 * <p>Each bid is an IOC for 1 GPU at the ask's price against one large ask, with a 500 ms maximum
 * duration, so capacity returns as leases expire and every bid fills for the whole run.
 */
@CommandLine.Command(name = "bench-roundtrip", mixinStandardHelpOptions = true)
public final class RoundTripBenchmark implements Callable<Integer>
{
    private static final String MARKET = "BENCH-GPU";
    private static final long PRICE = 10_000;

    @Option(names = "--json", description = "also write the figures to this JSON file (what ./gpux bench reads)")
    Path json;

    @Option(names = "--rate", description = "offered bids per second, over all connections (default ${DEFAULT-VALUE})")
    long rate = 50_000;

    @Option(names = "--connections", description = "client connections, each its own renter account (default ${DEFAULT-VALUE})")
    int connections = 1;

    @Option(names = "--seconds", description = "measured seconds (default ${DEFAULT-VALUE})")
    int seconds = 10;

    @Option(names = "--warmup", description = "warm-up seconds, not measured (default ${DEFAULT-VALUE})")
    int warmup = 5;

    @Option(names = "--durability", description = "ASYNC or SYNC (default ${DEFAULT-VALUE})")
    Durability durability = Durability.ASYNC;

    @Option(names = "--pacer", description = "LOOP: the bids are sent from the clients' event loop, which spins " +
        "(SpinningLoop, as a market-maker's bot would run); THREAD: from a thread of their own that parks between " +
        "bids, through the client's loop (default ${DEFAULT-VALUE})")
    Pacing pacer = Pacing.LOOP;

    @Option(names = "--threads", description = "the exchange's thread layout: SHARED (core and egress on the " +
        "gateway's event loop) or DEDICATED (threads of their own) (default ${DEFAULT-VALUE})")
    Layout layout = Layout.SHARED;

    @Option(names = "--server-process", description = "run the exchange in a JVM of its own (./gpux server), as in " +
        "production, instead of in this one: the client's garbage then stops only the client")
    boolean serverProcess;

    @Option(names = "--timeline", description = "also print p50, p99 and max for each second of the measured part " +
        "(by when the bids were due), to see whether a tail is spread out or comes in bursts")
    boolean timeline;

    /** The exchange under test: in this JVM or a child one. */
    private interface Server extends AutoCloseable
    {
        int port();

        Exchange.Key adminKey();

        @Override
        void close() throws Exception;
    }

    private final class InProcess implements Server
    {
        private final Exchange exchange;

        InProcess(final Path data) throws Exception
        {
            exchange = Exchange.start(new ExchangeContext().dataDir(data).port(0).durability(durability)
                .snapshotEvery(0).ratePerSecond(rateLimit()).rateBurst(burstLimit())
                .sharedLoop(layout == Layout.SHARED).log(line -> { }));
        }

        @Override
        public int port()
        {
            return exchange.port();
        }

        @Override
        public Exchange.Key adminKey()
        {
            return exchange.bootstrapKey();
        }

        @Override
        public void close()
        {
            exchange.close();
        }
    }

    /** {@code ServerMain} in a child JVM on this JVM's java, class path and flags; stopped with SIGTERM. */
    private final class ChildServer implements Server
    {
        private final Process process;
        private final int port;
        private final Exchange.Key key;

        ChildServer(final Path data) throws Exception
        {
            final Path portFile = data.resolve("server.port");
            final Path keyFile = data.resolve("admin.key");
            final List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            for (final String arg : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments())
            {
                if (!arg.startsWith("-agentpath") && !arg.startsWith("-Xlog"))
                {
                    cmd.add(arg);
                }
            }
            cmd.addAll(List.of("-XX:+ExitOnOutOfMemoryError", "-D" + "gpux.gateway.ratePerSecond=" + rateLimit(), "-Dgpux.gateway.rateBurst=" + burstLimit(),
                "-cp", System.getProperty("java.class.path"), "io.gpux.gateway.ServerMain",
                "--port", "0", "--data", data.resolve("exchange").toString(), "--port-file", portFile.toString(),
                "--admin-key-file", keyFile.toString(), "--durability", durability.name(), "--threads", layout.name()));
            process = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(data.resolve("server.log").toFile()).start();
            final long deadline = System.nanoTime() + 60_000_000_000L;
            while (!Files.exists(portFile) || !Files.readString(portFile).endsWith("\n"))
            {
                if (!process.isAlive() || System.nanoTime() > deadline)
                {
                    process.destroyForcibly();
                    throw new IllegalStateException("the server did not start: " + Files.readString(data.resolve("server.log")));
                }
                Thread.sleep(20);
            }
            port = Integer.parseInt(Files.readString(portFile).trim());
            final String[] k = Files.readString(keyFile).trim().split(":");
            key = new Exchange.Key("admin", Long.parseLong(k[0]), k[1]);
        }

        @Override
        public int port()
        {
            return port;
        }

        @Override
        public Exchange.Key adminKey()
        {
            return key;
        }

        @Override
        public void close() throws Exception
        {
            process.destroy();
            if (!process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS))
            {
                process.destroyForcibly().waitFor();
            }
        }
    }

    long rateLimit()
    {
        return Math.max(100_000, rate);
    }

    long burstLimit()
    {
        return Math.max(20_000, rate / 5);
    }

    enum Pacing
    {
        LOOP, THREAD
    }

    enum Layout
    {
        SHARED, DEDICATED
    }

    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new RoundTripBenchmark()).setCaseInsensitiveEnumValuesAllowed(true).execute(args));
    }

    /** Per connection: when each bid was due, by order id, and what came back. Touched by its event loop thread. */
    private static final class Renter implements ClientListener
    {
        final long[] due;
        /** Each fill's latency by order id (0: none yet), for the timeline. */
        final long[] latency;
        /** When each bid was handed to the client's channel, by order id (its lateness: sent - due). */
        final long[] sent;
        final Histogram histogram = new Histogram(120_000_000_000L, 3);
        final long measureFromOrderId;
        final AtomicLong fills = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        /** Errors answered to bids of the measured part (request ids from the first measured bid's on). */
        final AtomicLong measuredErrors = new AtomicLong();
        volatile long firstMeasuredRequestId = Long.MAX_VALUE;
        volatile String firstError;
        GpuxClient client;

        Renter(final int orders, final long measureFromOrderId)
        {
            due = new long[orders + 1];
            latency = new long[orders + 1];
            sent = new long[orders + 1];
            this.measureFromOrderId = measureFromOrderId;
        }

        @Override
        public void onFill(final AccountEvent event, final Fill fill)
        {
            final long now = System.nanoTime();
            final long orderId = fill.getOrderId();
            if (orderId >= measureFromOrderId && orderId < due.length)
            {
                final long ns = Math.min(120_000_000_000L, Math.max(1, now - due[(int)orderId]));
                histogram.recordValue(ns);
                latency[(int)orderId] = ns;
            }
            fills.incrementAndGet();
        }

        @Override
        public void onResponse(final long requestId, final Response response)
        {
            if (response.getReason() != Reason.REASON_OK)
            {
                if (requestId >= firstMeasuredRequestId)
                {
                    measuredErrors.incrementAndGet();
                }
                if (errors.getAndIncrement() == 0)
                {
                    firstError = response.getReason() + " " + response.getMessage();
                }
            }
        }
    }

    @Override
    public Integer call() throws Exception
    {
        final Path data = Files.createTempDirectory("gpux-roundtrip");
        final boolean epoll = Epoll.isAvailable();
        final IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        final Pacer loopPacer = new Pacer();
        final EventLoopGroup clientLoops = new MultiThreadIoEventLoopGroup(1,
            pacer == Pacing.LOOP ? new SpinningLoop(io, loopPacer) : io);
        try (Server exchange = serverProcess ? new ChildServer(data) : new InProcess(data))
        {
            final int port = exchange.port();
            final Exchange.Key admin = exchange.adminKey();
            final String[][] keys = setUp(port, admin, clientLoops, epoll);

            final List<Renter> renters = connectRenters(port, keys, clientLoops, epoll);
            System.out.printf("round trip: %,d bids/s offered over %d connection(s), %d s warm-up + %d s measured, %s, %s, " +
                "pacer %s, exchange threads %s, exchange %s%n", rate, connections, warmup, seconds, durability,
                epoll ? "epoll" : "nio", pacer, layout, serverProcess ? "in a JVM of its own" : "in this JVM");

            final long total = rate * (warmup + seconds);
            final double intervalNs = 1e9 / rate;
            final long start = System.nanoTime() + 1_000_000;
            if (pacer == Pacing.LOOP)
            {
                loopPacer.start(renters, total, intervalNs, start);
            }
            else
            {
                paceOnThisThread(renters, total, intervalNs, start);
            }
            final long sentAt = pacer == Pacing.LOOP ? loopPacer.awaitSent() : System.nanoTime();
            final long fills = awaitAnswers(renters, total, sentAt);
            return report(renters, total, start, sentAt, fills);
        }
        finally
        {
            clientLoops.shutdownGracefully().awaitUninterruptibly();
            try (Stream<Path> files = Files.walk(data))
            {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** One renter a connection, connected, each with its share of the bids. */
    private List<Renter> connectRenters(final int port, final String[][] keys, final EventLoopGroup clientLoops,
        final boolean epoll) throws Exception
    {
        final long perConnection = rate * (warmup + seconds) / connections + 1;
        final List<Renter> renters = new ArrayList<>();
        for (int c = 0; c < connections; c++)
        {
            final Renter renter = new Renter((int)perConnection, rate * warmup / connections + 1);
            renter.client = new GpuxClient(context(port, Long.parseLong(keys[c][0]), keys[c][1], clientLoops, epoll)
                .listener(renter).maxPendingCommands(1 << 20));
            renter.client.connect();
            renters.add(renter);
        }
        return renters;
    }

    /** The THREAD pacer: each bid placed from this thread when due. */
    private void paceOnThisThread(final List<Renter> renters, final long total, final double intervalNs, final long start)
    {
        for (long i = 0; i < total; i++)
        {
            final long dueAt = start + (long)(i * intervalNs);
            // sleep until just before the bid is due, then spin: a pacer that spun all the time would
            // take one of the machine's two cores from the exchange
            long wait;
            while ((wait = dueAt - System.nanoTime()) > 0)
            {
                if (wait > 60_000)
                {
                    java.util.concurrent.locks.LockSupport.parkNanos(wait - 50_000);
                }
                else
                {
                    Thread.onSpinWait();
                }
            }
            bid(renters, i, dueAt);
        }
    }

    /** Waits until every bid is filled or refused, 30 s after the last was sent at most; returns the fills. */
    private static long awaitAnswers(final List<Renter> renters, final long total, final long sentAt) throws InterruptedException
    {
        final long deadline = sentAt + 30_000_000_000L;
        long fills = 0;
        while (System.nanoTime() < deadline)
        {
            fills = renters.stream().mapToLong(r -> r.fills.get()).sum();
            if (fills + renters.stream().mapToLong(r -> r.errors.get()).sum() >= total)
            {
                break;
            }
            Thread.sleep(10);
        }
        return fills;
    }

    /** Gathers the renters' figures (each read on its client's event loop), prints and writes them; the exit code. */
    private int report(final List<Renter> renters, final long total, final long start, final long sentAt, final long fills)
        throws Exception
    {
        final double offeredSeconds = (sentAt - start) / 1e9;
        final Histogram all = new Histogram(120_000_000_000L, 3);
        long errors = 0;
        long measuredErrors = 0;
        String firstError = null;
        for (final Renter r : renters)
        {
            final java.util.concurrent.CountDownLatch read = new java.util.concurrent.CountDownLatch(1);
            r.client.execute(() ->
            {
                synchronized (all)
                {
                    all.add(r.histogram);
                }
                read.countDown();
            });
            read.await();
            errors += r.errors.get();
            measuredErrors += r.measuredErrors.get();
            firstError = firstError == null ? r.firstError : firstError;
            r.client.close();
        }
        System.out.printf("sent %,d bids in %.2f s (%,.0f/s achieved), fills %,d, errors %,d (%,d in the measured part)%s%n",
            total, offeredSeconds, total / offeredSeconds, fills, errors, measuredErrors,
            firstError == null ? "" : " (first: " + firstError + ")");
        System.out.printf("bid -> fill back at the client, us (%,d measured): %s%n", all.getTotalCount(),
            LatencyLine.of(all));
        final ObjectNode figures = ResultFile.create();
        figures.put("sent", total);
        figures.put("achievedPerSecond", total / offeredSeconds);
        figures.put("fills", fills);
        figures.put("errors", errors);
        figures.put("measuredErrors", measuredErrors);
        ResultFile.latency(figures, "bidToFill", all);
        ResultFile.write(json, figures);
        if (timeline)
        {
            printTimeline(renters, start);
        }
        return fills + errors >= total && measuredErrors == 0 ? 0 : 1;
    }

    /** p50, p99 and max of the measured bids due in each second (order ids map back to due times). */
    private void printTimeline(final List<Renter> renters, final long start)
    {
        final Histogram[] perSecond = new Histogram[seconds];
        final Histogram[] late = new Histogram[seconds];
        for (int s = 0; s < seconds; s++)
        {
            perSecond[s] = new Histogram(120_000_000_000L, 3);
            late[s] = new Histogram(120_000_000_000L, 3);
        }
        for (final Renter r : renters)
        {
            for (int orderId = (int)r.measureFromOrderId; orderId < r.latency.length; orderId++)
            {
                final int second = (int)((r.due[orderId] - start) / 1_000_000_000L) - warmup;
                if (r.latency[orderId] > 0 && second >= 0 && second < seconds)
                {
                    perSecond[second].recordValue(r.latency[orderId]);
                    late[second].recordValue(Math.max(0, Math.min(r.sent[orderId] - r.due[orderId], r.latency[orderId])));
                }
            }
        }
        System.out.println("timeline, us: second  fills  p50  p99  max   |  of which sent late (sent - due): p50  p99  max");
        for (int s = 0; s < seconds; s++)
        {
            final Histogram h = perSecond[s];
            final Histogram l = late[s];
            System.out.printf("  %2d  %,9d  %9.1f  %9.1f  %9.1f   |  %9.1f  %9.1f  %9.1f%n", warmup + s, h.getTotalCount(),
                h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3, h.getMaxValue() / 1e3,
                l.getValueAtPercentile(50) / 1e3, l.getValueAtPercentile(99) / 1e3, l.getMaxValue() / 1e3);
        }
    }

    /** The i-th bid, due at {@code dueAt}, on its connection. */
    private static void bid(final List<Renter> renters, final long i, final long dueAt)
    {
        final Renter renter = renters.get((int)(i % renters.size()));
        final long orderId = i / renters.size() + 1;
        renter.due[(int)orderId] = dueAt;
        final long requestId = renter.client.placeBid(PlaceBid.newBuilder().setOrderId(orderId).setMarket(MARKET).setGpus(1)
            .setPrice(PRICE).setTif(TimeInForce.IOC).setMaxDurationMs(500).build());
        renter.sent[(int)orderId] = System.nanoTime();
        if (orderId == renter.measureFromOrderId)
        {
            renter.firstMeasuredRequestId = requestId;
        }
    }

    /** Sends every bid that is due, each turn of the clients' spinning event loop. */
    private static final class Pacer implements IntSupplier
    {
        private volatile List<Renter> renters;
        private long total;
        private double intervalNs;
        private long start;
        private long next;
        private final CountDownLatch sent = new CountDownLatch(1);
        private volatile long sentAt;

        void start(final List<Renter> renters, final long total, final double intervalNs, final long start)
        {
            this.total = total;
            this.intervalNs = intervalNs;
            this.start = start;
            this.renters = renters;
        }

        long awaitSent() throws InterruptedException
        {
            sent.await();
            return sentAt;
        }

        @Override
        public int getAsInt()
        {
            final List<Renter> list = renters;
            if (list == null || next == total)
            {
                return 0;
            }
            final long now = System.nanoTime();
            int n = 0;
            while (next < total)
            {
                final long due = start + (long)(next * intervalNs);
                if (due > now)
                {
                    break;
                }
                bid(list, next++, due);
                n++;
            }
            if (next == total)
            {
                sentAt = System.nanoTime();
                sent.countDown();
            }
            return n;
        }
    }

    private static ClientContext context(
        final int port, final long keyId, final String secret, final EventLoopGroup loops, final boolean epoll)
    {
        return new ClientContext().host("127.0.0.1").port(port).keyId(keyId).secretHex(secret)
            .eventLoopGroup(loops).socketChannelClass(epoll ? EpollSocketChannel.class : NioSocketChannel.class);
    }

    /** A market, an owner with one huge ask (then gone: its events are not read), renters with money and keys. */
    private String[][] setUp(final int port, final Exchange.Key admin, final EventLoopGroup loops, final boolean epoll)
        throws Exception
    {
        final Duration t = Duration.ofSeconds(10);
        try (GpuxClient a = new GpuxClient(context(port, admin.keyId(), admin.secret(), loops, epoll)))
        {
            a.connect();
            check(a.call(Envelope.newBuilder().setCreateMarket(CreateMarket.newBuilder().setSymbol(MARKET)
                .setPreemption(false).setMaxGpusPerOrder(1_000_000)), t));
            check(a.call(Envelope.newBuilder().setConfigure(Configure.newBuilder().setHeartbeatTimeoutMs(0)), t));
            check(a.call(Envelope.newBuilder().setCreateAccount(io.gpux.proto.v1.CreateAccount.newBuilder()
                .setName("owner").addRoles(Role.OWNER)), t));
            final Response ownerKey = check(a.call(Envelope.newBuilder().setCreateKey(
                io.gpux.proto.v1.CreateKey.newBuilder().setAccount("owner")), t));
            final String[][] keys = new String[connections][];
            for (int c = 0; c < connections; c++)
            {
                final String name = "renter" + c;
                check(a.call(Envelope.newBuilder().setCreateAccount(io.gpux.proto.v1.CreateAccount.newBuilder()
                    .setName(name).addRoles(Role.RENTER)), t));
                check(a.call(Envelope.newBuilder().setDeposit(io.gpux.proto.v1.Deposit.newBuilder()
                    .setAccount(name).setAmount(1_000_000_000_000_000L)), t));
                final Response key = check(a.call(Envelope.newBuilder().setCreateKey(
                    io.gpux.proto.v1.CreateKey.newBuilder().setAccount(name)), t));
                keys[c] = new String[] {Long.toString(key.getAssignedId()), key.getSecret()};
            }
            try (GpuxClient owner = new GpuxClient(context(port, ownerKey.getAssignedId(), ownerKey.getSecret(), loops, epoll)))
            {
                owner.connect();
                final long machine = check(owner.call(Envelope.newBuilder().setRegisterMachine(RegisterMachine.newBuilder()
                    .setName("big").setMarket(MARKET).setGpus(1_000_000)), t)).getAssignedId();
                check(owner.call(Envelope.newBuilder().setMachineHeartbeat(
                    io.gpux.proto.v1.MachineHeartbeat.newBuilder().setMachineId(machine)), t));
                check(owner.call(Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder().setOrderId(1)
                    .setMachineId(machine).setGpus(1_000_000).setPrice(PRICE)), t));
            }
            return keys;
        }
    }

    private static Response check(final Response r)
    {
        if (r.getReason() != Reason.REASON_OK)
        {
            throw new IllegalStateException("set-up failed: " + r.getReason() + " " + r.getMessage());
        }
        return r;
    }
}
