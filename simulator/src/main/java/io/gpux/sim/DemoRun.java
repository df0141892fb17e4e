package io.gpux.sim;

import io.gpux.common.Money;
import io.gpux.client.ClientContext;
import io.gpux.client.GpuxClient;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.Response;
import io.gpux.sim.agent.Agent;
import io.gpux.sim.agent.Population;
import io.gpux.sim.agent.Seller;
import io.gpux.sim.market.ClientMarketAccess;
import io.gpux.sim.market.LatencyRecorder;
import io.gpux.sim.market.MarketRules;
import io.gpux.sim.market.ScaledClock;
import io.gpux.sim.report.AgentRecords;
import io.gpux.sim.report.Analysis;
import io.gpux.sim.report.Invariants;
import io.gpux.sim.report.Json;
import io.gpux.sim.report.Labels;
import io.gpux.sim.report.Outage;
import io.gpux.sim.report.Report;
import io.gpux.sim.report.WorkloadFigures;
import io.gpux.sim.workload.WorkloadLane;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;

/**
 * {@code ./gpux demo}: an exchange in a child JVM (temporary data directory, loopback, ephemeral port,
 * the clock running {@code scale} times fast: an hour in 15 s by default), a few hundred agents
 * trading on it through {@link GpuxClient}s that share one two-thread event loop group, a progress
 * line, then the measurements: a summary table on standard output and a report (HTML, JSON, charts).
 * With {@code killExchange} the exchange is SIGKILLed halfway and restarted on the same data directory
 * and clock anchor; the clients reconnect and resume by themselves and the market carries on.
 */
public final class DemoRun
{
    public static final double DEFAULT_LOAD = 1.1;
    public static final double DEFAULT_FAILURE_ACCEL = 20;
    public static final double DEFAULT_RECLAIMS_PER_DAY = 0.3;
    public static final long DEFAULT_SCALE = 240;
    /**
     * After a restart of the exchange, the wall time a machine online at the crash has to heartbeat again, at
     * least: every client must reconnect, log in and resume within it, on a machine busy replaying their events.
     */
    public static final long RESTART_WINDOW_WALL_MS = 60_000;

    /**
     * @param seed            the run's seed.
     * @param agents          owners + market-makers + renters.
     * @param durationSeconds wall seconds of market.
     * @param killExchange    SIGKILL the exchange halfway and restart it.
     * @param out             the report directory.
     * @param scale           market time runs this many times faster than wall time.
     */
    public record Options(long seed, int agents, double durationSeconds, boolean killExchange, Path out, long scale,
        double load, double failureAccel, double reclaimsPerDay, boolean keepData, int workloadJobs)
    {
    }

    /** The workload lane's jobs by default: one checkpointed, one not. */
    public static final int DEFAULT_WORKLOAD_JOBS = 2;
    /** After the market closes, how long the workload lane's running jobs may take to finish. */
    static final Duration WORKLOAD_FINISH_WAIT = Duration.ofSeconds(5);

    /** What happened to the exchange when it was killed. */
    private static final class KillInfo
    {
        long killWallMs;
        long killMarketMs;
        long restartMillis;
        long reconnectMillis = -1;
        int reconnected;
        long settledAfterReconnect;
    }

    private final Options o;
    private final PrintStream err;
    private final LatencyRecorder latency = new LatencyRecorder();
    private final Map<Agent, ClientMarketAccess> accesses = new HashMap<>();
    private final Map<Agent, Response> keys = new HashMap<>();
    private final AtomicInteger listenerErrorsPrinted = new AtomicInteger();
    private final DemoAudit audit;

    private DemoRun(final Options o, final PrintStream err)
    {
        this.o = o;
        this.err = err;
        this.audit = new DemoAudit(accesses, err);
    }

    public static String timestamp()
    {
        return LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT));
    }

    public static RunOutcome run(final Options o, final PrintStream err) throws Exception
    {
        return new DemoRun(o, err).run();
    }

    private RunOutcome run() throws Exception
    {
        final long wall0 = System.currentTimeMillis();
        final MarketRules rules = MarketRules.DEMO.restartWindowInWallTime(RESTART_WINDOW_WALL_MS, o.scale());
        final double marketHours = o.durationSeconds() * o.scale() / 3600.0;
        final Population population = Population.build(o.seed(), o.agents(), rules, SimRun.MARKET_EPOCH_MS, marketHours,
            o.failureAccel(), o.reclaimsPerDay(), o.load());
        final List<Agent> everyone = population.everyone();
        // the market opens when the set-up is expected to be done: exchange time runs from before it
        final long setupMs = 4000 + 12L * everyone.size();
        final ScaledClock clock = new ScaledClock(wall0 + setupMs, SimRun.MARKET_EPOCH_MS, o.scale());
        final Path work = Files.createTempDirectory("gpux-demo-");
        final Path data = work.resolve("data");
        final Path config = work.resolve("markets.scn");
        Files.writeString(config, String.join("\n", rules.configLines()) + "\n");
        err.printf("gpux demo: starting an exchange (data in %s, clock x%d)%n", data, o.scale());
        ExchangeProcess exchange = ExchangeProcess.start(work, data, config, clock);
        err.printf("gpux demo: exchange listening on 127.0.0.1:%d after %.1f s%n", exchange.port(),
            (System.currentTimeMillis() - wall0) / 1000.0);
        err.printf("gpux demo: live dashboard at %s while the market runs%n", exchange.dashboardUrl());
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, new DefaultThreadFactory("gpux-demo-client", true),
            NioIoHandler.newFactory());
        final List<GpuxClient> clients = new ArrayList<>();
        KillInfo kill = null;
        WorkloadLane lane = null;
        long journalBytes = -1;
        RunOutcome outcome;
        try
        {
            final String[] adminKey = Files.readString(exchange.adminKeyFile()).trim().split(":");
            final GpuxClient adminClient = new GpuxClient(context(exchange.port(), Long.parseLong(adminKey[0]), adminKey[1],
                group, "admin", population));
            clients.add(adminClient);
            adminClient.connect();
            final AdminSession admin = new AdminSession(adminClient);
            err.printf("gpux demo: %d agents (%d owners, %d market-makers, %d renters, 1 observer): accounts, keys, deposits%n",
                o.agents(), population.owners.size(), population.marketMakers.size(), population.renters.size());
            final long deposits = setUpAccounts(admin, everyone, population, group, exchange.port(), clients, clock);
            err.printf("gpux demo: accounts ready after %.1f s; logging %d clients in%n",
                (System.currentTimeMillis() - wall0) / 1000.0, everyone.size());
            connectAll(everyone);
            lane = o.workloadJobs() <= 0 ? null
                : new WorkloadLane(WorkloadLane.Settings.defaults(o.workloadJobs(), work.resolve("workloads")),
                    laneClients(admin, group, exchange.port(), population, clients), clock, err);
            final long open = waitForOpen(clock);
            final long setupSeconds = System.currentTimeMillis() - wall0;
            err.printf("gpux demo: %d clients logged in; market opens (set-up took %.1f s)%n", everyone.size(),
                setupSeconds / 1000.0);
            for (final Agent a : everyone)
            {
                a.start();
            }
            if (lane != null)
            {
                lane.start();
            }
            final long runStartWall = System.currentTimeMillis();
            final long runEndWall = runStartWall + (long)(o.durationSeconds() * 1000);
            latency.openingEndsAt(System.nanoTime() + (long)(o.durationSeconds() * 1e8));
            final Progress progress = new Progress(err, population.live);
            final long killAt = o.killExchange() ? runStartWall + (runEndWall - runStartWall) / 2 : Long.MAX_VALUE;
            String note = "";
            int round = 0;
            while (true)
            {
                final long now = System.currentTimeMillis();
                if (now >= runEndWall)
                {
                    break;
                }
                if (now >= killAt && kill == null)
                {
                    kill = new KillInfo();
                    progress.show((now - runStartWall) / (double)(runEndWall - runStartWall), clock.now(), "SIGKILL the exchange");
                    exchange = killAndRestart(exchange, kill, clock);
                    note = String.format(Locale.ROOT, "exchange killed and restarted in %.1f s", kill.restartMillis / 1000.0);
                    awaitReconnect(kill, everyone);
                }
                progress.show((now - runStartWall) / (double)(runEndWall - runStartWall), clock.now(), note);
                if (++round % 8 == 0)
                {
                    audit.checkSomePortfolios(population, round / 8);
                }
                Thread.sleep(Math.min(250, Math.max(1, runEndWall - now)));
            }
            progress.show(1.0, clock.now(), note);
            progress.done();
            final long runWallMs = System.currentTimeMillis() - runStartWall;
            if (lane != null)
            {
                err.printf("gpux demo: the workload lane's jobs finish (at most %d s more), its agents stop%n",
                    WORKLOAD_FINISH_WAIT.toSeconds());
                lane.finish(WORKLOAD_FINISH_WAIT);
            }
            // the simulated agents trade on while the lane's jobs finish: the market closes when they stop
            final long close = clock.now();
            err.println("gpux demo: winding down (asks withdrawn, leases released)");
            for (final Seller s : population.sellers())
            {
                s.stop();
            }
            Thread.sleep(200);
            for (final Agent a : population.renters)
            {
                a.stop();
            }
            population.observer.stop();
            final long windDownStart = System.currentTimeMillis();
            final Map<Agent, Portfolio> finals = audit.windDown(everyone);
            err.printf("gpux demo: market wound down in %.1f s; checking every account's events%n",
                (System.currentTimeMillis() - windDownStart) / 1000.0);
            final int port = exchange.port();
            final int seqMismatches = audit.verifyLastSeqs(everyone, a -> new GpuxClient(context(port, keys.get(a).getAssignedId(),
                keys.get(a).getSecret(), group, a.name() + "-audit", population).reconnect(false)));
            for (final Agent a : everyone)
            {
                a.halt();
            }
            barrier(everyone);

            final List<AgentRecords> records = new ArrayList<>();
            for (final Agent a : everyone)
            {
                records.add(a.records());
            }
            final Analysis analysis = new Analysis(records, open, close, rules.graceMs());
            final Map<String, Object> checks = Invariants.fromRecords(records, analysis);
            final WorkloadFigures workloads = lane == null ? null : lane.figures();
            audit.moneyChecks(checks, records, finals, deposits, everyone,
                lane == null ? null : lane.money(Duration.ofSeconds(10)));
            if (workloads != null)
            {
                checks.put("workloadCountsRight", workloads.countsRight);
            }
            checks.put("lastSeqMatchesExchange", seqMismatches == 0);
            checks.put("midRunPortfolioChecks", audit.midRunChecks);
            if (!audit.leftovers.isEmpty())
            {
                err.println("gpux demo: left open after the agents stopped, cleaned up: " + audit.leftovers);
            }
            checks.put("accountsCleanedUpAfterStop", audit.leftovers.size());
            checks.put("portfolioGpusWithinMachines", audit.portfolioProblems.isEmpty());
            if (!audit.portfolioProblems.isEmpty())
            {
                checks.put("portfolioProblems",
                    audit.portfolioProblems.subList(0, Math.min(10, audit.portfolioProblems.size())).toString());
            }
            if (kill != null)
            {
                checks.put("allClientsReconnectedAfterKill", kill.reconnected == everyone.size());
            }
            long maxCommandSeq = 0;
            long settled = 0;
            for (final ClientMarketAccess a : accesses.values())
            {
                maxCommandSeq = Math.max(maxCommandSeq, a.maxCommandSeq());
                settled += a.settledAfterReconnect();
            }
            for (final GpuxClient c : clients)
            {
                c.close();
            }
            clients.clear();
            exchange.close();
            journalBytes = directorySize(data);
            final long journalDiskBytes = diskUsage(data);

            final Map<String, Object> run = runSection(population, clock);
            final Map<String, Object> exchangeSection = Json.object();
            exchangeSection.put("exchangeProcess", "io.gpux.gateway.ServerMain in a child JVM, loopback, clock x" + o.scale());
            exchangeSection.put("commandsJournaled", maxCommandSeq);
            exchangeSection.put("journalFileBytes", journalBytes);
            exchangeSection.put("journalDiskBytes", journalDiskBytes);
            final Map<String, Object> wall = Json.object();
            final long commands = population.live.commands.sum();
            wall.put("setupSeconds", Json.round(setupSeconds / 1000.0, 2));
            wall.put("marketWallSeconds", Json.round(runWallMs / 1000.0, 2));
            wall.put("commandsSentByAgents", commands);
            wall.put("commandsPerWallSecond", Json.round(commands * 1000.0 / Math.max(1, runWallMs), 0));
            final Histogram h = latency.all().copy();
            final Histogram steady = latency.afterOpening().copy();
            final Map<String, Object> lat = Json.object();
            lat.put("what", "submit of a bid or ask -> its first Fill on the client, orders that filled on entry, through the gateway");
            lat.put("all", latencyJson(h));
            lat.put("afterTheOpeningBurst", latencyJson(steady));
            wall.put("orderToFillLatency", lat);
            wall.put("listenerErrors", population.live.listenerErrors.sum());
            if (kill != null)
            {
                final Map<String, Object> k = Json.object();
                k.put("killedAtMarket", java.time.Instant.ofEpochMilli(kill.killMarketMs).toString());
                k.put("killedAtWallSecond", Json.round((kill.killWallMs - runStartWall) / 1000.0, 2));
                k.put("restartSeconds", Json.round(kill.restartMillis / 1000.0, 2));
                k.put("allReconnectedSeconds", Json.round(kill.reconnectMillis / 1000.0, 2));
                k.put("clientsReconnected", kill.reconnected);
                k.put("answersSettledFromEventsAfterReconnect", settled);
                wall.put("exchangeKill", k);
            }
            wall.put("boundSolveSeconds", Json.round(analysis.boundSolveSeconds, 2));
            wall.put("reportDirectory", o.out().toAbsolutePath().toString());
            wall.put("exchangeWorkDirectory", work.toString());
            final Report report = new Report(analysis, run, checks, exchangeSection, wall).workloads(workloads);
            if (kill != null)
            {
                report.outage(new Outage(kill.killMarketMs, kill.killMarketMs + kill.restartMillis * o.scale()));
            }
            err.println("gpux demo: writing the report");
            final Path html = report.write(o.out());
            final boolean ok = Invariants.allHold(checks);
            final List<String> extra = new ArrayList<>();
            extra.add(Report.line("exchange", String.format(Locale.ROOT, "%,d commands sent by the agents in %.1f s (%,.0f/s); "
                    + "%,d journaled; journals %s on disk (%s of pre-allocated files)", commands, runWallMs / 1000.0,
                commands * 1000.0 / Math.max(1, runWallMs), maxCommandSeq, bytes(journalDiskBytes), bytes(journalBytes))));
            extra.add(Report.line("order-to-fill", String.format(Locale.ROOT, "p50 %.0f us, p99 %.1f ms, max %.1f ms over %,d "
                    + "fills on entry (submit -> Fill event on the client, through the gateway); after the opening burst: "
                    + "p50 %.0f us, p99 %.1f ms", h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1e6,
                h.getMaxValue() / 1e6, h.getTotalCount(), steady.getValueAtPercentile(50) / 1000.0,
                steady.getValueAtPercentile(99) / 1e6)));
            extra.add(Report.line("timing", String.format(Locale.ROOT, "clock x%d; grace %s of market time = %.1f s of wall time, "
                    + "heartbeats every %s (%.1f s), offline after %s without one (%.1f s): against an order-to-fill p99 of %.1f ms",
                o.scale(), Report.duration(rules.graceMs()), rules.graceMs() / (double)o.scale() / 1000.0,
                Report.duration(rules.heartbeatIntervalMs()), rules.heartbeatIntervalMs() / (double)o.scale() / 1000.0,
                Report.duration(rules.heartbeatTimeoutMs()), rules.heartbeatTimeoutMs() / (double)o.scale() / 1000.0,
                h.getValueAtPercentile(99) / 1e6)));
            if (kill != null)
            {
                extra.add(Report.line("exchange kill", String.format(Locale.ROOT, "SIGKILL at %.1f s (market %s); restarted on the same "
                        + "journals and clock anchor in %.1f s; %d/%d clients reconnected and resumed in %.1f s; %d answers "
                        + "settled from replayed events; machines online at the crash had %s of market time (%.0f s of wall "
                        + "time; heartbeat timeout %s) to heartbeat again; %d leases in the run ended MACHINE_OFFLINE on "
                        + "machines that had not failed",
                    (kill.killWallMs - runStartWall) / 1000.0, java.time.Instant.ofEpochMilli(kill.killMarketMs),
                    kill.restartMillis / 1000.0, kill.reconnected, everyone.size(), kill.reconnectMillis / 1000.0, settled,
                    Report.duration(rules.restartWindowMs()), rules.restartWindowMs() / (double)o.scale() / 1000.0,
                    Report.duration(rules.heartbeatTimeoutMs()), analysis.offlineHeartbeatLapse)));
            }
            if (workloads != null)
            {
                extra.addAll(workloads.summaryLines());
            }
            extra.add(Report.line("events", String.format(Locale.ROOT, "%,d account events on %d accounts, %s; every client's last "
                    + "seq equals the exchange's: %s", analysis.events, analysis.accounts,
                analysis.seqBreaks == 0 ? "gap-free (none lost, none twice)" : analysis.seqBreaks + " GAPS",
                SimRun.yesNo(checks.get("lastSeqMatchesExchange")))));
            extra.add(Report.line("money", String.format(Locale.ROOT, "%s: deposits $%s = balances $%s + exchange fees $%s; "
                    + "no negative balance: %s", Boolean.TRUE.equals(checks.get("moneyConserved")) ? "conserved" : "NOT CONSERVED",
                io.gpux.common.Money.formatMoney((Long)checks.get("depositsMicros")), io.gpux.common.Money.formatMoney((Long)checks.get("balancesMicros")),
                io.gpux.common.Money.formatMoney((Long)checks.get("feesMicros")), SimRun.yesNo(checks.get("noNegativeBalance")))));
            extra.add(Report.line("checks", ok ? "all hold (GPUs never oversubscribed, a full-grace notice before every "
                + "interruption of a working machine, events gap-free, money conserved)" : "FAILED: " + failed(checks)));
            extra.add(Report.line("report", html.toAbsolutePath().toString()));
            outcome = new RunOutcome(report, html, checks, ok, report.summary(extra));
        }
        finally
        {
            if (lane != null)
            {
                lane.close();
            }
            for (final GpuxClient c : clients)
            {
                c.close();
            }
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
            exchange.close();
            if (!o.keepData())
            {
                deleteRecursively(work);
            }
        }
        return outcome;
    }

    private static Map<String, Object> latencyJson(final Histogram h)
    {
        final Map<String, Object> m = Json.object();
        m.put("count", h.getTotalCount());
        m.put("p50Micros", Json.round(h.getValueAtPercentile(50) / 1000.0, 1));
        m.put("p90Micros", Json.round(h.getValueAtPercentile(90) / 1000.0, 1));
        m.put("p99Micros", Json.round(h.getValueAtPercentile(99) / 1000.0, 1));
        m.put("p999Micros", Json.round(h.getValueAtPercentile(99.9) / 1000.0, 1));
        m.put("maxMicros", Json.round(h.getMaxValue() / 1000.0, 1));
        return m;
    }

    private static String failed(final Map<String, Object> checks)
    {
        final List<String> bad = new ArrayList<>();
        checks.forEach((k, v) ->
        {
            if (Boolean.FALSE.equals(v))
            {
                bad.add(Labels.label(k));
            }
        });
        return String.join(", ", bad);
    }

    private ClientContext context(final int port, final long keyId, final String secret, final EventLoopGroup group,
        final String name, final Population population)
    {
        return new ClientContext()
            .host("127.0.0.1")
            .port(port)
            .keyId(keyId)
            .secretHex(secret)
            .eventLoopGroup(group)
            .clientName(name)
            .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(500))
            .errorHandler(t ->
            {
                population.live.listenerErrors.increment();
                if (listenerErrorsPrinted.incrementAndGet() <= 5)
                {
                    err.println("gpux demo: " + name + ": a listener failed: " + t);
                    t.printStackTrace(err);
                }
            });
    }

    /** Accounts, keys and deposits for every agent; one client (and access) per agent. Returns the deposits' total. */
    private long setUpAccounts(final AdminSession admin, final List<Agent> everyone, final Population population,
        final EventLoopGroup group, final int port, final List<GpuxClient> clients, final ScaledClock clock)
        throws IOException, InterruptedException
    {
        // all in flight at once: the gateway knows an account as soon as its creation is published, so its
        // key and deposit can follow it in the same batch
        final GpuxClient c = admin.client();
        final List<LongSupplier> requests = new ArrayList<>();
        long total = 0;
        for (final Agent a : everyone)
        {
            requests.add(() -> c.createAccount(a.name(), AdminSession.role(Population.rolesOf(a))));
            requests.add(() -> c.createKey(a.name()));
            final long amount = Population.depositOf(a);
            if (amount > 0)
            {
                requests.add(() -> c.deposit(a.name(), amount));
                total += amount;
            }
        }
        final List<Response> answers = admin.all(requests, "account set-up");
        final List<Response> keyAnswers = new ArrayList<>();
        int k = 0;
        for (final Agent a : everyone)
        {
            keyAnswers.add(answers.get(k + 1));
            k += Population.depositOf(a) > 0 ? 3 : 2;
        }
        for (int i = 0; i < everyone.size(); i++)
        {
            final Agent a = everyone.get(i);
            final Response key = keyAnswers.get(i);
            this.keys.put(a, key);
            final GpuxClient client = new GpuxClient(context(port, key.getAssignedId(), key.getSecret(), group, a.name(), population));
            clients.add(client);
            final ClientMarketAccess access = new ClientMarketAccess(client, clock, latency, population.live.commands);
            accesses.put(a, access);
        }
        return total;
    }

    /** The workload lane's accounts, keys and deposits, and their logged-in clients (in {@code clients} too). */
    private List<GpuxClient> laneClients(final AdminSession admin, final EventLoopGroup group, final int port,
        final Population population, final List<GpuxClient> clients) throws IOException, InterruptedException
    {
        final GpuxClient c = admin.client();
        final List<WorkloadLane.Account> accounts = WorkloadLane.accounts(o.workloadJobs());
        final List<LongSupplier> requests = new ArrayList<>();
        for (final WorkloadLane.Account a : accounts)
        {
            requests.add(() -> c.createAccount(a.name(), a.role()));
            requests.add(() -> c.createKey(a.name()));
            if (a.deposit() > 0)
            {
                requests.add(() -> c.deposit(a.name(), a.deposit()));
            }
        }
        final List<Response> answers = admin.all(requests, "workload lane set-up");
        final List<GpuxClient> lane = new ArrayList<>();
        int k = 0;
        for (final WorkloadLane.Account a : accounts)
        {
            final Response key = answers.get(k + 1);
            k += a.deposit() > 0 ? 3 : 2;
            final GpuxClient client = new GpuxClient(context(port, key.getAssignedId(), key.getSecret(), group, a.name(), population));
            clients.add(client);
            client.connect();
            lane.add(client);
        }
        return lane;
    }

    private void connectAll(final List<Agent> everyone) throws Exception
    {
        final ExecutorService pool = Executors.newFixedThreadPool(8);
        try
        {
            final List<Future<?>> done = new ArrayList<>();
            for (final Agent a : everyone)
            {
                final ClientMarketAccess access = accesses.get(a);
                done.add(pool.submit(() ->
                {
                    a.attach(access);
                    access.client().connect();
                    return null;
                }));
            }
            for (final Future<?> f : done)
            {
                f.get(60, TimeUnit.SECONDS);
            }
        }
        finally
        {
            pool.shutdownNow();
        }
    }

    private static long waitForOpen(final ScaledClock clock) throws InterruptedException
    {
        while (clock.now() < clock.anchorMarketMs())
        {
            Thread.sleep(Math.max(1, Math.min(100, clock.wallTime(clock.anchorMarketMs()) - System.currentTimeMillis())));
        }
        return clock.now();
    }

    private ExchangeProcess killAndRestart(final ExchangeProcess exchange, final KillInfo kill, final ScaledClock clock)
        throws IOException, InterruptedException
    {
        kill.killWallMs = System.currentTimeMillis();
        kill.killMarketMs = clock.now();
        exchange.kill();
        final ExchangeProcess restarted = exchange.restart();
        kill.restartMillis = System.currentTimeMillis() - kill.killWallMs;
        return restarted;
    }

    private void awaitReconnect(final KillInfo kill, final List<Agent> everyone) throws InterruptedException
    {
        final long deadline = System.currentTimeMillis() + 30_000;
        while (System.currentTimeMillis() < deadline)
        {
            int n = 0;
            for (final Agent a : everyone)
            {
                final ClientMarketAccess access = accesses.get(a);
                n += access.isConnected() && access.logins() >= 2 ? 1 : 0;
            }
            kill.reconnected = n;
            if (n == everyone.size())
            {
                kill.reconnectMillis = System.currentTimeMillis() - kill.killWallMs;
                return;
            }
            Thread.sleep(20);
        }
    }

    /** Runs a no-op on every agent's thread and waits: what the agents wrote is then visible here. */
    private void barrier(final List<Agent> everyone) throws InterruptedException
    {
        final CountDownLatch latch = new CountDownLatch(everyone.size());
        for (final Agent a : everyone)
        {
            accesses.get(a).execute(latch::countDown);
        }
        latch.await(10, TimeUnit.SECONDS);
    }

    private Map<String, Object> runSection(final Population p, final ScaledClock clock)
    {
        final Map<String, Object> run = Json.object();
        run.put("mode", "demo");
        run.put("description", String.format(Locale.ROOT, "gpux demo: %d agents (%d owners, %d market-makers, %d renters), %d machines, "
                + "%d GPUs, %.0f s of wall time with the exchange's clock x%d, seed %d, all through GpuxClient over the real gateway%s",
            o.agents(), p.owners.size(), p.marketMakers.size(), p.renters.size(), p.machineCount(), p.totalGpus(),
            o.durationSeconds(), o.scale(), o.seed(), o.killExchange() ? ", exchange SIGKILLed halfway and restarted" : ""));
        SimRun.putPopulation(run, p, o.seed(), o.agents(), o.load(), o.failureAccel(), o.reclaimsPerDay());
        run.put("clockScale", o.scale());
        run.put("clockAnchor", clock.anchorArgument());
        run.put("durationWallSeconds", o.durationSeconds());
        run.put("killExchange", o.killExchange());
        return run;
    }

    static String bytes(final long b)
    {
        if (b < 0)
        {
            return "-";
        }
        return b >= 1 << 20 ? String.format(Locale.ROOT, "%.1f MB", b / 1048576.0) : String.format(Locale.ROOT, "%.0f kB", b / 1024.0);
    }

    /** Disk blocks used under a directory ({@code du -sk}; Chronicle's files are sparse), -1 if unknown. */
    static long diskUsage(final Path dir)
    {
        try
        {
            final Process du = new ProcessBuilder("du", "-sk", dir.toString()).redirectErrorStream(true).start();
            final String out = new String(du.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim();
            if (du.waitFor() != 0)
            {
                return -1;
            }
            return Long.parseLong(out.split("\\s+")[0]) * 1024;
        }
        catch (final IOException | NumberFormatException ex)
        {
            return -1;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** Bytes of the files under a directory (their apparent size). */
    static long directorySize(final Path dir)
    {
        try (Stream<Path> files = Files.walk(dir))
        {
            return files.filter(Files::isRegularFile).mapToLong(f ->
            {
                try
                {
                    return Files.size(f);
                }
                catch (final IOException ex)
                {
                    return 0;
                }
            }).sum();
        }
        catch (final IOException ex)
        {
            return -1;
        }
    }

    static void deleteRecursively(final Path dir)
    {
        try (Stream<Path> files = Files.walk(dir))
        {
            files.sorted(Comparator.reverseOrder()).forEach(f ->
            {
                try
                {
                    Files.deleteIfExists(f);
                }
                catch (final IOException ignored)
                {
                    // best effort: a temporary directory
                }
            });
        }
        catch (final IOException ignored)
        {
            // best effort
        }
    }
}
