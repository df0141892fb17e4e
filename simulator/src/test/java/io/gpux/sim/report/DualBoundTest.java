package io.gpux.sim.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The hour-slot dual bound on markets small enough to solve by hand: never below the program's optimum
 * (weak duality holds at every step), and within a small fraction of it once the steps are taken.
 */
class DualBoundTest
{
    private static final long H = 3_600_000L;
    /** How far above the optimum the steps may leave the bound here. */
    private static final double SLACK = 0.005;

    private static void assertBound(final double optimum, final DualBound b)
    {
        final double bound = b.solve();
        assertTrue(bound >= optimum - 1e-6, "an upper bound: " + bound + " against " + optimum);
        assertTrue(bound <= optimum * (1 + SLACK) + 1e-6, "close to the optimum " + optimum + ": " + bound);
    }

    @Test
    void jobsShareAMachineByValueWithinTheirWindows()
    {
        // one 2-GPU machine at cost 1 for 4 hours; A: value 3, 1 GPU, 4 GPU-hours from hour 0;
        // C: value 2, at most 2 GPUs, 2 GPU-hours, from hour 2: 4 x (3 - 1) + 2 x (2 - 1) = 10
        final DualBound b = new DualBound(0, 4 * H);
        b.online(0, 4 * H, 2, 1.0);
        b.job(0, 4 * H, 4, 1, false, 3.0);
        b.job(2 * H, 4 * H, 2, 2, false, 2.0);
        assertBound(10, b);
        // one 1-GPU machine; A: value 5, 3 GPU-hours, window hour 0 only; B: value 2, 3 GPU-hours, all 4 hours:
        // A runs in hour 0 (1 x 4), B in hours 1-3 (3 x 1)
        final DualBound windows = new DualBound(0, 4 * H);
        windows.online(0, 4 * H, 1, 1.0);
        windows.job(0, H, 3, 1, false, 5.0);
        windows.job(0, 4 * H, 3, 1, false, 2.0);
        assertBound(7, windows);
        // a window of [0:30, 1:30) works half an hour in each of hours 0 and 1
        final DualBound across = new DualBound(0, 4 * H);
        across.online(0, 4 * H, 1, 1.0);
        across.job(H / 2, 3 * H / 2, 3, 1, false, 5.0);
        across.job(0, 4 * H, 3, 1, false, 2.0);
        assertBound(7, across);
    }

    @Test
    void nothingTradesBelowCostOrOutsideTheMachinesTime()
    {
        final DualBound late = new DualBound(0, 4 * H);
        late.online(0, 2 * H, 8, 1.0);
        late.job(2 * H, 4 * H, 100, 8, false, 5.0);
        assertEquals(0, late.solve(), 1e-6);
        final DualBound below = new DualBound(0, 4 * H);
        below.online(0, 4 * H, 8, 2.0);
        below.job(0, 4 * H, 10, 8, false, 1.0);
        assertEquals(0, below.solve(), 1e-6);
        // 8 GPUs for 4 hours but only 3 GPU-hours of work worth 5 at cost 1
        final DualBound small = new DualBound(0, 4 * H);
        small.online(0, 4 * H, 8, 1.0);
        small.job(0, 4 * H, 3, 8, false, 5.0);
        assertBound(12, small);
    }

    @Test
    void cheaperMachinesServeFirst()
    {
        // machines of cost 1 and 4, jobs worth 5 and 3, an hour each: only the 5 on the cheap machine, 4
        final DualBound b = new DualBound(0, H);
        b.online(0, H, 1, 1.0);
        b.online(0, H, 1, 4.0);
        b.job(0, H, 1, 1, false, 5.0);
        b.job(0, H, 1, 1, false, 3.0);
        assertBound(4, b);
    }

    @Test
    void aGangJobOnlyUsesMachinesWithRoomForAllItsGpus()
    {
        // an 8-GPU machine and two 4-GPU ones at cost 1 for an hour; gangs of 8 worth 5 and 4, and a job of 8
        // that may spread worth 2: the 5 on the 8-GPU machine, the 2 on the 4-GPU ones, 8 x 4 + 8 x 1 = 40
        final DualBound b = new DualBound(0, H);
        b.online(0, H, 8, 1.0);
        b.online(0, H, 4, 1.0);
        b.online(0, H, 4, 1.0);
        b.job(0, H, 8, 8, true, 5.0);
        b.job(0, H, 8, 8, true, 4.0);
        b.job(0, H, 8, 8, false, 2.0);
        assertBound(40, b);
        // a gang bigger than every machine is never served; spread over machines it is
        final DualBound tooBig = new DualBound(0, H);
        tooBig.online(0, H, 4, 1.0);
        tooBig.online(0, H, 4, 1.0);
        tooBig.job(0, H, 8, 8, true, 5.0);
        assertEquals(0, tooBig.solve(), 1e-6);
        tooBig.job(0, H, 8, 8, false, 3.0);
        assertBound(16, tooBig);
    }

    @Test
    void aWeekOfHourSlotsKeepsWhatTheLinearProgramsLongSlotsLose()
    {
        // a 1-GPU machine at cost 1 all week, online only for hours 0-1 and 6-7 of every 7; a 1-GPU job worth 2
        // needs 4 GPU-hours between hours 3 and 5 of each 7 (when the machine is off) and another between hours
        // 5 and 7: only the second's hour 6 is servable each time. The 7-hour slots of the linear program let the
        // first use the machine's hour 0: twice the surplus.
        final DualBound dual = new DualBound(0, 168 * H);
        final SurplusBound program = SurplusBound.forWindow(0, 168 * H);
        for (int w = 0; w < 24; w++)
        {
            final long t = w * 7 * H;
            dual.online(t, t + H, 1, 1.0);
            dual.online(t + 6 * H, t + 7 * H, 1, 1.0);
            program.online(t, t + H, 1, 1.0);
            program.online(t + 6 * H, t + 7 * H, 1, 1.0);
            dual.job(t + 3 * H, t + 5 * H, 4, 1, false, 2.0);
            dual.job(t + 5 * H, t + 7 * H, 4, 1, false, 2.0);
            program.job(t + 3 * H, t + 5 * H, 4, 1, false, 2.0);
            program.job(t + 5 * H, t + 7 * H, 4, 1, false, 2.0);
        }
        assertBound(24, dual);
        assertEquals(48, program.solve(), 1e-6);
    }
}
