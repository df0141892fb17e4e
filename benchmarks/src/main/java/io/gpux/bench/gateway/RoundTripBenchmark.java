package io.gpux.bench.gateway;

import io.gpux.client.ClientListener;
import io.gpux.client.GpuxClient;
import io.gpux.engine.pipeline.Durability;
import io.gpux.gateway.Exchange;
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
import java.util.concurrent.atomic.AtomicLong;
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

    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new RoundTripBenchmark()).setCaseInsensitiveEnumValuesAllowed(true).execute(args));
    }

    /** Per connection: when each bid was due, by order id, and what came back. Touched by its event loop thread. */
    private static final class Renter implements ClientListener
    {
        final long[] due;
        final Histogram histogram = new Histogram(120_000_000_000L, 3);
        final long measureFromOrderId;
        final AtomicLong fills = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        volatile String firstError;
        GpuxClient client;

        Renter(final int orders, final long measureFromOrderId)
        {
            due = new long[orders + 1];
            this.measureFromOrderId = measureFromOrderId;
        }

        @Override
        public void onFill(final AccountEvent event, final Fill fill)
        {
            final long now = System.nanoTime();
            final long orderId = fill.getOrderId();
            if (orderId >= measureFromOrderId && orderId < due.length)
            {
                histogram.recordValue(Math.min(120_000_000_000L, Math.max(0, now - due[(int)orderId])));
            }
            fills.incrementAndGet();
        }

        @Override
        public void onResponse(final long requestId, final Response response)
        {
            if (response.getReason() != Reason.REASON_OK)
            {
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
        final EventLoopGroup clientLoops = new MultiThreadIoEventLoopGroup(1,
            epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        try (Exchange exchange = Exchange.start(new Exchange.Context().dataDir(data).port(0).durability(durability)
            .snapshotEvery(0).ratePerSecond(Math.max(100_000, rate)).rateBurst(Math.max(20_000, rate / 5))
            .log(line -> { })))
        {
            final int port = exchange.port();
            final Exchange.Key admin = exchange.bootstrapKey();
            final String[][] keys = setUp(port, admin, clientLoops, epoll);

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
            System.out.printf("round trip: %,d bids/s offered over %d connection(s), %d s warm-up + %d s measured, %s, %s%n",
                rate, connections, warmup, seconds, durability, epoll ? "epoll" : "nio");

            final long total = rate * (warmup + seconds);
            final double intervalNs = 1e9 / rate;
            final long start = System.nanoTime() + 1_000_000;
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
                final Renter renter = renters.get((int)(i % connections));
                final long orderId = i / connections + 1;
                renter.due[(int)orderId] = dueAt;
                renter.client.placeBid(PlaceBid.newBuilder().setOrderId(orderId).setMarket(MARKET).setGpus(1)
                    .setPrice(PRICE).setTif(TimeInForce.IOC).setMaxDurationMs(500).build());
            }
            final long sentAt = System.nanoTime();
            final long deadline = sentAt + 30_000_000_000L;
            long fills = 0;
            while (System.nanoTime() < deadline)
            {
                fills = renters.stream().mapToLong(r -> r.fills.get()).sum();
                if (fills >= total)
                {
                    break;
                }
                Thread.sleep(10);
            }
            final double offeredSeconds = (sentAt - start) / 1e9;
            final Histogram all = new Histogram(120_000_000_000L, 3);
            long errors = 0;
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
                firstError = firstError == null ? r.firstError : firstError;
                r.client.close();
            }
            System.out.printf("sent %,d bids in %.2f s (%,.0f/s achieved), fills %,d, errors %,d%s%n", total, offeredSeconds,
                total / offeredSeconds, fills, errors, firstError == null ? "" : " (first: " + firstError + ")");
            System.out.printf("bid -> fill back at the client, us (%,d measured): p50 %.1f  p90 %.1f  p99 %.1f  " +
                "p99.9 %.1f  p99.99 %.1f  max %.1f%n", all.getTotalCount(),
                all.getValueAtPercentile(50) / 1e3, all.getValueAtPercentile(90) / 1e3,
                all.getValueAtPercentile(99) / 1e3, all.getValueAtPercentile(99.9) / 1e3,
                all.getValueAtPercentile(99.99) / 1e3, all.getMaxValue() / 1e3);
            return fills >= total && errors == 0 ? 0 : 1;
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

    private static GpuxClient.Context context(
        final int port, final long keyId, final String secret, final EventLoopGroup loops, final boolean epoll)
    {
        return new GpuxClient.Context().host("127.0.0.1").port(port).keyId(keyId).secretHex(secret)
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
