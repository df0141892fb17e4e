package io.gpux.sim.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.sim.DemoRun;
import io.gpux.sim.RunOutcome;
import io.gpux.sim.SimRun;
import io.gpux.sim.agent.AgentParameters;
import io.gpux.sim.agent.Levers;
import io.gpux.sim.market.MarketRules;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./gpux sim --restart-minutes}: every lease a job works on first spends the restart time doing no
 * work, so no job finishes sooner than its work plus one restart after its first lease; the export's
 * per-lease restart time is that time exactly on every lease the job worked on, never more on any, never
 * more than the lease lasted with its work, lost work and dead time; and report.json's total is the
 * export's.
 */
class RestartTimeTest
{
    private static final long RESTART_MS = 10 * AgentParameters.MINUTE;

    private static List<CSVRecord> read(final Path file) throws Exception
    {
        try (Reader r = Files.newBufferedReader(file))
        {
            return CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).get().parse(r).getRecords();
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyLeaseAJobWorksOnStartsWithItsRestart(@TempDir final Path dir) throws Exception
    {
        final Levers levers = new Levers(0, false, 0, 0, Levers.MOVE_EVERY_MS, false, RESTART_MS);
        final RunOutcome outcome = SimRun.run(new SimRun.Options(5, 60, 0.5, DemoRun.DEFAULT_FAILURE_ACCEL,
            DemoRun.DEFAULT_RECLAIMS_PER_DAY, DemoRun.DEFAULT_LOAD, dir, MarketRules.SIM, levers), null);
        assertTrue(outcome.ok(), "checks hold: " + outcome.checks());
        assertTrue(outcome.summary().contains("restart 10.0 min a lease"), outcome.summary());
        assertTrue(outcome.summary().contains("restarting on new leases"), outcome.summary());

        int done = 0;
        final Set<String> batches = new HashSet<>();
        for (final CSVRecord j : read(dir.resolve("jobs.csv")))
        {
            if ("BATCH".equals(j.get("outcome")))
            {
                batches.add(j.get("jobId"));
            }
            if ("DONE".equals(j.get("outcome")))
            {
                done++;
                final long took = Long.parseLong(j.get("endMs")) - Long.parseLong(j.get("firstLeaseMs"));
                assertTrue(took >= Long.parseLong(j.get("workMs")) + RESTART_MS, "job " + j.get("jobId") + " took " + took
                    + " ms for " + j.get("workMs") + " ms of work and a restart");
            }
        }
        assertTrue(done > 20, "jobs done: " + done);

        long restartGpuMs = 0;
        int worked = 0;
        for (final CSVRecord l : read(dir.resolve("leases.csv")))
        {
            // renters' jobs only: a market-maker's batch work is small independent pieces that never restart
            if (!"renter".equals(l.get("side")) || "0".equals(l.get("jobId")) || batches.contains(l.get("jobId"))
                || Long.parseLong(l.get("startMs")) < 0)
            {
                continue;
            }
            final long gpus = Long.parseLong(l.get("gpus"));
            final long restart = Long.parseLong(l.get("restartGpuMs"));
            final long useful = Long.parseLong(l.get("usefulGpuMs"));
            restartGpuMs += restart;
            assertTrue(restart <= gpus * RESTART_MS, "lease " + l.get("leaseId") + " restarted " + restart + " GPU-ms");
            if (useful > 0)
            {
                worked++;
                assertEquals(gpus * RESTART_MS, restart, "lease " + l.get("leaseId") + " worked after a full restart");
            }
            final long end = Long.parseLong(l.get("endMs"));
            if (end >= 0)
            {
                final long accounted = restart + useful + Long.parseLong(l.get("lostGpuMs")) + Long.parseLong(l.get("deadGpuMs"));
                assertTrue(accounted <= gpus * (end - Long.parseLong(l.get("startMs"))), "lease " + l.get("leaseId")
                    + ": restart, work, lost work and dead time fit in the lease: " + l.toMap());
            }
        }
        assertTrue(worked > 20, "leases worked on: " + worked);
        @SuppressWarnings("unchecked")
        final Map<String, Object> preemptions = (Map<String, Object>)((Map<String, Object>)Json.parse(
            Files.readString(dir.resolve("report.json")))).get("preemptions");
        assertEquals(restartGpuMs / 3_600_000.0, ((Number)preemptions.get("restartGpuHours")).doubleValue(), 0.01);
    }
}
