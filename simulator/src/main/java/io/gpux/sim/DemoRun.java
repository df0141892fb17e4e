package io.gpux.sim;

import io.gpux.client.GpuxClient;
import io.gpux.proto.v1.Portfolio;
import io.gpux.sim.agent.Agent;
import io.gpux.sim.agent.Levers;
import io.gpux.sim.agent.Population;
import io.gpux.sim.agent.Seller;
import io.gpux.sim.market.LatencyRecorder;
import io.gpux.sim.market.MarketRules;
import io.gpux.sim.market.ScaledClock;
import io.gpux.sim.report.AgentRecords;
import io.gpux.sim.report.Analysis;
import io.gpux.sim.report.Invariants;
import io.gpux.sim.report.WorkloadFigures;
import io.gpux.sim.workload.WorkloadLane;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code ./gpux demo}: an exchange in a child JVM (temporary data directory, loopback, ephemeral port,
 * the clock running {@code scale} times fast: an hour in 15 s by default), a few hundred agents
 * trading on it through {@link GpuxClient}s that share one two-thread event loop group, a progress
 * line, then the measurements: a summary table on standard output and a report (HTML, JSON, charts).
 * With {@code killExchange} the exchange is SIGKILLed halfway and restarted on the same data directory
 * and clock anchor; the clients reconnect and resume by themselves and the market carries on.
 *
 * <p>{@link #run()} is the sequence of the run's steps; the clients are {@link DemoClients}', the
 * checks against the exchange {@link DemoAudit}'s, the report {@link DemoReport}'s.
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
     * @param openHour        the market opens at this hour of the day, UTC.
     * @param markets         the markets' rules: {@link MarketRules#DEMO} by default.
     * @param levers          the agents' levers: {@link Levers#NONE} by default.
     */
    public record Options(long seed, int agents, double durationSeconds, boolean killExchange, Path out, long scale,
        double load, double failureAccel, double reclaimsPerDay, boolean keepData, int workloadJobs, double openHour,
        MarketRules markets, Levers levers)
    {
        /** Opening at {@link #DEFAULT_OPEN_HOUR}. */
        public Options(final long seed, final int agents, final double durationSeconds, final boolean killExchange,
            final Path out, final long scale, final double load, final double failureAccel, final double reclaimsPerDay,
            final boolean keepData, final int workloadJobs)
        {
            this(seed, agents, durationSeconds, killExchange, out, scale, load, failureAccel, reclaimsPerDay, keepData,
                workloadJobs, DEFAULT_OPEN_HOUR, MarketRules.DEMO, Levers.NONE);
        }
    }

    /** The hour of the day, UTC, at which the demo's market opens. */
    public static final double DEFAULT_OPEN_HOUR = 0;

    /** The workload lane's jobs by default: one checkpointed, one not. */
    public static final int DEFAULT_WORKLOAD_JOBS = 2;
    /** After the market closes, how long the workload lane's running jobs may take to finish. */
    static final Duration WORKLOAD_FINISH_WAIT = Duration.ofSeconds(5);

    private final Options o;
    private final PrintStream err;
    private final LatencyRecorder latency = new LatencyRecorder();
    private final long wall0 = System.currentTimeMillis();
    private final MarketRules rules;
    private final Population population;
    private final List<Agent> everyone;
    private final ScaledClock clock;
    private final Path work;
    private final Path data;
    private ExchangeProcess exchange;
    private DemoClients clients;
    private DemoAudit audit;
    private WorkloadLane lane;
    private ExchangeKill kill;
    private long deposits;
    private long open;
    private long close;
    private long setupMillis;
    private long runStartWall;
    private long runWallMs;

    private DemoRun(final Options o, final PrintStream err) throws IOException
    {
        this.o = o;
        this.err = err;
        this.rules = o.markets().restartWindowInWallTime(RESTART_WINDOW_WALL_MS, o.scale());
        final double marketHours = o.durationSeconds() * o.scale() / 3600.0;
        this.population = Population.build(o.seed(), o.agents(), rules, SimRun.openAt(o.openHour()), marketHours,
            o.failureAccel(), o.reclaimsPerDay(), o.load(), o.levers(), true);
        this.everyone = population.everyone();
        // the market opens when the set-up is expected to be done: exchange time runs from before it
        final long setupMs = 4000 + 12L * everyone.size();
        this.clock = new ScaledClock(wall0 + setupMs, SimRun.openAt(o.openHour()), o.scale());
        this.work = Files.createTempDirectory("gpux-demo-");
        this.data = work.resolve("data");
    }

    public static String timestamp()
    {
        return LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT));
    }

    public static RunOutcome run(final Options o, final PrintStream err) throws Exception
    {
        return new DemoRun(o, err).run();
    }

    /** The run, step by step: exchange, clients and accounts, the market, its wind-down, the checks, the report. */
    private RunOutcome run() throws Exception
    {
        startExchange();
        final LeaseTrail trail = new LeaseTrail(clock::now);
        clients = new DemoClients(population, latency, trail, err);
        audit = new DemoAudit(clients.accesses(), trail, err);
        try
        {
            setUp();
            trade();
            final Map<Agent, Portfolio> finals = windDown();
            final int seqMismatches = verifyEvents();
            final List<AgentRecords> records = agentRecords();
            final Analysis analysis = new Analysis(records, open, close, rules.graceMs());
            final WorkloadFigures workloads = lane == null ? null : lane.figures();
            final Map<String, Object> checks = checks(records, analysis, finals, seqMismatches, workloads);
            final DemoClients.AnswerFigures answers = clients.answerFigures();
            clients.closeClients();
            exchange.close();
            final long journalBytes = DemoFiles.directorySize(data);
            final long journalDiskBytes = DemoFiles.diskUsage(data);
            return new DemoReport(o, rules, population, clock, latency).write(new DemoReport.Measures(analysis, checks,
                workloads, kill, setupMillis, runStartWall, runWallMs, answers, journalBytes, journalDiskBytes, work,
                everyone.size()), err);
        }
        finally
        {
            if (lane != null)
            {
                lane.close();
            }
            clients.close();
            exchange.close();
            if (!o.keepData())
            {
                DemoFiles.deleteRecursively(work);
            }
        }
    }

    /** The exchange in its child JVM, on a fresh data directory with the demo's markets. */
    private void startExchange() throws IOException, InterruptedException
    {
        final Path config = work.resolve("markets.scn");
        Files.writeString(config, String.join("\n", rules.configLines()) + "\n");
        err.printf("gpux demo: starting an exchange (data in %s, clock x%d)%n", data, o.scale());
        exchange = ExchangeProcess.start(work, data, config, clock);
        err.printf("gpux demo: exchange listening on 127.0.0.1:%d after %.1f s%n", exchange.port(),
            (System.currentTimeMillis() - wall0) / 1000.0);
        err.printf("gpux demo: live dashboard at %s while the market runs%n", exchange.dashboardUrl());
    }

    /** Accounts, keys and deposits; every client logged in; the workload lane; then waits for the market to open. */
    private void setUp() throws Exception
    {
        final AdminSession admin = clients.admin(exchange.port(), Files.readString(exchange.adminKeyFile()));
        err.printf("gpux demo: %d agents (%d owners, %d market-makers, %d renters, 1 observer): accounts, keys, deposits%n",
            o.agents(), population.owners.size(), population.marketMakers.size(), population.renters.size());
        deposits = clients.setUpAccounts(admin, everyone, exchange.port(), clock);
        err.printf("gpux demo: accounts ready after %.1f s; logging %d clients in%n",
            (System.currentTimeMillis() - wall0) / 1000.0, everyone.size());
        clients.connectAll(everyone);
        lane = o.workloadJobs() <= 0 ? null
            : new WorkloadLane(WorkloadLane.Settings.defaults(o.workloadJobs(), work.resolve("workloads")),
                clients.laneClients(admin, exchange.port(), o.workloadJobs()), clock, err);
        open = waitForOpen(clock);
        setupMillis = System.currentTimeMillis() - wall0;
        err.printf("gpux demo: %d clients logged in; market opens (set-up took %.1f s)%n", everyone.size(),
            setupMillis / 1000.0);
    }

    /** The market runs for the run's duration (the exchange killed and restarted halfway if asked), with a progress line. */
    private void trade() throws Exception
    {
        for (final Agent a : everyone)
        {
            a.start();
        }
        if (lane != null)
        {
            lane.start();
        }
        runStartWall = System.currentTimeMillis();
        final long runEndWall = runStartWall + (long)(o.durationSeconds() * 1000);
        latency.openingEndsAt(System.nanoTime() + (long)(o.durationSeconds() * 1e8));
        final Progress progress = new Progress(err, population.live);
        final long killAt = o.killExchange() ? runStartWall + (runEndWall - runStartWall) / 2 : Long.MAX_VALUE;
        String note = "";
        int round = 0;
        while (true)
        {
            final long now = System.currentTimeMillis();
            if (now >= killAt && kill == null)
            {
                // also when this thread wakes past the run's end (a starved machine): a run asked to kill kills
                kill = new ExchangeKill();
                progress.show(Math.min(1.0, (now - runStartWall) / (double)(runEndWall - runStartWall)), clock.now(),
                    "SIGKILL the exchange");
                exchange = kill.killAndRestart(exchange, clock);
                note = String.format(Locale.ROOT, "exchange killed and restarted in %.1f s", kill.restartMillis / 1000.0);
                kill.awaitReconnect(clients, everyone);
                continue;
            }
            if (now >= runEndWall)
            {
                break;
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
        runWallMs = System.currentTimeMillis() - runStartWall;
    }

    /**
     * The workload lane's jobs finish; sellers withdraw their asks, then renters and the observer stop;
     * what an agent or the workload lane left open is cleaned up.
     *
     * @return every agent's final portfolio.
     */
    private Map<Agent, Portfolio> windDown() throws InterruptedException
    {
        if (lane != null)
        {
            err.printf("gpux demo: the workload lane's jobs finish (at most %d s more), its agents stop%n",
                WORKLOAD_FINISH_WAIT.toSeconds());
            lane.finish(WORKLOAD_FINISH_WAIT);
        }
        // the simulated agents trade on while the lane's jobs finish: the market closes when they stop
        close = clock.now();
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
        final Map<Agent, Portfolio> finals = audit.windDown(everyone, clients.laneAccounts());
        err.printf("gpux demo: market wound down in %.1f s; checking every account's events%n",
            (System.currentTimeMillis() - windDownStart) / 1000.0);
        return finals;
    }

    /**
     * Every account's last event number on a fresh client against the exchange's; then the agents halt.
     *
     * @return how many accounts differ.
     */
    private int verifyEvents() throws Exception
    {
        final int port = exchange.port();
        final int seqMismatches = audit.verifyLastSeqs(everyone, a -> clients.auditClient(port, a));
        for (final Agent a : everyone)
        {
            a.halt();
        }
        clients.barrier(everyone);
        return seqMismatches;
    }

    private List<AgentRecords> agentRecords()
    {
        final List<AgentRecords> records = new ArrayList<>();
        for (final Agent a : everyone)
        {
            records.add(a.records());
        }
        return records;
    }

    /** The run's checks: the invariants over the agents' records, money, events, portfolios, the restart. */
    private Map<String, Object> checks(final List<AgentRecords> records, final Analysis analysis,
        final Map<Agent, Portfolio> finals, final int seqMismatches, final WorkloadFigures workloads)
        throws InterruptedException
    {
        final Map<String, Object> checks = Invariants.fromRecords(records, analysis);
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
        return checks;
    }

    private static long waitForOpen(final ScaledClock clock) throws InterruptedException
    {
        while (clock.now() < clock.anchorMarketMs())
        {
            Thread.sleep(Math.max(1, Math.min(100, clock.wallTime(clock.anchorMarketMs()) - System.currentTimeMillis())));
        }
        return clock.now();
    }
}
