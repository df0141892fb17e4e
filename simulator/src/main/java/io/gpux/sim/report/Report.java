package io.gpux.sim.report;

import io.gpux.common.Money;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The run's report: {@code report.json} (every number), {@code report.html} (tables and charts), the
 * charts as PNG, and the summary table printed at the end of a run.
 *
 * <p>The JSON's {@code wall} section holds what depends on the machine and the moment (wall-clock
 * durations, rates, latencies, paths); everything else is a function of the agents' records, so a
 * simulated-clock run gives the same numbers for the same seed.
 */
public final class Report
{
    private final Analysis a;
    private final Map<String, Object> run;
    private final Map<String, Object> checks;
    private final Map<String, Object> exchange;
    private final Map<String, Object> wall;
    private WorkloadFigures workloads;
    private Outage outage;

    /**
     * @param run      how the run was set up (deterministic).
     * @param checks   invariants checked by the harness (deterministic for a simulated run).
     * @param exchange exchange-side figures that do not depend on the wall clock (commands, journal).
     * @param wall     wall-clock figures: durations, rates, latency, paths.
     */
    public Report(final Analysis a, final Map<String, Object> run, final Map<String, Object> checks,
        final Map<String, Object> exchange, final Map<String, Object> wall)
    {
        this.a = a;
        this.run = run;
        this.checks = checks;
        this.exchange = exchange;
        this.wall = wall;
    }

    public Analysis analysis()
    {
        return a;
    }

    /** Adds the workload lane's figures (report.json {@code workloads}, a section of report.html). */
    public Report workloads(final WorkloadFigures figures)
    {
        this.workloads = figures;
        return this;
    }

    /** Marks the window in which the exchange was down on every time chart, and names it in report.html. */
    public Report outage(final Outage window)
    {
        this.outage = window;
        return this;
    }

    /** The exchange's outage; null when it never went down. */
    public Outage outage()
    {
        return outage;
    }

    /** The workload lane's figures; null when the run had none. */
    public WorkloadFigures workloads()
    {
        return workloads;
    }

    private static Object r(final double v, final int decimals)
    {
        return Json.round(v, decimals);
    }

    private static String time(final long ms)
    {
        return Instant.ofEpochMilli(ms).toString();
    }

    public Map<String, Object> toJson()
    {
        final Map<String, Object> root = Json.object();
        final Map<String, Object> runOut = new LinkedHashMap<>(run);
        runOut.put("marketOpen", time(a.openMs));
        runOut.put("marketClose", time(a.closeMs));
        runOut.put("marketHours", r((a.closeMs - a.openMs) / 3_600_000.0, 3));
        root.put("run", runOut);

        final Map<String, Object> overall = Json.object();
        figures(overall, a.all);
        overall.put("efficiencyMethod", EFFICIENCY_METHOD);
        overall.put("utilizationMethod", UTILIZATION_METHOD);
        overall.put("vwapMethod", "sum of price x GPU-hours over leases / leased GPU-hours");
        root.put("overall", overall);

        final List<Object> markets = new ArrayList<>();
        for (final Analysis.MarketFigures f : a.markets.values())
        {
            final Map<String, Object> m = Json.object();
            m.put("market", f.market);
            figures(m, f);
            m.put("minPrice", r(f.minPrice, 4));
            m.put("maxPrice", r(f.maxPrice, 4));
            m.put("peerReference", f.peerPrice);
            m.put("onDemandReference", f.onDemandPrice);
            m.put("vwapOverPeer", r(f.vwap / f.peerPrice, 4));
            m.put("spotDiscount", r(f.spotDiscount(), 4));
            markets.add(m);
        }
        root.put("markets", markets);

        final Map<String, Object> p = Json.object();
        p.put("leases", a.leases);
        p.put("leasesStarted", a.leasesStarted);
        p.put("notices", a.notices);
        p.put("endReasons", a.endReasons);
        p.put("interrupted", a.interrupted);
        p.put("interruptedWithNotice", a.interruptedWithNotice);
        p.put("interruptedWithoutNotice", a.withoutNotice);
        p.put("withoutNoticeMachineFailed", a.offlineMachineFailed);
        p.put("withoutNoticeHeartbeatLapse", a.offlineHeartbeatLapse);
        p.put("graceMs", a.graceMs);
        p.put("noticeCheckFailures", a.noticeCheckFailures);
        p.put("noticedLessThanGrace", a.noticeShort);
        p.put("workLostGpuHours", r(a.lostGpuHours + a.deadGpuHours, 3));
        p.put("workLostSinceCheckpointGpuHours", r(a.lostGpuHours, 3));
        p.put("deadMachineGpuHours", r(a.deadGpuHours, 3));
        p.put("restartGpuHours", r(a.restartGpuHours, 3));
        p.put("workSavedByNoticeGpuHours", r(a.savedGpuHours, 3));
        p.put("machineFailures", a.machineFailures);
        p.put("machineOfflineWithoutFailure", a.machineOfflineWithoutFailure);
        p.put("ownerReclaims", a.reclaims);
        root.put("preemptions", p);

        final Map<String, Object> j = Json.object();
        j.put("jobs", a.jobs);
        j.put("outcomes", a.jobOutcomes);
        j.put("jobsThatGotALease", a.jobsLeased);
        final Map<String, Object> wait = Json.object();
        wait.put("p50", r(a.waitP50Ms / 60_000.0, 2));
        wait.put("p90", r(a.waitP90Ms / 60_000.0, 2));
        wait.put("p99", r(a.waitP99Ms / 60_000.0, 2));
        j.put("bidToLeaseStartMarketMinutes", wait);
        j.put("workDoneGpuHours", r(a.workDoneGpuHours, 2));
        root.put("jobs", j);

        final Map<String, Object> series = Json.object();
        series.put("bucketMinutes", a.bucketMs / 60_000);
        final Map<String, Object> vwap = Json.object();
        a.vwapSeries.forEach((k, v) -> vwap.put(k, list(v, 4)));
        series.put("vwap", vwap);
        final Map<String, Object> util = Json.object();
        a.utilizationSeries.forEach((k, v) -> util.put(k, list(v, 4)));
        util.put("all", list(a.utilizationAll, 4));
        series.put("utilization", util);
        final Map<String, Object> pre = Json.object();
        a.preemptionSeries.forEach((k, v) ->
        {
            final List<Object> l = new ArrayList<>();
            for (final long c : v)
            {
                l.add(c);
            }
            pre.put(k, l);
        });
        series.put("preemptions", pre);
        root.put("series", series);

        final Map<String, Object> events = Json.object();
        events.put("accounts", a.accounts);
        events.put("accountEvents", a.events);
        events.put("seqBreaks", a.seqBreaks);
        root.put("events", events);
        if (workloads != null)
        {
            root.put("workloads", workloads.toJson());
        }
        root.put("checks", checks);
        root.put("exchange", exchange);
        root.put("wall", wall);
        return root;
    }

    static final String EFFICIENCY_METHOD = "(value of the work done - owners' cost of the leased GPU-hours) / an upper bound: "
        + "per market, the smaller of two upper bounds on the surplus of any allocation that keeps each job to its window "
        + "(arrival to give-up time plus its run, or its real end if served longer), work, value and GPUs at once (a gang "
        + "job on machines with room for all its GPUs) on the online GPU-hours of the fleet at their owners' costs: a "
        + "linear program over at most 24 time slots of whole hours (simplex method, the ojalgo library; jobs pooled by "
        + "value tier and window end, values rounded up and costs down by at most 5 %), and the Lagrangian dual of the same "
        + "program over hour slots with every job and machine on its own (subgradient steps); see simulator/README.md";
    static final String UTILIZATION_METHOD = "GPU-hours of leases that did work kept by a job / GPU-hours the whole fleet was "
        + "online; offeredUtilization: the same over GPU-hours online with an open ask (plus leased time outside one)";

    private static void figures(final Map<String, Object> m, final Analysis.MarketFigures f)
    {
        m.put("machines", f.machines);
        m.put("gpus", f.gpus);
        m.put("efficiency", r(f.efficiency(), 4));
        m.put("realizedSurplus", r(f.realizedSurplus(), 2));
        m.put("workValue", r(f.workValue, 2));
        m.put("leasedCost", r(f.leasedCost, 2));
        m.put("surplusBound", r(f.surplusBound, 2));
        m.put("programBound", r(f.programBound, 2));
        m.put("dualBound", r(f.dualBound, 2));
        m.put("plannerReplanning", r(f.plannerReplanning, 2));
        m.put("plannerKeeping", r(f.plannerKeeping, 2));
        m.put("utilization", r(f.utilization(), 4));
        m.put("offeredUtilization", r(f.offeredUtilization(), 4));
        m.put("usefulGpuHours", r(f.usefulGpuHours, 2));
        m.put("leasedGpuHours", r(f.leasedGpuHours, 2));
        m.put("onlineGpuHours", r(f.onlineGpuHours, 2));
        m.put("offeredGpuHours", r(f.offeredGpuHours, 2));
        m.put("fills", f.fills);
        m.put("gpusTraded", f.gpusTraded);
        m.put("vwapPerGpuHour", r(f.vwap, 4));
    }

    private static List<Object> list(final double[] v, final int decimals)
    {
        final List<Object> l = new ArrayList<>();
        for (final double d : v)
        {
            l.add(r(d, decimals));
        }
        return l;
    }

    /** Writes report.json, the records (CSV), the charts and report.html into {@code dir}; returns report.html's path. */
    public Path write(final Path dir) throws IOException
    {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("report.json"), Json.write(toJson()), StandardCharsets.UTF_8);
        Export.write(a, dir);
        final List<String> charts = Charts.write(a, outage, dir);
        final Path html = dir.resolve("report.html");
        Files.writeString(html, html(charts), StandardCharsets.UTF_8);
        return html;
    }

    // ------------------------------------------------------------------------------------------

    private static String pct(final double v)
    {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.1f %%", v * 100);
    }

    private static String money(final double v)
    {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.3f", v);
    }

    private static String num(final long v)
    {
        return String.format(Locale.ROOT, "%,d", v);
    }

    public static String duration(final long ms)
    {
        if (ms < 0)
        {
            return "-";
        }
        if (ms < 60_000)
        {
            return String.format(Locale.ROOT, "%.0f s", ms / 1000.0);
        }
        if (ms < 3_600_000)
        {
            return String.format(Locale.ROOT, "%.0f min", ms / 60_000.0);
        }
        return String.format(Locale.ROOT, "%.1f h", ms / 3_600_000.0);
    }

    private String html(final List<String> charts)
    {
        final StringBuilder h = new StringBuilder(32_768);
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>gpux market report</title>\n")
            .append("<style>body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222}")
            .append("table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 10px;text-align:right}")
            .append("th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}img{max-width:100%;border:1px solid #eee}")
            .append(".ok{color:#080}.bad{color:#b00}code{background:#f5f5f5;padding:1px 4px}dt{font-weight:bold;margin-top:.6em}")
            .append("</style></head><body>\n");
        h.append("<h1>gpux market report</h1>\n<p>").append(escape(String.valueOf(run.get("description")))).append("</p>\n");
        h.append("<p>Market time ").append(time(a.openMs)).append(" to ").append(time(a.closeMs)).append(" (")
            .append(String.format(Locale.ROOT, "%.1f", (a.closeMs - a.openMs) / 3_600_000.0)).append(" hours).</p>\n");
        if (outage != null)
        {
            h.append("<p><b>Exchange outage</b>: the exchange was down from ").append(time(outage.fromMs())).append(" to ")
                .append(time(outage.toMs())).append(" market time (").append(duration(outage.toMs() - outage.fromMs()))
                .append("), shaded and labelled \"").append(Outage.LABEL).append("\" on every chart.</p>\n");
        }

        h.append("<h2>Markets</h2>\n<table><tr><th>Market</th><th>Machines</th><th>GPUs</th><th>GPU utilization</th><th>Fills</th>")
            .append("<th>GPUs traded</th><th>VWAP ($/GPU-hour)</th><th>Peer reference</th><th>On-demand cloud</th>")
            .append("<th>Spot discount</th><th>Market efficiency</th></tr>\n");
        for (final Analysis.MarketFigures f : a.markets.values())
        {
            h.append("<tr><td>").append(f.market).append("</td><td>").append(f.machines).append("</td><td>").append(f.gpus)
                .append("</td><td>").append(pct(f.utilization())).append("</td><td>").append(num(f.fills)).append("</td><td>")
                .append(num(f.gpusTraded)).append("</td><td>").append(money(f.vwap)).append("</td><td>").append(money(f.peerPrice))
                .append("</td><td>").append(money(f.onDemandPrice)).append("</td><td>").append(pct(f.spotDiscount()))
                .append("</td><td>").append(pct(f.efficiency())).append("</td></tr>\n");
        }
        h.append("<tr><th>All markets</th><th>").append(a.all.machines).append("</th><th>").append(a.all.gpus).append("</th><th>")
            .append(pct(a.all.utilization())).append("</th><th>").append(num(a.all.fills)).append("</th><th>")
            .append(num(a.all.gpusTraded)).append("</th><th>").append(money(a.all.vwap)).append("</th><th></th><th></th><th></th><th>")
            .append(pct(a.all.efficiency())).append("</th></tr></table>\n");
        h.append("<p><b>Market efficiency</b> ").append(pct(a.all.efficiency())).append(": realized surplus $")
            .append(String.format(Locale.ROOT, "%,.0f", a.all.realizedSurplus())).append(" (value of the work done $")
            .append(String.format(Locale.ROOT, "%,.0f", a.all.workValue)).append(" - cost of the leased GPU-hours $")
            .append(String.format(Locale.ROOT, "%,.0f", a.all.leasedCost)).append(") of an upper bound $")
            .append(String.format(Locale.ROOT, "%,.0f", a.all.surplusBound)).append(". Method: ").append(escape(EFFICIENCY_METHOD))
            .append(".</p>\n<p><b>GPU utilization</b> ").append(pct(a.all.utilization())).append(" of the online fleet (")
            .append(String.format(Locale.ROOT, "%,.0f of %,.0f GPU-hours", a.all.usefulGpuHours, a.all.onlineGpuHours))
            .append("), ").append(pct(a.all.offeredUtilization())).append(" of the offered GPU-hours (")
            .append(String.format(Locale.ROOT, "%,.0f", a.all.offeredGpuHours)).append("); ")
            .append(String.format(Locale.ROOT, "%,.0f", a.all.leasedGpuHours)).append(" GPU-hours were leased. ")
            .append("The per-job, per-lease and per-machine records behind every figure are in jobs.csv, leases.csv and ")
            .append("machines.csv. The terms are defined under <a href=\"#terms\">Terms</a> at the end.</p>\n");

        for (final String chart : charts)
        {
            final String title = chartTitle(chart);
            h.append("<h3>").append(title).append("</h3>\n<img src=\"").append(chart).append("\" alt=\"")
                .append(title).append(outage == null ? "" : " (the exchange outage shaded)").append("\">\n");
        }

        h.append("<h2>Preemptions</h2>\n<table>");
        row(h, "leases started", num(a.leasesStarted));
        row(h, "notices", Labels.counts(a.notices));
        row(h, "lease ends", Labels.counts(a.endReasons));
        row(h, "interrupted (ended by anything but the renter or expiry)", num(a.interrupted));
        row(h, "&nbsp;&nbsp;with a notice first", num(a.interruptedWithNotice));
        row(h, "&nbsp;&nbsp;without notice", Labels.counts(a.withoutNotice));
        row(h, "&nbsp;&nbsp;&nbsp;&nbsp;machine failed", num(a.offlineMachineFailed));
        row(h, "&nbsp;&nbsp;&nbsp;&nbsp;heartbeats late (not a failure)", num(a.offlineHeartbeatLapse));
        row(h, "notice check (full grace of " + duration(a.graceMs) + " before every interruption of a working machine)",
            a.noticeCheckFailures == 0 ? "holds" : num(a.noticeCheckFailures) + " FAILURES (" + num(a.noticeShort)
                + " noticed late)");
        row(h, "work saved by checkpointing on notice", String.format(Locale.ROOT, "%,.1f GPU-hours", a.savedGpuHours));
        row(h, "work lost", String.format(Locale.ROOT, "%,.1f GPU-hours (%,.1f since the last checkpoint, %,.1f on broken "
            + "machines before the exchange noticed)", a.lostGpuHours + a.deadGpuHours, a.lostGpuHours, a.deadGpuHours));
        row(h, "restarting (new leases before their jobs worked)",
            String.format(Locale.ROOT, "%,.1f GPU-hours", a.restartGpuHours));
        row(h, "machine failures / owner reclaims", num(a.machineFailures) + " / " + num(a.reclaims));
        h.append("</table>\n<h2>Jobs</h2>\n<table>");
        row(h, "jobs", num(a.jobs));
        row(h, "outcomes", Labels.counts(a.jobOutcomes));
        row(h, "time from bid to first lease (market time) p50 / p90 / p99",
            duration(a.waitP50Ms) + " / " + duration(a.waitP90Ms) + " / " + duration(a.waitP99Ms));
        row(h, "work done", String.format(Locale.ROOT, "%,.1f GPU-hours", a.workDoneGpuHours));
        h.append("</table>\n");
        if (workloads != null)
        {
            h.append(workloads.html());
        }
        h.append("<h2>Exchange</h2>\n<table>");
        exchange.forEach((k, v) -> row(h, escape(Labels.label(k)), escape(Labels.value(v))));
        wall.forEach((k, v) -> row(h, escape(Labels.label(k)), escape(Labels.value(v))));
        h.append("</table>\n<h2>Checks</h2>\n<table>");
        checks.forEach((k, v) -> row(h, escape(Labels.label(k)), (v instanceof Boolean b ? (b ? "<span class=ok>yes</span>" :
            "<span class=bad>NO</span>") : escape(k.endsWith("Micros") && v instanceof Number n
                ? io.gpux.common.Money.formatMoney(n.longValue()) : Labels.value(v)))));
        h.append("</table>\n<h2>Set-up</h2>\n<table>");
        run.forEach((k, v) -> row(h, escape(Labels.label(k)), escape(Labels.value(v))));
        h.append("</table>\n");
        glossary(h);
        h.append("<p>Every number is in <code>report.json</code>, under its own key.</p>\n</body></html>\n");
        return h.toString();
    }

    /** Every term the report uses, defined once (the simulator's README has the same list). */
    static final List<String[]> GLOSSARY = List.of(
        new String[] {"Market", "One GPU class (H100, A100-80G, ...): its own order book, its own prices."},
        new String[] {"Market time", "The exchange's clock. The demo runs it faster than the wall clock (x240 by default: an "
            + "hour of market in 15 s of wall time); the simulation runs it as fast as the engine goes."},
        new String[] {"Fill", "A trade: a bid matched with an ask, for some GPUs at one price; it starts a lease."},
        new String[] {"VWAP", "Volume-weighted average price per GPU-hour: the sum of price times GPU-hours over every lease, "
            + "divided by the GPU-hours leased; per market, overall, and per time bucket on the charts."},
        new String[] {"Peer reference", "The price a GPU class rents for on today's peer-to-peer (\"community cloud\") "
            + "markets, a rounded 2025 figure fixed per class; owners' costs and renters' values are drawn around it."},
        new String[] {"On-demand cloud", "The price of the same GPU from a large cloud provider, on demand: what a renter "
            + "would otherwise pay."},
        new String[] {"Spot discount", "1 - VWAP / on-demand cloud price: how much cheaper the spot market was."},
        new String[] {"GPU utilization", "GPU-hours of leases that did work a job kept, over the GPU-hours the whole fleet "
            + "was online; the offered figure divides by the GPU-hours online with an open ask instead."},
        new String[] {"Market efficiency", "The surplus the market realized (the value of the work done minus the owners' "
            + "cost of every leased GPU-hour) over an upper bound on the surplus any allocation could have realized (linear "
            + "programs over time slots with each job's window, work, value and gang size)."},
        new String[] {"Without foresight", "References, not bounds: the surplus of a central planner that learns each job "
            + "(its value, work, GPUs and window) when it arrives and every machine's cost, and every 5 minutes serves the jobs "
            + "present, most valuable first, on the cheapest machines below their value; re-planning moves work between machines "
            + "freely, keeping leaves it where it started and takes GPUs only from jobs worth less. Their gap to the bound is "
            + "what foresight is worth; the market's gap to them is what allocating by prices, grace periods and checkpoints "
            + "costs."},
        new String[] {"Book depth", "The GPUs offered (asks) or wanted (bids) on the best 20 price levels of a market's book."},
        new String[] {"Preemption notice", "Warning that a lease will end after the grace period: a higher bid took its GPUs "
            + "(outbid), the owner took the machine back (owner reclaim), or the renter ran out of money (insufficient funds)."},
        new String[] {"Interrupted", "A lease ended by anything but its renter or its expiry. With a notice first the job "
            + "checkpoints and keeps working until the notice takes effect; without one (only when the machine goes offline) "
            + "it loses the work since its last checkpoint."},
        new String[] {"Work saved", "GPU-hours of work that a checkpoint taken on a notice kept from being lost."},
        new String[] {"Work lost", "GPU-hours of work since the last checkpoint, lost when a lease stopped working, plus the "
            + "GPU-hours leased on a broken machine before the exchange took it offline."},
        new String[] {"Restarting", "With --restart-minutes, the GPU-hours of each new lease a job spends loading itself "
            + "and its checkpoint before it works (its first lease, after a preemption, after a move): paid for, no work."},
        new String[] {"Notice check", "Every lease ended by anything but its renter or its expiry, on a machine that had not "
            + "broken, had a preemption notice the market's full grace period before its end."},
        new String[] {"Bid to lease", "Market time from a job's first bid to its first lease (p50 / p90 / p99: the 50th, 90th "
            + "and 99th percentile)."},
        new String[] {"Readiness", "In the workload lane, the wall time from the renter hearing its lease start to it "
            + "hearing the workload RUNNING on the owner's machine."},
        new String[] {"Order-to-fill latency", "Wall time from a client submitting an order to it receiving the order's "
            + "first fill, for orders that filled on entry, through the gateway."},
        new String[] {"Exchange down", "In a demo with --kill-exchange, the market time from the exchange being killed to "
            + "it running again on the same journals; shaded on every chart."});

    private static void glossary(final StringBuilder h)
    {
        h.append("<h2 id=\"terms\">Terms</h2>\n<dl>\n");
        for (final String[] term : GLOSSARY)
        {
            h.append("<dt>").append(escape(term[0])).append("</dt><dd>").append(escape(term[1])).append("</dd>\n");
        }
        h.append("</dl>\n");
    }

    private static String chartTitle(final String file)
    {
        return switch (file)
        {
            case "prices.png" -> "Clearing prices per market (fills, VWAP, peer reference and on-demand cloud prices)";
            case "utilization.png" -> "GPU utilization over time";
            case "depth.png" -> "Book depth over time";
            case "preemptions.png" -> "Preemptions over time";
            default -> file;
        };
    }

    static void row(final StringBuilder h, final String k, final String v)
    {
        h.append("<tr><td>").append(k).append("</td><td>").append(v).append("</td></tr>\n");
    }

    static String escape(final String s)
    {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    // ------------------------------------------------------------------------------------------

    /** The summary table printed at the end of a run. */
    public String summary(final List<String> extraLines)
    {
        final StringBuilder s = new StringBuilder(4096);
        s.append('\n').append(run.get("description")).append('\n');
        s.append(String.format(Locale.ROOT, "market time %s to %s (%.1f hours)%n", time(a.openMs), time(a.closeMs),
            (a.closeMs - a.openMs) / 3_600_000.0));
        if (outage != null)
        {
            s.append(String.format(Locale.ROOT, "exchange down %s to %s market time (%s), shaded on every chart%n",
                time(outage.fromMs()), time(outage.toMs()), duration(outage.toMs() - outage.fromMs())));
        }
        s.append(String.format(Locale.ROOT, "%n%-15s %5s %11s %8s %8s %9s %9s %9s %9s %10s%n", "", "", "GPU", "",
            "GPUs", "VWAP", "peer", "on-demand", "spot", "market"));
        s.append(String.format(Locale.ROOT, "%-15s %5s %11s %8s %8s %9s %9s %9s %9s %10s%n", "market", "GPUs", "utilization",
            "fills", "traded", "$/GPU-h", "reference", "cloud", "discount", "efficiency"));
        for (final Analysis.MarketFigures f : a.markets.values())
        {
            s.append(String.format(Locale.ROOT, "%-15s %5d %11s %8d %8d %9s %9.2f %9.2f %9s %10s%n", f.market, f.gpus,
                pct(f.utilization()), f.fills, f.gpusTraded, money(f.vwap), f.peerPrice, f.onDemandPrice, pct(f.spotDiscount()),
                pct(f.efficiency())));
        }
        s.append(String.format(Locale.ROOT, "%-15s %5d %11s %8d %8d %9s %9s %9s %9s %10s%n%n", "all markets", a.all.gpus,
            pct(a.all.utilization()), a.all.fills, a.all.gpusTraded, money(a.all.vwap), "", "", "", pct(a.all.efficiency())));
        line(s, "market efficiency", String.format(Locale.ROOT, "%s (work worth $%,.0f - leased GPU-hours costing $%,.0f = "
            + "$%,.0f, of an upper bound $%,.0f: linear program $%,.0f, hourly dual $%,.0f)", pct(a.all.efficiency()),
            a.all.workValue, a.all.leasedCost, a.all.realizedSurplus(), a.all.surplusBound, a.all.programBound, a.all.dualBound));
        line(s, "without foresight", String.format(Locale.ROOT, "a planner who knows each job's value on its arrival gets %s of "
            + "the bound re-planning every 5 minutes, %s keeping work where it started (references, not bounds)",
            pct(a.all.surplusBound <= 0 ? Double.NaN : a.all.plannerReplanning / a.all.surplusBound),
            pct(a.all.surplusBound <= 0 ? Double.NaN : a.all.plannerKeeping / a.all.surplusBound)));
        line(s, "GPU utilization", String.format(Locale.ROOT, "%s of the online fleet (%,.0f GPU-hours did work of %,.0f online); "
            + "%s of the offered (%,.0f); %,.0f leased", pct(a.all.utilization()), a.all.usefulGpuHours, a.all.onlineGpuHours,
            pct(a.all.offeredUtilization()), a.all.offeredGpuHours, a.all.leasedGpuHours));
        line(s, "leases", String.format(Locale.ROOT, "%,d started; notices: %s", a.leasesStarted, Labels.counts(a.notices)));
        line(s, "preemptions", String.format(Locale.ROOT, "%,d interrupted, %,d with notice first; without notice: %s "
                + "(machine failed %d, heartbeats late %d)", a.interrupted, a.interruptedWithNotice, Labels.counts(a.withoutNotice),
            a.offlineMachineFailed, a.offlineHeartbeatLapse));
        line(s, "notice check", a.noticeCheckFailures == 0
            ? String.format(Locale.ROOT, "holds: every interruption of a working machine noticed %s ahead", duration(a.graceMs))
            : String.format(Locale.ROOT, "FAILED: %,d interruptions of working machines without the full %s notice (%,d noticed "
                + "late, %,d heartbeats late)", a.noticeCheckFailures, duration(a.graceMs), a.noticeShort, a.offlineHeartbeatLapse));
        line(s, "work", String.format(Locale.ROOT, "%,.1f GPU-hours done; %,.1f saved by checkpoint on notice; %,.1f lost "
            + "(%,.1f since checkpoints, %,.1f on broken machines)%s", a.workDoneGpuHours, a.savedGpuHours,
            a.lostGpuHours + a.deadGpuHours, a.lostGpuHours, a.deadGpuHours, a.restartGpuHours > 0
                ? String.format(Locale.ROOT, "; %,.1f restarting on new leases", a.restartGpuHours) : ""));
        line(s, "jobs", String.format(Locale.ROOT, "%,d: %s", a.jobs, Labels.counts(a.jobOutcomes)));
        line(s, "bid to lease", String.format(Locale.ROOT, "p50 %s, p90 %s, p99 %s (market time)", duration(a.waitP50Ms),
            duration(a.waitP90Ms), duration(a.waitP99Ms)));
        line(s, "machines", String.format(Locale.ROOT, "%d failures, %d owner reclaims", a.machineFailures, a.reclaims));
        for (final String extra : extraLines)
        {
            s.append(extra).append('\n');
        }
        return s.toString();
    }

    public static void line(final StringBuilder s, final String label, final String text)
    {
        s.append(String.format(Locale.ROOT, "%-22s %s%n", label, text));
    }

    public static String line(final String label, final String text)
    {
        return String.format(Locale.ROOT, "%-22s %s", label, text);
    }
}
