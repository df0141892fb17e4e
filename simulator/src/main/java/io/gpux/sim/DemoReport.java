package io.gpux.sim;

import io.gpux.common.Money;
import io.gpux.sim.agent.Population;
import io.gpux.sim.market.LatencyRecorder;
import io.gpux.sim.market.MarketRules;
import io.gpux.sim.market.ScaledClock;
import io.gpux.sim.report.Analysis;
import io.gpux.sim.report.Invariants;
import io.gpux.sim.report.Json;
import io.gpux.sim.report.Labels;
import io.gpux.sim.report.Outage;
import io.gpux.sim.report.Report;
import io.gpux.sim.report.WorkloadFigures;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The demo's report from what a run measured: the run, exchange and wall-clock sections of the JSON
 * report, the HTML report with its charts, and the summary table's lines.
 */
final class DemoReport
{
    /** What a demo run measured, for its report. */
    record Measures(Analysis analysis, Map<String, Object> checks, WorkloadFigures workloads, ExchangeKill kill,
        long setupMillis, long runStartWall, long runWallMs, DemoClients.AnswerFigures answers, long journalBytes,
        long journalDiskBytes, Path work, int agents)
    {
    }

    private final DemoRun.Options o;
    private final MarketRules rules;
    private final Population population;
    private final ScaledClock clock;
    private final LatencyRecorder latency;

    DemoReport(final DemoRun.Options o, final MarketRules rules, final Population population, final ScaledClock clock,
        final LatencyRecorder latency)
    {
        this.o = o;
        this.rules = rules;
        this.population = population;
        this.clock = clock;
        this.latency = latency;
    }

    /** Writes the report to the run's directory and returns the run's outcome with its summary. */
    RunOutcome write(final Measures m, final PrintStream err) throws IOException
    {
        final Histogram h = latency.all().copy();
        final Histogram steady = latency.afterOpening().copy();
        final long commands = population.live.commands.sum();
        final Report report = new Report(m.analysis(), runSection(), m.checks(), exchangeSection(m), wallSection(m, commands, h, steady))
            .workloads(m.workloads());
        final ExchangeKill kill = m.kill();
        if (kill != null)
        {
            report.outage(new Outage(kill.killMarketMs, kill.killMarketMs + kill.restartMillis * o.scale()));
        }
        err.println("gpux demo: writing the report");
        final Path html = report.write(o.out());
        final boolean ok = Invariants.allHold(m.checks());
        final List<String> extra = summaryLines(m, commands, h, steady, ok);
        extra.add(Report.line("report", html.toAbsolutePath().toString()));
        return new RunOutcome(report, html, m.checks(), ok, report.summary(extra));
    }

    private Map<String, Object> runSection()
    {
        final Population p = population;
        final Map<String, Object> run = Json.object();
        run.put("mode", "demo");
        run.put("description", String.format(Locale.ROOT, "gpux demo: %d agents (%d owners, %d market-makers, %d renters), %d machines, "
                + "%d GPUs, %.0f s of wall time with the exchange's clock x%d from %s UTC, seed %d, all through GpuxClient over the "
                + "real gateway%s", o.agents(), p.owners.size(), p.marketMakers.size(), p.renters.size(), p.machineCount(),
            p.totalGpus(), o.durationSeconds(), o.scale(), SimRun.hourOfDay(o.openHour()), o.seed(),
            o.killExchange() ? ", exchange SIGKILLed halfway and restarted" : ""));
        SimRun.putPopulation(run, p, o.seed(), o.agents(), o.load(), o.failureAccel(), o.reclaimsPerDay());
        run.put("clockScale", o.scale());
        run.put("openHourUtc", o.openHour());
        run.put("clockAnchor", clock.anchorArgument());
        run.put("durationWallSeconds", o.durationSeconds());
        run.put("killExchange", o.killExchange());
        return run;
    }

    private Map<String, Object> exchangeSection(final Measures m)
    {
        final Map<String, Object> exchange = Json.object();
        exchange.put("exchangeProcess", "io.gpux.gateway.ServerMain in a child JVM, loopback, clock x" + o.scale());
        exchange.put("commandsJournaled", m.answers().maxCommandSeq());
        exchange.put("journalFileBytes", m.journalBytes());
        exchange.put("journalDiskBytes", m.journalDiskBytes());
        return exchange;
    }

    private Map<String, Object> wallSection(final Measures m, final long commands, final Histogram h, final Histogram steady)
    {
        final Map<String, Object> wall = Json.object();
        wall.put("setupSeconds", Json.round(m.setupMillis() / 1000.0, 2));
        wall.put("marketWallSeconds", Json.round(m.runWallMs() / 1000.0, 2));
        wall.put("commandsSentByAgents", commands);
        wall.put("commandsPerWallSecond", Json.round(commands * 1000.0 / Math.max(1, m.runWallMs()), 0));
        final Map<String, Object> lat = Json.object();
        lat.put("what", "submit of a bid or ask -> its first Fill on the client, orders that filled on entry, through the gateway");
        lat.put("all", latencyJson(h));
        lat.put("afterTheOpeningBurst", latencyJson(steady));
        wall.put("orderToFillLatency", lat);
        wall.put("listenerErrors", population.live.listenerErrors.sum());
        final ExchangeKill kill = m.kill();
        if (kill != null)
        {
            final Map<String, Object> k = Json.object();
            k.put("killedAtMarket", Instant.ofEpochMilli(kill.killMarketMs).toString());
            k.put("killedAtWallSecond", Json.round((kill.killWallMs - m.runStartWall()) / 1000.0, 2));
            k.put("restartSeconds", Json.round(kill.restartMillis / 1000.0, 2));
            k.put("allReconnectedSeconds", Json.round(kill.reconnectMillis / 1000.0, 2));
            k.put("clientsReconnected", kill.reconnected);
            k.put("answersSettledFromEventsAfterReconnect", m.answers().settledAfterReconnect());
            wall.put("exchangeKill", k);
        }
        wall.put("boundSolveSeconds", Json.round(m.analysis().boundSolveSeconds, 2));
        wall.put("reportDirectory", o.out().toAbsolutePath().toString());
        wall.put("exchangeWorkDirectory", m.work().toString());
        return wall;
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

    private List<String> summaryLines(final Measures m, final long commands, final Histogram h, final Histogram steady,
        final boolean ok)
    {
        final Map<String, Object> checks = m.checks();
        final Analysis analysis = m.analysis();
        final List<String> extra = new ArrayList<>();
        extra.add(Report.line("exchange", String.format(Locale.ROOT, "%,d commands sent by the agents in %.1f s (%,.0f/s); "
                + "%,d journaled; journals %s on disk (%s of pre-allocated files)", commands, m.runWallMs() / 1000.0,
            commands * 1000.0 / Math.max(1, m.runWallMs()), m.answers().maxCommandSeq(), DemoFiles.bytes(m.journalDiskBytes()),
            DemoFiles.bytes(m.journalBytes()))));
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
        extra.add(Report.line("levers", SimRun.leversLine(rules, o.levers(), population)));
        final ExchangeKill kill = m.kill();
        if (kill != null)
        {
            extra.add(Report.line("exchange kill", String.format(Locale.ROOT, "SIGKILL at %.1f s (market %s); restarted on the same "
                    + "journals and clock anchor in %.1f s; %d/%d clients reconnected and resumed in %.1f s; %d answers "
                    + "settled from replayed events; machines online at the crash had %s of market time (%.0f s of wall "
                    + "time; heartbeat timeout %s) to heartbeat again; %d leases in the run ended MACHINE_OFFLINE on "
                    + "machines that had not failed",
                (kill.killWallMs - m.runStartWall()) / 1000.0, Instant.ofEpochMilli(kill.killMarketMs),
                kill.restartMillis / 1000.0, kill.reconnected, m.agents(), kill.reconnectMillis / 1000.0,
                m.answers().settledAfterReconnect(), Report.duration(rules.restartWindowMs()),
                rules.restartWindowMs() / (double)o.scale() / 1000.0, Report.duration(rules.heartbeatTimeoutMs()),
                analysis.offlineHeartbeatLapse)));
        }
        if (m.workloads() != null)
        {
            extra.addAll(m.workloads().summaryLines());
        }
        extra.add(Report.line("events", String.format(Locale.ROOT, "%,d account events on %d accounts, %s; every client's last "
                + "seq equals the exchange's: %s", analysis.events, analysis.accounts,
            analysis.seqBreaks == 0 ? "gap-free (none lost, none twice)" : analysis.seqBreaks + " GAPS",
            SimRun.yesNo(checks.get("lastSeqMatchesExchange")))));
        extra.add(Report.line("money", String.format(Locale.ROOT, "%s: deposits $%s = balances $%s + exchange fees $%s; "
                + "no negative balance: %s", Boolean.TRUE.equals(checks.get("moneyConserved")) ? "conserved" : "NOT CONSERVED",
            Money.formatMoney((Long)checks.get("depositsMicros")), Money.formatMoney((Long)checks.get("balancesMicros")),
            Money.formatMoney((Long)checks.get("feesMicros")), SimRun.yesNo(checks.get("noNegativeBalance")))));
        extra.add(Report.line("checks", ok ? "all hold (GPUs never oversubscribed, a full-grace notice before every "
            + "interruption of a working machine, events gap-free, money conserved)" : "FAILED: " + failed(checks)));
        return extra;
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
        if (checks.get("leftOpenAfterWindDown") != null)
        {
            bad.add("left open: " + checks.get("leftOpenAfterWindDown"));
        }
        return String.join(", ", bad);
    }
}
