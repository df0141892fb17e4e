package io.gpux.bench.scale;

import io.gpux.bench.LatencyLine;
import io.gpux.client.ClientListener;
import io.gpux.client.GpuxClient;
import io.gpux.core.pipeline.Durability;
import io.gpux.gateway.Exchange;
import io.gpux.gateway.ExchangeContext;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Fill;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.ResendComplete;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.TimeInForce;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * Does serving the past stall the present? A real {@link Exchange} on a fresh data directory is given a long
 * history (deposits spread over many accounts: most busy, a few quiet ones whose events lie far apart through
 * the whole journal), then a probe client places IOC bids at a fixed rate, open loop, and the round trip from
 * when each bid was due to its fill coming back is measured in four phases: nothing else; clients logging in
 * and out again and again, live (the control for the next phase); the same clients logging in with last seq 0,
 * so the egress resends those accounts' whole histories; portfolio queries, at a high rate, of an owner and a
 * renter with many machines and leases. Each second the
 * exchange's metrics endpoint is read for the core's batch time (one batch in 16 timed, the window's maximum)
 * and the resends in progress. Each portfolio copy (core thread), portfolio encode and resend slice (egress
 * thread) is timed by the wall clock and by the thread's CPU time ({@link WorkTimes}), so that the work each causes
 * is told from the scheduler's delays. Both thread layouts are run: SHARED (core and egress on the gateway's event
 * loop, the default) and DEDICATED, the second on the same data directory after a restart.
 *
 * <p>Prints a summary per layout and phase and, last, one line of JSON with every figure.
 */
@CommandLine.Command(name = "bench-resend-stall", mixinStandardHelpOptions = true)
public final class ResendStall implements Callable<Integer>
{
    private static final String PROBE_MARKET = ResendStallHistory.PROBE_MARKET;
    private static final long PRICE = ResendStallHistory.PRICE;
    private static final long STALL_NS = 1_000_000;
    /** Nothing else; the same logins as the resends but live (last seq -1), to tell the logins' cost from the resends'; resends; portfolio queries. */
    private static final String[] PHASES = {"idle", "logins", "resends", "portfolios"};

    @Option(names = "--accounts", description = "accounts the history is spread over (default ${DEFAULT-VALUE})")
    int accounts = 10_000;

    @Option(names = "--events", description = "deposits in the history, one account event each (default ${DEFAULT-VALUE})")
    int events = 2_000_000;

    @Option(names = "--quiet", description = "quiet accounts: few events each, spread through the whole journal " +
        "(default ${DEFAULT-VALUE})")
    int quiet = 10;

    @Option(names = "--quiet-events", description = "events of each quiet account (default ${DEFAULT-VALUE})")
    int quietEvents = 20;

    @Option(names = "--seconds", description = "measured seconds of each phase (default ${DEFAULT-VALUE})")
    int seconds = 30;

    @Option(names = "--warmup", description = "seconds of probe bids before the first phase, not recorded " +
        "(default ${DEFAULT-VALUE})")
    int warmup = 1;

    @Option(names = "--resenders", description = "clients logging in with last seq 0 over and over in the resend " +
        "phase, half on quiet accounts, half on busy ones (default ${DEFAULT-VALUE})")
    int resenders = 8;

    @Option(names = "--fleet", description = "machines, each leased, of the account whose portfolio is queried " +
        "(default ${DEFAULT-VALUE})")
    int fleet = 200;

    @Option(names = "--query-rate", description = "portfolio queries per second in the query phase (default ${DEFAULT-VALUE})")
    int queryRate = 2_000;

    @Option(names = "--probe-rate", description = "the probe's bids per second (default ${DEFAULT-VALUE})")
    int probeRate = 1_000;

    @Option(names = "--threads", description = "SHARED, DEDICATED or BOTH (default ${DEFAULT-VALUE})")
    Layouts layouts = Layouts.BOTH;

    @Option(names = "--json", description = "also write the JSON line to this file")
    Path json;

    enum Layouts
    {
        SHARED, DEDICATED, BOTH
    }

    /** One phase of one layout. */
    public record Phase(String layout, String phase, Histogram probeNs, long probeErrors, Histogram batchMaxNs,
        long secondsWithBatchOver1ms, long logins, long eventsResent, long maxResendsInProgress,
        long queriesAnswered, WorkTimes.Phase work)
    {
    }

    /** What a run found: its settings and phases, and the JSON line printed. */
    public record Result(long historyEvents, double historySeconds, List<Phase> phases, String json)
    {
    }

    Result result;

    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new ResendStall()).setCaseInsensitiveEnumValuesAllowed(true).execute(args));
    }

    @Override
    public Integer call() throws Exception
    {
        if (quiet < 1 || resenders < 1 || accounts <= quiet + resenders || events < accounts || seconds < 1 ||
            warmup < 0 || fleet < 1 || queryRate < 1 || probeRate < 1)
        {
            System.err.println("need --quiet, --resenders, --fleet, --seconds and the rates of at least 1, no negative --warmup, " +
                "more --accounts than --quiet plus --resenders, and at least as many --events as --accounts");
            return 2;
        }
        final Path data = Files.createTempDirectory("gpux-resend-stall");
        // the probe has an event loop of its own, so that the load's clients do not delay its fills
        final EventLoopGroup loops = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        final EventLoopGroup probeLoop = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try
        {
            final List<Phase> phases = new ArrayList<>();
            ResendStallHistory.Keys keys = null;
            long historyEvents = 0;
            double historySeconds = 0;
            for (final boolean shared : layouts == Layouts.BOTH ? new boolean[] {true, false} :
                new boolean[] {layouts == Layouts.SHARED})
            {
                try (Exchange exchange = Exchange.start(new ExchangeContext().dataDir(data).port(0)
                    .durability(Durability.ASYNC).snapshotEvery(0).ratePerSecond(100_000_000).rateBurst(10_000_000)
                    .maxSessionsPerAccount(1_000).metricsPort(0).sharedLoop(shared).log(line -> { })))
                {
                    if (keys == null)
                    {
                        final long start = System.nanoTime();
                        keys = new ResendStallHistory(accounts, events, quiet, quietEvents, resenders, fleet).setUp(exchange, loops);
                        historySeconds = (System.nanoTime() - start) / 1e9;
                        historyEvents = events;
                        System.out.printf(Locale.ROOT, "history: %,d deposits over %,d accounts (%d quiet, %d events " +
                            "each, spread through the journal) in %.1f s; fleet of %d leased machines%n",
                            events, accounts, quiet, quietEvents, historySeconds, fleet);
                    }
                    // each layout's probe bids take client order ids of their own on the one data directory
                    final long firstOrderId = 1_000_000_000L * (1 + phases.size() / PHASES.length);
                    final WorkTimes work = new WorkTimes();
                    exchange.workProbe(work);
                    phases.addAll(measure(exchange, keys, loops, probeLoop, shared ? "SHARED" : "DEDICATED", firstOrderId,
                        work));
                }
            }
            final String line = json(historyEvents, historySeconds, phases);
            System.out.println(line);
            if (json != null)
            {
                Files.writeString(json, line + "\n");
            }
            result = new Result(historyEvents, historySeconds, phases, line);
            return 0;
        }
        finally
        {
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
            probeLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
            try (Stream<Path> files = Files.walk(data))
            {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** The probe's fills, by order id: latency from when each bid was due. */
    private static final class Probe implements ClientListener
    {
        final long[] due;
        final int[] phaseOf;
        final Histogram[] histograms = new Histogram[PHASES.length];
        /** Each phase's bids that filled. */
        final AtomicLongArray filled = new AtomicLongArray(PHASES.length);
        final AtomicLong errors = new AtomicLong();
        final long firstOrderId;

        Probe(final int orders, final long firstOrderId)
        {
            due = new long[orders];
            phaseOf = new int[orders];
            this.firstOrderId = firstOrderId;
            for (int p = 0; p < PHASES.length; p++)
            {
                histograms[p] = new Histogram(60_000_000_000L, 3);
            }
        }

        @Override
        public void onFill(final AccountEvent event, final Fill fill)
        {
            final long now = System.nanoTime();
            final long i = fill.getOrderId() - firstOrderId;
            if (i >= 0 && i < due.length && phaseOf[(int)i] >= 0)
            {
                histograms[phaseOf[(int)i]].recordValue(Math.min(60_000_000_000L, Math.max(1, now - due[(int)i])));
                filled.incrementAndGet(phaseOf[(int)i]);
            }
        }

        @Override
        public void onResponse(final long requestId, final Response response)
        {
            if (response.getReason() != Reason.REASON_OK)
            {
                errors.incrementAndGet();
            }
        }
    }

    /** A client logging in with last seq 0 over and over until stopped. */
    private static final class Resender implements ClientListener
    {
        volatile CountDownLatch complete;
        final AtomicLong events = new AtomicLong();

        @Override
        public void onEvent(final AccountEvent event)
        {
            events.incrementAndGet();
        }

        @Override
        public void onResendComplete(final ResendComplete done)
        {
            complete.countDown();
        }
    }

    /** The portfolio answers. */
    private static final class Portfolios implements ClientListener
    {
        final AtomicLong answered = new AtomicLong();

        @Override
        public void onPortfolio(final long requestId, final Portfolio portfolio)
        {
            answered.incrementAndGet();
        }
    }

    private List<Phase> measure(final Exchange exchange, final ResendStallHistory.Keys keys, final EventLoopGroup loops,
        final EventLoopGroup probeLoop, final String layout, final long firstOrderId, final WorkTimes work)
        throws Exception
    {
        final int perPhase = probeRate * seconds;
        final int warmupBids = probeRate * warmup;
        final Probe probe = new Probe(warmupBids + perPhase * PHASES.length, firstOrderId);
        final URI metrics = URI.create("http://127.0.0.1:" + exchange.metricsPort() + "/metrics");
        final List<Phase> phases = new ArrayList<>();
        try (GpuxClient client = new GpuxClient(ResendStallHistory.context(exchange, keys.probe(), probeLoop).listener(probe)
            .maxPendingCommands(1 << 20)))
        {
            client.connect();
            // warm-up: probe bids, not recorded
            java.util.Arrays.fill(probe.phaseOf, -1);
            pace(client, probe, 0, warmupBids, -1, System.nanoTime());
            for (int phase = 0; phase < PHASES.length; phase++)
            {
                phases.add(measurePhase(exchange, keys, loops, client, probe, metrics, layout, phase, warmupBids, work));
            }
        }
        return phases;
    }

    /** One phase: its load started, the probe paced through it, the load stopped and the phase's figures. */
    private Phase measurePhase(final Exchange exchange, final ResendStallHistory.Keys keys, final EventLoopGroup loops,
        final GpuxClient client, final Probe probe, final URI metrics, final String layout, final int phase,
        final int warmupBids, final WorkTimes work) throws Exception
    {
        work.reset();
        final int perPhase = probeRate * seconds;
        final AtomicLong stop = new AtomicLong();
        final List<Thread> load = new ArrayList<>();
        final List<Resender> resenders = new ArrayList<>();
        final AtomicLong logins = new AtomicLong();
        final Portfolios portfolios = new Portfolios();
        if (phase == 1 || phase == 2)
        {
            final long lastSeq = phase == 1 ? -1 : 0;
            for (final String[] key : keys.resend())
            {
                final Resender r = new Resender();
                resenders.add(r);
                load.add(started("resender", () -> resendLoop(exchange, key, loops, lastSeq, r, stop, logins)));
            }
        }
        else if (phase == 3)
        {
            load.add(started("portfolios", () -> queryLoop(exchange, keys, loops, portfolios, stop)));
        }
        final long errorsBefore = probe.errors.get();
        final Histogram batchMax = new Histogram(60_000_000_000L, 3);
        final long[] over = new long[1];
        final long[] maxResends = new long[1];
        final Thread scraper = started("metrics", () -> scrapeEverySecond(metrics, stop, batchMax, over, maxResends));
        pace(client, probe, warmupBids + (long)phase * perPhase, perPhase, phase, System.nanoTime());
        stop.set(1);
        scraper.interrupt();
        scraper.join();
        for (final Thread th : load)
        {
            th.join(30_000);
        }
        awaitLastFills(probe, phase, perPhase, errorsBefore);
        final CountDownLatch read = new CountDownLatch(1);
        final Histogram copy = new Histogram(60_000_000_000L, 3);
        client.execute(() ->
        {
            copy.add(probe.histograms[phase]);
            read.countDown();
        });
        read.await();
        final Phase result = new Phase(layout, PHASES[phase], copy, probe.errors.get() - errorsBefore, batchMax, over[0],
            logins.get(), resenders.stream().mapToLong(r -> r.events.get()).sum(), maxResends[0],
            portfolios.answered.get(), work.take());
        print(result);
        return result;
    }

    /**
     * Reads the metrics endpoint once a second until stopped: the core's batch time maximum of each second, the
     * seconds it was over {@link #STALL_NS}, and the most resends in progress at once.
     */
    private static void scrapeEverySecond(final URI metrics, final AtomicLong stop, final Histogram batchMax, final long[] over,
        final long[] maxResends)
    {
        while (stop.get() == 0)
        {
            try
            {
                Thread.sleep(1_000);
                final Map<String, Double> m = scrape(metrics);
                final long max = m.getOrDefault("gpux_batch_ns{quantile=\"1\"}", 0.0).longValue();
                if (max > 0)
                {
                    batchMax.recordValue(Math.min(60_000_000_000L, max));
                }
                if (max > STALL_NS)
                {
                    over[0]++;
                }
                maxResends[0] = Math.max(maxResends[0], m.getOrDefault("gpux_egress_resends", 0.0).longValue());
            }
            catch (final InterruptedException e)
            {
                return;
            }
            catch (final IOException e)
            {
                // a missed second: the next one is read
            }
        }
    }

    /** Waits until each of the phase's bids has filled or been refused, 10 s at most (a missing fill is not waited for longer). */
    private static void awaitLastFills(final Probe probe, final int phase, final int bids, final long errorsBefore)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (probe.filled.get(phase) + probe.errors.get() - errorsBefore < bids && System.nanoTime() - deadline < 0)
        {
            Thread.sleep(1);
        }
    }

    private static Thread started(final String name, final Runnable body)
    {
        final Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** Places {@code count} probe bids at the probe rate from {@code start}, open loop, each due on its slot. */
    private void pace(final GpuxClient client, final Probe probe, final long firstIndex, final long count, final int phase,
        final long start)
    {
        final double interval = 1e9 / probeRate;
        for (long i = 0; i < count; i++)
        {
            final long due = start + (long)(i * interval);
            long wait;
            while ((wait = due - System.nanoTime()) > 0)
            {
                LockSupport.parkNanos(wait);
            }
            final int index = (int)(firstIndex + i);
            probe.due[index] = due;
            probe.phaseOf[index] = phase;
            client.placeBid(PlaceBid.newBuilder().setOrderId(probe.firstOrderId + index).setMarket(PROBE_MARKET)
                .setGpus(1).setPrice(PRICE).setTif(TimeInForce.IOC).setMaxDurationMs(500).build());
        }
    }

    /** Logs in, waits for the resend to complete (last seq 0) or not (-1: live), logs out; again until stopped. */
    private static void resendLoop(final Exchange exchange, final String[] key, final EventLoopGroup loops,
        final long lastSeq, final Resender r, final AtomicLong stop, final AtomicLong completed)
    {
        while (stop.get() == 0)
        {
            r.complete = new CountDownLatch(1);
            try (GpuxClient c = new GpuxClient(ResendStallHistory.context(exchange, key, loops).lastSeq(lastSeq).listener(r)))
            {
                c.connect();
                if (lastSeq < 0 || r.complete.await(30, TimeUnit.SECONDS))
                {
                    completed.incrementAndGet();
                }
            }
            catch (final Exception e)
            {
                LockSupport.parkNanos(10_000_000);
            }
        }
    }

    private void queryLoop(final Exchange exchange, final ResendStallHistory.Keys keys, final EventLoopGroup loops, final Portfolios answers,
        final AtomicLong stop)
    {
        try (GpuxClient owner = new GpuxClient(ResendStallHistory.context(exchange, keys.fleetOwner(), loops).listener(answers));
             GpuxClient renter = new GpuxClient(ResendStallHistory.context(exchange, keys.fleetRenter(), loops).listener(answers)))
        {
            owner.connect();
            renter.connect();
            final double interval = 1e9 / queryRate;
            final long start = System.nanoTime();
            long sent = 0;
            while (stop.get() == 0)
            {
                final long due = start + (long)(sent * interval);
                final long wait = due - System.nanoTime();
                if (wait > 0)
                {
                    LockSupport.parkNanos(wait);
                    continue;
                }
                // at most 1,000 unanswered: a backlog would measure the client, not the exchange
                if (sent - answers.answered.get() < 1_000)
                {
                    (sent % 2 == 0 ? owner : renter).portfolio();
                }
                sent++;
            }
        }
        catch (final Exception e)
        {
            System.err.println("portfolio queries stopped: " + e.getMessage());
        }
    }

    private static Map<String, Double> scrape(final URI uri) throws IOException
    {
        final Map<String, Double> m = new HashMap<>();
        try (InputStream in = uri.toURL().openStream())
        {
            for (final String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n"))
            {
                final int space = line.lastIndexOf(' ');
                if (!line.startsWith("#") && space > 0)
                {
                    try
                    {
                        m.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
                    }
                    catch (final NumberFormatException ignored)
                    {
                        // not a sample line
                    }
                }
            }
        }
        return m;
    }

    private static void print(final Phase p)
    {
        System.out.printf(Locale.ROOT, "%-9s %-10s probe bid -> fill, us (%,d): %s; core batch max per second, us: " +
            "p50 %.1f max %.1f, seconds over 1 ms %d; logins %,d (%,d events resent, resends at once at most %d); portfolios %,d%s%n",
            p.layout, p.phase, p.probeNs.getTotalCount(), LatencyLine.of(p.probeNs),
            p.batchMaxNs.getValueAtPercentile(50) / 1e3, p.batchMaxNs.getMaxValue() / 1e3, p.secondsWithBatchOver1ms,
            p.logins, p.eventsResent, p.maxResendsInProgress, p.queriesAnswered, p.work.lines());
    }

    private String json(final long historyEvents, final double historySeconds, final List<Phase> phases)
    {
        final StringBuilder s = new StringBuilder(1024);
        s.append(String.format(Locale.ROOT, "{\"benchmark\":\"resend-stall\",\"cores\":%d,\"loadAverage\":%.2f," +
            "\"accounts\":%d,\"events\":%d,\"quiet\":%d,\"quietEvents\":%d,\"seconds\":%d,\"resenders\":%d," +
            "\"fleet\":%d,\"queryRate\":%d,\"probeRate\":%d,\"historySeconds\":%.2f,\"phases\":[",
            Runtime.getRuntime().availableProcessors(), ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
            accounts, historyEvents, quiet, quietEvents, seconds, resenders, fleet, queryRate, probeRate, historySeconds));
        for (int i = 0; i < phases.size(); i++)
        {
            final Phase p = phases.get(i);
            s.append(i == 0 ? "" : ",").append(String.format(Locale.ROOT,
                "{\"layout\":\"%s\",\"phase\":\"%s\",\"probeCount\":%d,\"probeErrors\":%d,\"probeP50Us\":%.1f," +
                    "\"probeP99Us\":%.1f,\"probeP999Us\":%.1f,\"probeMaxUs\":%.1f,\"batchMaxP50Us\":%.1f," +
                    "\"batchMaxUs\":%.1f,\"secondsWithBatchOver1ms\":%d,\"logins\":%d,\"eventsResent\":%d," +
                    "\"maxResendsInProgress\":%d,\"portfoliosAnswered\":%d%s}",
                p.layout, p.phase, p.probeNs.getTotalCount(), p.probeErrors, p.probeNs.getValueAtPercentile(50) / 1e3,
                p.probeNs.getValueAtPercentile(99) / 1e3, p.probeNs.getValueAtPercentile(99.9) / 1e3,
                p.probeNs.getMaxValue() / 1e3, p.batchMaxNs.getValueAtPercentile(50) / 1e3, p.batchMaxNs.getMaxValue() / 1e3,
                p.secondsWithBatchOver1ms, p.logins, p.eventsResent, p.maxResendsInProgress, p.queriesAnswered,
                p.work.json()));
        }
        return s.append("]}").toString();
    }
}
