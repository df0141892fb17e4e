package io.gpux.sim.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The planners without foresight on markets small enough to follow by hand, and on random ones against
 * the hour-slot dual: a planner's allocation is one the bound allows, so it never gets more.
 */
class OnlinePlannerTest
{
    private static final long H = 3_600_000L;
    private static final long M = 60_000L;

    @Test
    void aMoreValuableJobTakesTheGpusAndTheOtherResumesAfterIt()
    {
        // one 1-GPU machine at cost 1 for 2 hours; A: value 3, 1 GPU-hour, all 2 hours; B: value 5, 1 GPU-hour,
        // from 0:30 to 1:30. Re-planning: A 0:00-0:30, B 0:30-1:30, A 1:30-2:00: 1 x 2 + 1 x 4 = 6
        final OnlinePlanner p = new OnlinePlanner(0, 2 * H);
        p.online(p.machine(1, 1.0), 0, 2 * H);
        p.job(0, 2 * H, 1, 1, false, 3.0);
        p.job(30 * M, 90 * M, 1, 1, false, 5.0);
        assertEquals(6, p.replanning(), 1e-9);
        assertEquals(6, p.keeping(0), 1e-9, "keeping work in place, B still takes A's GPU: it is worth more");
        // with a 100 % increment B (5) may not take A's (3) GPU: it runs from 1:00 to 1:30 only: 1 x 2 + 0.5 x 4
        assertEquals(4, p.keeping(1.0), 1e-9);
    }

    @Test
    void rePlanningMovesWorkOntoCheaperGpusOnceTheyAreFree()
    {
        // a 1-GPU machine at cost 1 and one at cost 3; X: value 10, half a GPU-hour; Y: value 5, 1 GPU-hour.
        // X takes the cheap machine, Y the dear one; at 0:30 X is done. Re-planning moves Y:
        // X 0.5 x 9 + Y 0.5 x 2 + 0.5 x 4 = 7.5; keeping Y where it started: 4.5 + 1 x 2 = 6.5
        final OnlinePlanner p = new OnlinePlanner(0, 2 * H);
        p.online(p.machine(1, 3.0), 0, 2 * H);
        p.online(p.machine(1, 1.0), 0, 2 * H);
        p.job(0, 2 * H, 0.5, 1, false, 10.0);
        p.job(0, 2 * H, 1, 1, false, 5.0);
        assertEquals(7.5, p.replanning(), 1e-9);
        assertEquals(6.5, p.keeping(0), 1e-9);
    }

    @Test
    void aGangRunsOnlyOnOneMachineWithRoomAndNothingRunsBelowCostOrOffline()
    {
        final OnlinePlanner split = new OnlinePlanner(0, 2 * H);
        split.online(split.machine(1, 1.0), 0, 2 * H);
        split.online(split.machine(1, 1.0), 0, 2 * H);
        split.job(0, 2 * H, 2, 2, true, 5.0);
        assertEquals(0, split.replanning(), 1e-9, "two 1-GPU machines are no home for a 2-GPU gang");
        assertEquals(0, split.keeping(0), 1e-9);
        split.job(0, 2 * H, 2, 2, false, 5.0);
        assertEquals(8, split.replanning(), 1e-9, "the same job without the gang runs on both: 2 x 4");

        final OnlinePlanner whole = new OnlinePlanner(0, 2 * H);
        whole.online(whole.machine(2, 1.0), 0, H);
        whole.job(0, 2 * H, 4, 2, true, 5.0);
        assertEquals(8, whole.replanning(), 1e-9, "one machine with room, for the hour it is online: 2 x 4");
        assertEquals(8, whole.keeping(0), 1e-9);
        whole.job(0, 2 * H, 4, 1, false, 0.5);
        assertEquals(8, whole.replanning(), 1e-9, "a job worth less than the cost gets nothing");
    }

    @Test
    void aGangTakesAWholeMachineFromJobsWorthLessWhenKeepingWork()
    {
        // one 2-GPU machine; two 1-GPU jobs worth 2 running; a 2-GPU gang worth 6 arrives at 0:30 for 1 GPU-hour
        final OnlinePlanner p = new OnlinePlanner(0, 2 * H);
        p.online(p.machine(2, 1.0), 0, 2 * H);
        p.job(0, 2 * H, 1, 1, false, 2.0);
        p.job(0, 2 * H, 1, 1, false, 2.0);
        p.job(30 * M, 2 * H, 1, 2, true, 6.0);
        // 0:00-0:30 both small jobs (2 x 0.5 x 1), 0:30-1:00 the gang (1 x 5), 1:00-1:30 the small jobs again (2 x 0.5 x 1)
        assertEquals(7, p.keeping(0), 1e-9);
        assertEquals(7, p.replanning(), 1e-9);
    }

    @Test
    void neverAboveTheHourSlotDual()
    {
        final SplittableRandom rng = new SplittableRandom(7);
        for (int market = 0; market < 40; market++)
        {
            final long close = 24 * H;
            final OnlinePlanner p = new OnlinePlanner(0, close);
            final DualBound bound = new DualBound(0, close);
            for (int i = 0; i < 1 + rng.nextInt(6); i++)
            {
                final int gpus = new int[] {1, 2, 4, 8}[rng.nextInt(4)];
                final double cost = 0.5 + rng.nextDouble();
                final int machine = p.machine(gpus, cost);
                // online from one 5-minute step to another, as the planner sees it
                final long from = rng.nextInt(24 * 12) * OnlinePlanner.STEP_MS;
                final long to = Math.min(close, from + (1 + rng.nextInt(24 * 12)) * OnlinePlanner.STEP_MS);
                p.online(machine, from, to);
                bound.online(from, to, gpus, cost);
            }
            for (int i = 0; i < 5 + rng.nextInt(30); i++)
            {
                final long from = rng.nextInt(20 * 60) * M;
                final long until = Math.min(close, from + (1 + rng.nextInt(10 * 60)) * M);
                final int gpus = 1 + rng.nextInt(8);
                final boolean gang = rng.nextBoolean();
                final double work = 0.5 + rng.nextDouble() * 20;
                final double value = 0.4 + rng.nextDouble() * 3;
                p.job(from, until, work, gpus, gang, value);
                bound.job(from, until, work, gpus, gang, value);
            }
            final double dual = bound.solve();
            final double replanning = p.replanning();
            final double keeping = p.keeping(0.1);
            assertTrue(replanning <= dual + 1e-6 && keeping <= dual + 1e-6 && keeping >= 0,
                "market " + market + ": planners " + replanning + " and " + keeping + " against the bound " + dual);
        }
    }
}
