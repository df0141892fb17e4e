package io.gpux.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.sim.agent.Levers;
import io.gpux.sim.market.MarketRules;
import io.gpux.sim.report.Json;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The steady start (the demo's) against the fresh one: the same market opened at 07:00 UTC for an hour of
 * the demo's markets. Fresh jobs come in over the first 20 minutes with work drawn as any job's; with the
 * steady start, the jobs in flight come in over the first 5 minutes with the work they have left, which is
 * longer on average (a job still running at a given moment is more likely a long one).
 */
class SteadyStartTest
{
    private static final int AGENTS = 60;
    private static final double OPEN_HOUR = 7;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theSteadyStartBringsTheJobsInFlightWithTheWorkTheyHaveLeft(@TempDir final Path dir) throws Exception
    {
        final List<CSVRecord> fresh = openingJobs(run(dir.resolve("fresh"), false), 20);
        final List<CSVRecord> steady = openingJobs(run(dir.resolve("steady"), true), 5);
        assertTrue(fresh.size() > 20 && steady.size() > 20, "jobs at the open: fresh " + fresh.size() + ", steady "
            + steady.size());
        final long open = SimRun.openAt(OPEN_HOUR);
        for (final CSVRecord j : steady)
        {
            assertTrue(Long.parseLong(j.get("arrivalMs")) - open < 5 * 60_000, "in the first 5 minutes: " + j);
        }
        final double freshWork = meanWorkHours(fresh);
        final double steadyWork = meanWorkHours(steady);
        assertTrue(steadyWork > 1.3 * freshWork, "work left of the jobs in flight " + steadyWork
            + " h on average, fresh jobs' work " + freshWork + " h");
    }

    private static Path run(final Path out, final boolean steadyStart) throws Exception
    {
        final RunOutcome outcome = SimRun.run(new SimRun.Options(11, AGENTS, 1.0 / 24, DemoRun.DEFAULT_FAILURE_ACCEL,
            DemoRun.DEFAULT_RECLAIMS_PER_DAY, DemoRun.DEFAULT_LOAD, out, MarketRules.DEMO, Levers.NONE, OPEN_HOUR, steadyStart),
            null);
        assertTrue(outcome.ok(), "every check holds: " + outcome.checks());
        @SuppressWarnings("unchecked")
        final Map<String, Object> json = (Map<String, Object>)Json.parse(Files.readString(out.resolve("report.json")));
        @SuppressWarnings("unchecked")
        final Map<String, Object> runSection = (Map<String, Object>)json.get("run");
        assertEquals(OPEN_HOUR, ((Number)runSection.get("openHourUtc")).doubleValue());
        assertEquals(steadyStart, runSection.get("steadyStart"));
        return out.resolve("jobs.csv");
    }

    /** Renters' jobs (not the market-makers' batch work) that arrived in the first {@code minutes} of the market. */
    private static List<CSVRecord> openingJobs(final Path jobsCsv, final int minutes) throws Exception
    {
        final List<CSVRecord> jobs = new ArrayList<>();
        final long open = SimRun.openAt(OPEN_HOUR);
        try (Reader in = Files.newBufferedReader(jobsCsv))
        {
            for (final CSVRecord r : CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).get().parse(in))
            {
                if (!r.get("outcome").equals("BATCH") && Long.parseLong(r.get("arrivalMs")) - open < minutes * 60_000L)
                {
                    jobs.add(r);
                }
            }
        }
        return jobs;
    }

    private static double meanWorkHours(final List<CSVRecord> jobs)
    {
        return jobs.stream().mapToLong(j -> Long.parseLong(j.get("workMs"))).average().orElse(0) / 3_600_000.0;
    }
}
