package io.gpux.sim.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The surplus bound's linear program on markets small enough to solve by hand. */
class SurplusBoundTest
{
    private static final long H = 3_600_000L;
    /** Hour slots, tiers of 0.01 %: values are rounded up and costs down by at most that much. */
    private static final double TIERS = 0.001;

    private static SurplusBound fourHours()
    {
        return new SurplusBound(0, 4 * H, H, 1.0001);
    }

    @Test
    void jobsShareAMachineByValueWithinTheirGangSizeAndArrival()
    {
        // one 2-GPU machine at cost 1 for 4 hours; A: value 3, 1 GPU, 4 GPU-hours from hour 0;
        // C: value 2, at most 2 GPUs, 2 GPU-hours, arrives at hour 2. A can only use 1 GPU an hour, so it runs
        // all 4 hours; C takes the other GPU in hours 2 and 3: 4 x (3 - 1) + 2 x (2 - 1) = 10.
        final SurplusBound b = fourHours();
        b.online(0, 4 * H, 2, 1.0);
        b.job(0, 4, 1, 3.0);
        b.job(2 * H, 2, 2, 2.0);
        final double bound = b.solve();
        assertTrue(bound >= 10 - 1e-6, "an upper bound: " + bound);
        assertEquals(10, bound, 10 * TIERS);
    }

    @Test
    void aJobCannotUseCapacityBeforeItArrivesNorWorkMoreThanItNeeds()
    {
        // the machine is online for hours 0-2 only; the job arrives at hour 2: nothing can be done
        final SurplusBound late = fourHours();
        late.online(0, 2 * H, 8, 1.0);
        late.job(2 * H, 100, 8, 5.0);
        assertEquals(0, late.solve(), 1e-9);
        // 8 GPUs for 4 hours but only 3 GPU-hours of work worth 5, cost 1: 3 x 4 = 12
        final SurplusBound small = fourHours();
        small.online(0, 4 * H, 8, 1.0);
        small.job(0, 3, 8, 5.0);
        assertEquals(12, small.solve(), 12 * TIERS);
        // a value below cost never trades
        final SurplusBound below = fourHours();
        below.online(0, 4 * H, 8, 2.0);
        below.job(0, 10, 8, 1.0);
        assertEquals(0, below.solve(), 1e-9);
    }

    @Test
    void aJobIsOnlyServedInTheSlotsOfItsWindow()
    {
        // one 1-GPU machine at cost 1 for 4 hours; A: value 5, 1 GPU, 3 GPU-hours, window hours 0-1;
        // B: value 2, 1 GPU, 3 GPU-hours, window to the end. Without windows A would take 3 hours: 3 x 4 + 1 x 1 = 13.
        // With them A runs only in hour 0 (1 x 4), B in hours 1-3 (3 x 1): 7.
        final SurplusBound b = fourHours();
        b.online(0, 4 * H, 1, 1.0);
        b.job(0, H, 3, 1, 5.0);
        b.job(0, 4 * H, 3, 1, 2.0);
        assertEquals(7, b.solve(), 7 * TIERS);
        // a window of [0:30, 1:30) is served in slots 0 and 1, half an hour in each: 1 x 4 + 3 x 1
        final SurplusBound across = fourHours();
        across.online(0, 4 * H, 1, 1.0);
        across.job(H / 2, 3 * H / 2, 3, 1, 5.0);
        across.job(0, 4 * H, 3, 1, 2.0);
        assertEquals(7, across.solve(), 7 * TIERS);
        // a window ending exactly on a slot edge does not spill into the next slot
        final SurplusBound edge = fourHours();
        edge.online(0, 4 * H, 1, 1.0);
        edge.job(0, 2 * H, 3, 1, 5.0);
        assertEquals(8, edge.solve(), 8 * TIERS);
    }

    @Test
    void aJobRecordsWindowEndsAtItsGiveUpUnlessTheMarketServedItLonger()
    {
        final long close = 168 * H;
        final JobRecord waiting = new JobRecord(1, "r", "m", 2, false, 3.0, 10 * H, 4 * H);
        assertEquals(10 * H + JobRecord.MAX_WAIT_MS + JobRecord.PATIENCE_MS + 4 * H, waiting.windowEndMs(close));
        final JobRecord stretched = new JobRecord(2, "r", "m", 2, false, 3.0, 10 * H, 4 * H);
        stretched.firstLeaseMs = 11 * H;
        stretched.endMs = 60 * H;
        assertEquals(60 * H, stretched.windowEndMs(close));
        final JobRecord open = new JobRecord(3, "r", "m", 2, false, 3.0, 10 * H, 4 * H);
        open.firstLeaseMs = 11 * H;
        assertEquals(close, open.windowEndMs(close));
        final JobRecord late = new JobRecord(4, "r", "m", 2, false, 3.0, 160 * H, 4 * H);
        assertEquals(close, late.windowEndMs(close));
    }

    @Test
    void cheaperMachinesServeFirst()
    {
        // two 1-GPU machines, cost 1 and cost 4, one hour; two 1-GPU jobs worth 5 and 3, one GPU-hour each.
        // Best: both run, (5 + 3) - (1 + 4) = 3; running only the 5 on the cheap one gives 4, which is better.
        final SurplusBound b = new SurplusBound(0, H, H, 1.0001);
        b.online(0, H, 1, 1.0);
        b.online(0, H, 1, 4.0);
        b.job(0, 1, 1, 5.0);
        b.job(0, 1, 1, 3.0);
        assertEquals(4, b.solve(), 4 * TIERS);
    }

    @Test
    void aGangJobOnlyUsesMachinesWithRoomForAllItsGpus()
    {
        // one hour; an 8-GPU machine and two 4-GPU machines, all at cost 1. Gang jobs A (value 5) and B (value 4),
        // 8 GPUs and 8 GPU-hours each, and C (value 2), 8 GPUs and 8 GPU-hours, which may spread over machines.
        // Only one 8-GPU gang runs: A on the 8-GPU machine, C on the two 4-GPU ones: 8 x 4 + 8 x 1 = 40
        // (without the gang constraint A and B would take all 16 GPU-hours: 8 x 4 + 8 x 3 = 56).
        final SurplusBound b = new SurplusBound(0, H, H, 1.0001);
        b.online(0, H, 8, 1.0);
        b.online(0, H, 4, 1.0);
        b.online(0, H, 4, 1.0);
        b.job(0, H, 8, 8, true, 5.0);
        b.job(0, H, 8, 8, true, 4.0);
        b.job(0, H, 8, 8, false, 2.0);
        assertEquals(40, b.solve(), 1e-6);
        // a gang bigger than every machine online is never served; spread over machines it is
        final SurplusBound tooBig = new SurplusBound(0, H, H, 1.0001);
        tooBig.online(0, H, 4, 1.0);
        tooBig.online(0, H, 4, 1.0);
        tooBig.job(0, H, 8, 8, true, 5.0);
        assertEquals(0, tooBig.solve(), 1e-9);
        tooBig.job(0, H, 8, 8, false, 3.0);
        assertEquals(16, tooBig.solve(), 1e-6);
    }

    @Test
    void aJobWorksOnlyTheTimeOfItsWindowInsideEachSlot()
    {
        // one 7-hour slot, a 1-GPU machine at cost 1 throughout; a 1-GPU job worth 2 with 5 GPU-hours of work
        // arrives at hour 5 and can be served until hour 7: 2 GPU-hours, 2 x (2 - 1) = 2 (the whole slot would give 5)
        final SurplusBound b = new SurplusBound(0, 7 * H, 7 * H, 1.05);
        b.online(0, 7 * H, 1, 1.0);
        b.job(5 * H, 7 * H, 5, 1, false, 2.0);
        assertEquals(2, b.solve(), 1e-6);
    }

    @Test
    void aPoolIsWorthItsHighestValueAndAMachineGroupItsLowestCost()
    {
        // values 2.00 and 2.04 share the tier of 1.05^15 = 2.08, costs 1.00 and 1.02 that of 1.05^0 = 1:
        // one GPU-hour is worth at most 2.04 - 1.00 = 1.04, neither the tier's 2.08 - 1 nor less than the best pair
        final SurplusBound b = new SurplusBound(0, H, H, 1.05);
        b.online(0, H, 1, 1.02);
        b.online(0, H, 1, 1.0);
        b.job(0, H, 1, 1, false, 2.0);
        b.job(0, H, 1, 1, false, 2.04);
        b.job(0, H, 1, 1, false, 1.9);
        // the two machines' GPU-hours, at 1.00 each: 2 x (2.04 - 1.00)
        assertEquals(2.08, b.solve(), 1e-6);
        assertTrue(b.variables() > 0 && b.constraints() > 0, "the program's size is kept");
    }

    @Test
    void aWeekIsSolvedInSlotsOfSeveralHoursAndStaysABound()
    {
        final SurplusBound week = SurplusBound.forWindow(0, 168 * H);
        assertEquals(24, week.slots());
        assertEquals(7 * H, week.slotMs());
        // one 1-GPU job worth 2 arriving at hour 10 with 5 GPU-hours, a 1-GPU machine at cost 1 all week:
        // exactly 5 x 1, the job working from hour 10 in the slot of hours 7-14
        week.online(0, 168 * H, 1, 1.0);
        week.job(10 * H, 5, 1, 2.0);
        assertEquals(5, week.solve(), 1e-6);
        // a week keeps gangs of 16 apart (never on two 8-GPU machines) and pools smaller gangs with the jobs
        // that may spread over machines (an 8-GPU gang on two 4-GPU machines: 8 GPU-hours at 2 - 1)
        final SurplusBound gangs = SurplusBound.forWindow(0, 168 * H);
        gangs.online(0, 168 * H, 8, 1.0);
        gangs.online(0, 168 * H, 8, 1.0);
        gangs.job(0, 168 * H, 16, 16, true, 2.0);
        assertEquals(0, gangs.solve(), 1e-9);
        final SurplusBound pooled = SurplusBound.forWindow(0, 168 * H);
        pooled.online(0, 168 * H, 4, 1.0);
        pooled.online(0, 168 * H, 4, 1.0);
        pooled.job(0, 168 * H, 8, 8, true, 2.0);
        assertEquals(8, pooled.solve(), 1e-6);
    }
}
