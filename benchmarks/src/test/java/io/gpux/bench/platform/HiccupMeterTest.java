package io.gpux.bench.platform;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HiccupMeterTest
{
    private static final long SECOND = 1_000_000_000L;

    @Test
    void aThreadThatAlwaysRanMakesNobodyWait()
    {
        final Histogram none = new Histogram(3_600_000_000_000L, 3);
        assertEquals(0, HiccupMeter.randomArrivalWait(none, SECOND, 0.9999));
    }

    @Test
    void oneGapIsWaitedForOnlyByTheArrivalsThatFallInIt()
    {
        // one 1 ms gap in a second: an arrival lands in it with probability 1/1000 and waits a uniform part of it
        final Histogram gaps = new Histogram(3_600_000_000_000L, 3);
        gaps.recordValue(1_000_000);
        assertEquals(0, HiccupMeter.randomArrivalWait(gaps, SECOND, 0.99));
        assertEquals(0, HiccupMeter.randomArrivalWait(gaps, SECOND, 0.999), 1_000);
        // P(wait > w) = (1 ms - w) / 1 s = 1e-4 at w = 0.9 ms
        assertEquals(900_000, HiccupMeter.randomArrivalWait(gaps, SECOND, 0.9999), 2_000);
        // half the arrivals of the last 1e-5 wait more than 0.99 ms
        assertEquals(990_000, HiccupMeter.randomArrivalWait(gaps, SECOND, 0.99999), 2_000);
    }

    @Test
    void manyShortGapsWeighByTheTimeTheyTake()
    {
        // 1,000 gaps of 40 us in a second (a 1 kHz tick that costs 40 us): the thread is away 4 % of the time,
        // so p99 is inside a gap: P(wait > w) = 1000 * (40 us - w) / 1 s = 1 % at w = 30 us
        final Histogram gaps = new Histogram(3_600_000_000_000L, 3);
        gaps.recordValueWithCount(40_000, 1_000);
        assertEquals(0, HiccupMeter.randomArrivalWait(gaps, SECOND, 0.9));
        assertEquals(30_000, HiccupMeter.randomArrivalWait(gaps, SECOND, 0.99), 100);
        assertEquals(39_000, HiccupMeter.randomArrivalWait(gaps, SECOND, 0.999), 100);
    }

    @Test
    void gapsAreCountedFromTheirLength()
    {
        final Histogram gaps = new Histogram(3_600_000_000_000L, 3);
        gaps.recordValueWithCount(15_000, 7);
        gaps.recordValueWithCount(150_000, 3);
        gaps.recordValue(2_000_000);
        assertEquals(11, HiccupMeter.atLeast(gaps, 10_000));
        assertEquals(4, HiccupMeter.atLeast(gaps, 100_000));
        assertEquals(1, HiccupMeter.atLeast(gaps, 1_000_000));
    }

    @Test
    void aLongGapIsChargedAsCpuTimeOnlyWhenNearlyAllOfItIs()
    {
        final HiccupMeter.Probe probe = new HiccupMeter.Probe(1_000, 0, 0, true);
        probe.charged(2_000_000, 1_950_000);
        probe.charged(3_000_000, 10_000);
        probe.charged(1_500_000, 1_350_000);
        assertEquals(3, probe.longGaps);
        assertEquals(6_500_000, probe.longGapNs);
        assertEquals(3_310_000, probe.longGapCpuNs);
        assertEquals(2, probe.longGapsCharged, "90 % of the gap or more");
        assertEquals(2_000_000, probe.longestChargedNs);
    }

    @Test
    void aProbeReadingItsCpuTimeAccountsForItsGapsToo()
    {
        final HiccupMeter.Probe probe = new HiccupMeter.Probe(1_000, 0, 100_000_000L, true);
        probe.run();
        assertTrue(probe.elapsedNs >= 100_000_000L, "measured for its whole time");
        assertTrue(probe.longGapNs <= probe.lostNs && probe.longGapsCharged <= probe.longGaps, "long gaps are gaps");
        assertTrue(probe.longGaps <= HiccupMeter.atLeast(probe.gaps, HiccupMeter.Probe.LONG_GAP_NS), "among the gaps recorded");
    }

    @Test
    void aProbeAccountsForTheTimeItDidNotRun()
    {
        final HiccupMeter.Probe probe = new HiccupMeter.Probe(1_000, 0, 100_000_000L);
        probe.run();
        assertTrue(probe.elapsedNs >= 100_000_000L, "measured for its whole time");
        assertTrue(probe.lostNs <= probe.elapsedNs, "lost no more than it measured");
        assertEquals(probe.lostNs > 0, probe.gaps.getTotalCount() > 0);
    }
}
