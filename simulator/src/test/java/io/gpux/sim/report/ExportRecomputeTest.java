package io.gpux.sim.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.sim.DemoRun;
import io.gpux.sim.RunOutcome;
import io.gpux.sim.SimRun;
import io.gpux.sim.agent.Levers;
import io.gpux.sim.market.MarketRules;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A short simulated market's jobs.csv, leases.csv and machines.csv give back, recomputed here from the
 * files alone, every overall figure of report.json: efficiency (with the bound solved again from the
 * files, and the planners without foresight run again), utilization of the fleet and of the offered
 * GPU-hours, VWAP per GPU-hour, lost work and the notice check.
 */
class ExportRecomputeTest
{
    private static final double HOUR = 3_600_000.0;

    private static List<CSVRecord> read(final Path file) throws Exception
    {
        try (Reader r = Files.newBufferedReader(file))
        {
            return CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).get().parse(r).getRecords();
        }
    }

    /** Parsed {@code from/to;...}; an open end is {@code close}. */
    private static List<long[]> intervals(final String s, final long close)
    {
        final List<long[]> list = new ArrayList<>();
        if (s.isEmpty())
        {
            return list;
        }
        for (final String part : s.split(";"))
        {
            final String[] ft = part.split("/");
            final long to = Long.parseLong(ft[1]);
            list.add(new long[] {Long.parseLong(ft[0]), to < 0 ? close : to});
        }
        return list;
    }

    private static long overlap(final List<long[]> a, final long from, final long to)
    {
        long total = 0;
        for (final long[] i : a)
        {
            total += Math.max(0, Math.min(i[1], to) - Math.max(i[0], from));
        }
        return total;
    }

    private static double number(final Map<String, Object> m, final String key)
    {
        return ((Number)m.get(key)).doubleValue();
    }

    /** Without a restart time, and with 10 minutes of it on every lease (the bound then counts one per job). */
    @ParameterizedTest
    @ValueSource(longs = {0, 10})
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyOverallFigureComesBackFromTheCsvFiles(final long restartMinutes, @TempDir final Path dir) throws Exception
    {
        final Levers levers = new Levers(0, false, 0, 0, Levers.MOVE_EVERY_MS, false, restartMinutes * 60_000L);
        final RunOutcome outcome = SimRun.run(new SimRun.Options(5, 60, 0.5, DemoRun.DEFAULT_FAILURE_ACCEL * 5,
            DemoRun.DEFAULT_RECLAIMS_PER_DAY, DemoRun.DEFAULT_LOAD, dir, MarketRules.SIM, levers), null);
        @SuppressWarnings("unchecked")
        final Map<String, Object> json = (Map<String, Object>)Json.parse(Files.readString(dir.resolve("report.json")));
        @SuppressWarnings("unchecked")
        final Map<String, Object> run = (Map<String, Object>)json.get("run");
        @SuppressWarnings("unchecked")
        final Map<String, Object> overall = (Map<String, Object>)json.get("overall");
        @SuppressWarnings("unchecked")
        final Map<String, Object> preemptions = (Map<String, Object>)json.get("preemptions");
        final long open = Instant.parse((String)run.get("marketOpen")).toEpochMilli();
        final long close = Instant.parse((String)run.get("marketClose")).toEpochMilli();
        final long grace = ((Number)run.get("graceMs")).longValue();

        final Map<Long, CSVRecord> machines = new HashMap<>();
        final Map<String, MarketBound> bounds = new HashMap<>();
        final Map<String, OnlinePlanner> planners = new HashMap<>();
        double online = 0;
        double offered = 0;
        for (final CSVRecord m : read(dir.resolve("machines.csv")))
        {
            machines.put(Long.parseLong(m.get("machineId")), m);
            final int gpus = Integer.parseInt(m.get("gpus"));
            final List<long[]> on = intervals(m.get("online"), close);
            final List<long[]> listed = intervals(m.get("listed"), close);
            online += gpus * overlap(on, open, close) / HOUR;
            final OnlinePlanner planner = planners.computeIfAbsent(m.get("market"), k -> new OnlinePlanner(open, close));
            final int machine = planner.machine(gpus, Double.parseDouble(m.get("cost")));
            for (final long[] i : on)
            {
                planner.online(machine, i[0], Math.min(i[1], close));
                offered += gpus * overlap(listed, Math.max(i[0], open), Math.min(i[1], close)) / HOUR;
                bounds.computeIfAbsent(m.get("market"), k -> new MarketBound(open, close))
                    .online(i[0], Math.min(i[1], close), gpus, Double.parseDouble(m.get("cost")));
            }
        }
        double workValue = 0;
        for (final CSVRecord j : read(dir.resolve("jobs.csv")))
        {
            final double value = Double.parseDouble(j.get("value"));
            final int gpus = Integer.parseInt(j.get("gpus"));
            workValue += value * Long.parseLong(j.get("doneGpuMs")) / HOUR;
            final MarketBound b = bounds.computeIfAbsent(j.get("market"), k -> new MarketBound(open, close));
            final OnlinePlanner planner = planners.computeIfAbsent(j.get("market"), k -> new OnlinePlanner(open, close));
            if ("BATCH".equals(j.get("outcome")))
            {
                b.job(open, close, gpus * (close - open) / HOUR, gpus, false, value);
                planner.job(open, close, gpus * (close - open) / HOUR, gpus, false, value);
            }
            else
            {
                // the job's window, from its columns: served by its give-up time, or as long as the market served it
                final long arrival = Long.parseLong(j.get("arrivalMs"));
                final long work = Long.parseLong(j.get("workMs"));
                final long restart = Long.parseLong(j.get("restartMs"));
                final long end = Long.parseLong(j.get("endMs"));
                long until = arrival + JobRecord.MAX_WAIT_MS + JobRecord.PATIENCE_MS + restart + work;
                if (Long.parseLong(j.get("firstLeaseMs")) >= 0)
                {
                    until = Math.max(until, end < 0 ? close : end);
                }
                // the work and the least restart any allocation pays (each of a gang's GPUs, one GPU of a job that
                // may spread), the value spread over both (none without a restart time)
                final boolean gang = Boolean.parseBoolean(j.get("gang"));
                final double restartGpuMs = (gang ? gpus : 1) * (double)restart;
                final double need = (gpus * (double)work + restartGpuMs) / HOUR;
                final double worth = work == 0 && restartGpuMs == 0 ? value : value * gpus * work / (gpus * work + restartGpuMs);
                b.job(arrival, Math.min(close, until), need, gpus, gang, worth);
                planner.job(arrival, Math.min(close, until), need, gpus, gang, worth);
            }
        }
        double leased = 0;
        double leasedCost = 0;
        double notional = 0;
        double useful = 0;
        double lost = 0;
        double dead = 0;
        double restarting = 0;
        long noticeFailures = 0;
        for (final CSVRecord l : read(dir.resolve("leases.csv")))
        {
            final long start = Long.parseLong(l.get("startMs"));
            if (start < 0)
            {
                continue;
            }
            final long endMs = Long.parseLong(l.get("endMs"));
            final int gpus = Integer.parseInt(l.get("gpus"));
            final CSVRecord m = machines.get(Long.parseLong(l.get("machineId")));
            if ("owner".equals(l.get("side")))
            {
                final long s = Math.max(start, open);
                final long e = endMs < 0 ? close : Math.min(endMs, close);
                if (e > s && m != null)
                {
                    leased += gpus * (e - s) / HOUR;
                    leasedCost += Double.parseDouble(m.get("cost")) * gpus * (e - s) / HOUR;
                    notional += Long.parseLong(l.get("priceTicks")) / 10_000.0 * gpus * (e - s) / HOUR;
                    offered += gpus * ((e - s) - overlap(intervals(m.get("listed"), close), s, e)) / HOUR;
                }
                continue;
            }
            useful += Long.parseLong(l.get("usefulGpuMs")) / HOUR;
            if (start >= close)
            {
                continue;
            }
            lost += Long.parseLong(l.get("lostGpuMs")) / HOUR;
            dead += Long.parseLong(l.get("deadGpuMs")) / HOUR;
            restarting += Long.parseLong(l.get("restartGpuMs")) / HOUR;
            final String end = l.get("endReason");
            if (end.isEmpty() || "RELEASED".equals(end) || "EXPIRED".equals(end))
            {
                continue;
            }
            final boolean broken = m != null && overlap(intervals(m.get("broken"), close), start, endMs + 1) > 0;
            final long notice = Long.parseLong(l.get("noticeMs"));
            final long release = Long.parseLong(l.get("releaseMs"));
            final boolean handedOver = release >= 0 && release <= endMs;
            if (!broken && (notice < 0 || (!handedOver && endMs - notice < grace)))
            {
                noticeFailures++;
            }
        }
        double bound = 0;
        double programBound = 0;
        double dualBound = 0;
        for (final MarketBound b : bounds.values())
        {
            bound += b.solve();
            programBound += b.programValue();
            dualBound += b.dualValue();
        }
        double replanning = 0;
        double keeping = 0;
        for (final OnlinePlanner p : planners.values())
        {
            replanning += p.replanning();
            keeping += p.keeping(0);
        }

        assertTrue(leased > 0 && useful > 0 && dead > 0, "a market with leases, work and a machine failure under a lease");
        assertEquals(number(overall, "workValue"), workValue, 0.01);
        assertEquals(number(overall, "leasedCost"), leasedCost, 0.01);
        assertEquals(number(overall, "surplusBound"), bound, 0.01);
        assertEquals(number(overall, "programBound"), programBound, 0.01);
        assertEquals(number(overall, "dualBound"), dualBound, 0.01);
        assertEquals(number(overall, "plannerReplanning"), replanning, 0.01);
        assertEquals(number(overall, "plannerKeeping"), keeping, 0.01);
        assertTrue(replanning > 0 && replanning <= bound + 0.01, "a planner without foresight gets no more than the bound");
        assertEquals(number(overall, "efficiency"), (workValue - leasedCost) / bound, 1e-4);
        assertEquals(number(overall, "usefulGpuHours"), useful, 0.01);
        assertEquals(number(overall, "onlineGpuHours"), online, 0.01);
        assertEquals(number(overall, "offeredGpuHours"), offered, 0.01);
        assertEquals(number(overall, "utilization"), useful / online, 1e-4);
        assertEquals(number(overall, "offeredUtilization"), useful / offered, 1e-4);
        assertEquals(number(overall, "vwapPerGpuHour"), notional / leased, 1e-4);
        assertEquals(number(preemptions, "workLostSinceCheckpointGpuHours"), lost, 0.001);
        assertEquals(number(preemptions, "deadMachineGpuHours"), dead, 0.001);
        assertEquals(number(preemptions, "restartGpuHours"), restarting, 0.001);
        assertEquals(restartMinutes > 0, restarting > 0, "time spent restarting exactly when leases restart: " + restarting);
        assertEquals(((Number)preemptions.get("noticeCheckFailures")).longValue(), noticeFailures);
        assertEquals(noticeFailures == 0, outcome.ok(), "the checks fail exactly when the notice check does: " + outcome.checks());
    }
}
