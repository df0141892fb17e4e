package io.gpux.sim.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.sim.report.WorkloadFigures.AttemptRun;
import io.gpux.sim.report.WorkloadFigures.JobRun;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WorkloadFiguresTest
{
    private static final AttemptRun CK1 = new AttemptRun(1, 40, 0, 12, true, "interrupted (OWNER_RECLAIM)");
    private static final AttemptRun CK2 = new AttemptRun(2, 20, 10, 17, true, "interrupted (OUTBID)");
    private static final AttemptRun CK3 = new AttemptRun(3, 30, 17, 30, false, "succeeded");
    private static final AttemptRun NO1 = new AttemptRun(1, 10, 0, 11, true, "interrupted (OWNER_RECLAIM)");
    private static final AttemptRun NO2 = new AttemptRun(2, 50, 0, 30, false, "succeeded");
    private static final AttemptRun NO3 = new AttemptRun(1, -1, -1, 0, false, "running");

    @Test
    void workLostPerInterruptionIsTheCountReachedMinusTheNextStartWithAndWithoutCheckpoints()
    {
        final WorkloadFigures f = new WorkloadFigures(List.of(
            new JobRun("ckpt-1-1", true, 30, "SUCCEEDED", 30, List.of(CK1, CK2, CK3)),
            new JobRun("nockpt-2-1", false, 30, "SUCCEEDED", 30, List.of(NO1, NO2)),
            new JobRun("nockpt-2-2", false, 30, "CANCELLED", 0, List.of(NO3))), 100);

        assertEquals(new WorkloadFigures.Loss(2, 2 + 0, 2), f.withCheckpoint, "12 -> 10 lost 2; 17 -> 17 lost 0");
        assertEquals(1.0, f.withCheckpoint.meanSteps());
        assertEquals(new WorkloadFigures.Loss(1, 11, 11), f.withoutCheckpoint, "all of the 11 steps");
        assertEquals(6, f.attempts);
        assertEquals(3, f.relaunches, "every attempt after a job's first");
        assertEquals(3, f.interruptions);
        assertEquals(2, f.succeeded);
        assertEquals(Map.of("SUCCEEDED", 2, "CANCELLED", 1), f.outcomes());
        assertTrue(f.countsRight);
        assertEquals(5, f.readinessSamples, "the attempt that never ran has no readiness");
        assertEquals(30, f.readinessP50Ms, "10 20 30 40 50: the median");
        assertEquals(50, f.readinessP99Ms);
        assertEquals(50, f.readinessMaxMs);
        final String summary = String.join("\n", f.summaryLines());
        assertTrue(summary.contains("fill -> RUNNING at the renter: p50 30 ms, p99 50 ms, max 50 ms (5 attempts)"), summary);
        assertTrue(summary.contains("with checkpoints 1.0 steps (0.1 s) on average, at most 2, over 2; without 11.0 steps "
            + "(1.1 s) on average, at most 11, over 1"), summary);
        assertTrue(summary.contains("3 jobs run by owner agents (process runtime, recorded H200s): cancelled 1, succeeded 2;"),
            summary);
        assertTrue(f.html().contains("<td>jobs</td><td>3: cancelled 1, succeeded 2</td>"), f.html());
        final Map<String, Object> json = f.toJson();
        assertEquals(3, json.get("relaunches"));
        @SuppressWarnings("unchecked")
        final Map<String, Object> lost = (Map<String, Object>)((Map<String, Object>)Json.parse(Json.write(json)))
            .get("workLostPerInterruption");
        assertEquals(11.0, ((Number)((Map<?, ?>)lost.get("withoutCheckpoint")).get("meanSteps")).doubleValue());
        assertEquals(1.1, ((Number)((Map<?, ?>)lost.get("withoutCheckpoint")).get("meanSeconds")).doubleValue());
        assertEquals(2L, ((Number)((Map<?, ?>)lost.get("withCheckpoint")).get("interruptions")).longValue());
        assertTrue(f.html().contains("<h2>Workloads</h2>"));
    }

    @Test
    void aSucceededJobShortOfItsTargetIsWrongAndNoAttemptMeansNoFigures()
    {
        final WorkloadFigures wrong = new WorkloadFigures(List.of(
            new JobRun("ckpt-1-1", true, 30, "SUCCEEDED", 29, List.of(CK3))), 100);
        assertFalse(wrong.countsRight);

        final WorkloadFigures none = new WorkloadFigures(List.of(), 100);
        assertEquals(-1, none.readinessP50Ms);
        assertEquals(0, none.withCheckpoint.interruptions());
        assertTrue(String.join("\n", none.summaryLines()).contains("no workload reached RUNNING"));
        assertTrue(String.join("\n", none.summaryLines()).contains("with checkpoints none measured"));
    }

    @Test
    void percentileIsNearestRank()
    {
        assertEquals(-1, new Percentiles().at(50));
        assertEquals(7, new Percentiles().record(7).at(99));
        final Percentiles four = new Percentiles().record(1).record(2).record(3).record(4);
        assertEquals(2, four.at(50));
        assertEquals(4, four.at(99));
        assertEquals(1, four.at(0));
    }

    @Test
    void percentilesAreExactBelow2048AndAtMostATenthOfAPercentHighAbove()
    {
        final Percentiles hundred = new Percentiles();
        for (int v = 1; v <= 100; v++)
        {
            hundred.record(v);
        }
        assertEquals(50, hundred.at(50));
        assertEquals(90, hundred.at(90));
        assertEquals(99, hundred.at(99));
        assertEquals(2047, new Percentiles().record(2047).at(50));

        final long hour = 3_600_000;
        final long read = new Percentiles().record(hour).at(50);
        assertTrue(read >= hour && read <= hour + hour / 1000, "an hour in ms reads as " + read);
    }
}
