package io.gpux.sim;

import io.gpux.sim.agent.Agent;
import io.gpux.sim.agent.AgentParameters;
import io.gpux.sim.agent.Catalogue;
import io.gpux.sim.agent.GpuClass;
import io.gpux.sim.agent.Levers;
import io.gpux.sim.agent.Population;
import io.gpux.sim.agent.Renter;
import io.gpux.sim.market.MarketRules;
import io.gpux.sim.market.SimulatedAccess;
import io.gpux.sim.market.SimulatedExchange;
import io.gpux.sim.report.AgentRecords;
import io.gpux.sim.report.Analysis;
import io.gpux.sim.report.Invariants;
import io.gpux.sim.report.Json;
import io.gpux.sim.report.LeaseRecord;
import io.gpux.sim.report.Report;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code ./gpux sim}: the same agents as the demo, in one thread, against the matching engine driven
 * by a simulated clock ({@link SimulatedExchange}): no network, no waiting, a week of market in
 * minutes. Same seed, same report numbers (the {@code wall} section aside).
 */
public final class SimRun
{
    /** Market time at which runs open: Monday 2 June 2025, 00:00 UTC. */
    public static final long MARKET_EPOCH_MS = 1_748_822_400_000L;

    /**
     * @param seed           the run's seed.
     * @param agents         owners + market-makers + renters.
     * @param days           market days to run.
     * @param failureAccel   machine failure acceleration.
     * @param reclaimsPerDay owner reclaims per machine per day.
     * @param load           demand as a multiple of the fleet.
     * @param out            the report directory.
     * @param markets        the markets' rules (their levers included).
     * @param levers         the agents' levers.
     * @param openHour       the market opens this many hours after {@link #MARKET_EPOCH_MS} (its hour of day UTC, within
     *                       the first day).
     * @param steadyStart    renters open with the jobs the steady state has in flight (the demo's start).
     */
    public record Options(long seed, int agents, double days, double failureAccel, double reclaimsPerDay, double load, Path out,
        MarketRules markets, Levers levers, double openHour, boolean steadyStart)
    {
        /** With the default markets and none of the agents' levers. */
        public Options(final long seed, final int agents, final double days, final double failureAccel,
            final double reclaimsPerDay, final double load, final Path out)
        {
            this(seed, agents, days, failureAccel, reclaimsPerDay, load, out, MarketRules.SIM, Levers.NONE);
        }

        /** Opening at midnight UTC with fresh jobs. */
        public Options(final long seed, final int agents, final double days, final double failureAccel,
            final double reclaimsPerDay, final double load, final Path out, final MarketRules markets, final Levers levers)
        {
            this(seed, agents, days, failureAccel, reclaimsPerDay, load, out, markets, levers, 0, false);
        }
    }

    /** The market time at which a run opening {@code openHour} hours into the first day opens. */
    public static long openAt(final double openHour)
    {
        return MARKET_EPOCH_MS + Math.round(openHour * AgentParameters.HOUR);
    }

    private SimRun()
    {
    }

    public static RunOutcome run(final Options o, final PrintStream progressOut) throws IOException
    {
        final long wallStart = System.nanoTime();
        final MarketRules rules = o.markets();
        final long open = openAt(o.openHour());
        final long close = open + (long)(o.days() * AgentParameters.DAY);
        final Population population = Population.build(o.seed(), o.agents(), rules, open, o.days() * 24, o.failureAccel(),
            o.reclaimsPerDay(), o.load(), o.levers(), o.steadyStart());
        final List<String> symbols = new ArrayList<>();
        for (final GpuClass c : Catalogue.CLASSES)
        {
            symbols.add(c.symbol());
        }
        final SimulatedExchange exchange = new SimulatedExchange(open, rules, symbols);
        final List<SimulatedAccess> accesses = new ArrayList<>();
        for (final Agent agent : population.everyone())
        {
            final SimulatedAccess access = exchange.createAccount(agent.name(), Population.rolesOf(agent),
                Population.depositOf(agent));
            agent.attach(access);
            accesses.add(access);
        }
        exchange.startTicker();
        for (final Agent agent : population.everyone())
        {
            agent.start();
        }
        final Progress progress = progressOut == null ? null : new Progress(progressOut, population.live);
        for (long t = open; t < close; )
        {
            t = Math.min(close, t + AgentParameters.HOUR);
            exchange.runUntil(t);
            if (progress != null)
            {
                progress.show((t - open) / (double)(close - open), t, "");
            }
        }
        if (progress != null)
        {
            progress.done();
        }
        for (final Agent agent : population.everyone())
        {
            agent.stop();
        }
        exchange.runUntil(close + 2 * AgentParameters.HOUR);
        for (final Agent agent : population.everyone())
        {
            agent.halt();
        }
        exchange.runUntil(close + 3 * AgentParameters.HOUR);
        final double wallSeconds = (System.nanoTime() - wallStart) / 1e9;

        final List<AgentRecords> records = new ArrayList<>();
        for (final Agent agent : population.everyone())
        {
            records.add(agent.records());
        }
        final Analysis analysis = new Analysis(records, open, close, rules.graceMs());
        final Map<String, Object> checks = Invariants.fromRecords(records, analysis);
        long fees = 0;
        long openLeases = 0;
        for (final AgentRecords r : records)
        {
            for (final LeaseRecord l : r.ownerLeases.values())
            {
                fees += l.feeMicros;
                openLeases += l.started() && l.endMs < 0 ? 1 : 0;
            }
        }
        long balances = 0;
        for (final SimulatedAccess a : accesses)
        {
            balances += a.balance();
        }
        checks.put("moneyConserved", balances + fees == exchange.deposits() && exchange.engine().totalMoney() == exchange.deposits());
        checks.put("depositsMicros", exchange.deposits());
        checks.put("balancesMicros", balances);
        checks.put("feesMicros", fees);
        checks.put("noNegativeBalance", exchange.noNegativeBalance());
        checks.put("allLeasesEndedAfterWindDown", openLeases == 0);

        final Map<String, Object> run = runSection(o, population);
        final Map<String, Object> exchangeSection = Json.object();
        exchangeSection.put("commandsApplied", exchange.commandsApplied());
        exchangeSection.put("engineStateHash", Long.toHexString(exchange.engine().stateHash()));
        final Map<String, Object> wall = Json.object();
        wall.put("wallSeconds", Json.round(wallSeconds, 2));
        wall.put("commandsPerWallSecond", Json.round(exchange.commandsApplied() / Math.max(1e-9, wallSeconds), 0));
        wall.put("marketHoursPerWallSecond", Json.round((close - open) / 3_600_000.0 / Math.max(1e-9, wallSeconds), 1));
        wall.put("boundSolveSeconds", Json.round(analysis.boundSolveSeconds, 2));
        wall.put("reportDirectory", o.out().toAbsolutePath().toString());
        final Report report = new Report(analysis, run, checks, exchangeSection, wall);
        final Path html = report.write(o.out());
        final boolean ok = Invariants.allHold(checks);
        final List<String> extra = new ArrayList<>();
        extra.add(Report.line("engine", String.format(Locale.ROOT, "%,d commands in %.1f s of wall time (%,.0f/s); no network, "
            + "simulated clock", exchange.commandsApplied(), wallSeconds, exchange.commandsApplied() / Math.max(1e-9, wallSeconds))));
        extra.add(Report.line("timing", String.format(Locale.ROOT, "simulated clock; grace %s, heartbeats every %s, machine "
            + "offline after %s without one", Report.duration(rules.graceMs()), Report.duration(rules.heartbeatIntervalMs()),
            Report.duration(rules.heartbeatTimeoutMs()))));
        extra.add(Report.line("checks", (ok ? "all hold" : "FAILED") + ": money conserved " + yesNo(checks.get("moneyConserved"))
            + ", no negative balance " + yesNo(checks.get("noNegativeBalance")) + ", GPUs never oversubscribed "
            + yesNo(checks.get("gpusNeverOversubscribed")) + ", events gap-free " + yesNo(checks.get("accountEventsGapFree"))
            + ", full-grace notice before every interruption of a working machine "
            + yesNo(checks.get("everyInterruptionOfAWorkingMachineNoticedWithFullGrace"))));
        extra.add(Report.line("levers", leversLine(o.markets(), o.levers(), population)));
        extra.add(Report.line("report", html.toAbsolutePath().toString()));
        final String summary = report.summary(extra);
        return new RunOutcome(report, html, checks, ok, summary);
    }

    /** The run's levers, and the renters' preempting fills and cascades (fills of bids placed on a notice). */
    static String leversLine(final MarketRules markets, final Levers l, final Population p)
    {
        long preempting = 0;
        long cascading = 0;
        long moves = 0;
        for (final Renter r : p.renters)
        {
            preempting += r.preemptingFills();
            cascading += r.cascadingFills();
            moves += r.moves();
        }
        return String.format(Locale.ROOT, "preemption increment %d bps, fragments first %s, calm after notice %d min, clearing owners "
                + "%s, night batch %.2f, move when cheaper %d bps every %d min (%,d moves), hand over on notice %s, restart "
                + "%.1f min a lease; %,d preempting fills by renters, %,d of them cascades (%.0f %%)",
            markets.preemptIncrementBps(), markets.fragmentFirst() ? "on" : "off",
            l.calmAfterNoticeMs() / AgentParameters.MINUTE, l.clearingOwners() ? "on" : "off", l.nightBatch(),
            l.moveSavingBps(), l.moveEveryMs() / AgentParameters.MINUTE, moves, l.handOverOnNotice() ? "on" : "off",
            (double)l.restartMs() / AgentParameters.MINUTE,
            preempting, cascading, preempting == 0 ? 0.0 : 100.0 * cascading / preempting);
    }

    private static Map<String, Object> runSection(final Options o, final Population p)
    {
        final Map<String, Object> run = Json.object();
        run.put("mode", "sim");
        run.put("description", String.format(Locale.ROOT, "gpux sim: %d agents (%d owners, %d market-makers, %d renters), %d machines, "
                + "%d GPUs, %s of market from %s UTC, seed %d, simulated clock over the matching engine", o.agents(), p.owners.size(),
            p.marketMakers.size(), p.renters.size(), p.machineCount(), p.totalGpus(), marketSpan(o.days()),
            hourOfDay(o.openHour()), o.seed()));
        putPopulation(run, p, o.seed(), o.agents(), o.load(), o.failureAccel(), o.reclaimsPerDay());
        run.put("openHourUtc", o.openHour());
        run.put("steadyStart", o.steadyStart());
        return run;
    }

    /** The report's description of the agents and market rules, the same in both modes. */
    static void putPopulation(
        final Map<String, Object> run, final Population p, final Object seed, final Object agents, final Object load,
        final Object failureAccel, final Object reclaimsPerDay)
    {
        run.put("seed", seed);
        run.put("agents", agents);
        run.put("owners", p.owners.size());
        run.put("marketMakers", p.marketMakers.size());
        run.put("renters", p.renters.size());
        run.put("machines", p.machineCount());
        run.put("gpus", p.totalGpus());
        run.put("load", load);
        run.put("failureAcceleration", failureAccel);
        run.put("reclaimsPerMachineDay", reclaimsPerDay);
        final MarketRules r = p.params.rules();
        run.put("graceMs", r.graceMs());
        run.put("prepayMs", r.prepayMs());
        run.put("feeBps", r.feeBps());
        run.put("heartbeatIntervalMs", r.heartbeatIntervalMs());
        run.put("heartbeatTimeoutMs", r.heartbeatTimeoutMs());
        run.put("restartWindowMs", r.restartWindowMs());
    }

    /** A run's length in words: "4 hours", "1.5 days". */
    static String marketSpan(final double days)
    {
        return days < 1 ? plain(days * 24) + " hours" : plain(days) + (days == 1 ? " day" : " days");
    }

    private static String plain(final double x)
    {
        return String.format(Locale.ROOT, "%.2f", x).replaceAll("\\.?0+$", "");
    }

    /** An hour of the day as "07:30". */
    static String hourOfDay(final double hour)
    {
        final long minutes = Math.round(hour * 60);
        return String.format(Locale.ROOT, "%02d:%02d", minutes / 60, minutes % 60);
    }

    /** A check's outcome in words. */
    static String yesNo(final Object check)
    {
        return Boolean.TRUE.equals(check) ? "yes" : "NO";
    }
}
