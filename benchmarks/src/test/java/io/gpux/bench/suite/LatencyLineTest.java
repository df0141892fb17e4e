package io.gpux.bench.suite;

import io.gpux.bench.LatencyLine;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.regex.Matcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The benchmarks print their percentiles in one format, and the suite reads that format back. */
class LatencyLineTest
{
    @Test
    void theSuiteReadsBackWhatTheBenchmarksPrint()
    {
        final Histogram ns = new Histogram(3_600_000_000L, 3);
        for (int i = 1; i <= 1_000; i++)
        {
            // 2 ns to 2 us: below 2,048 the histogram keeps every value exactly
            ns.recordValue(i * 2L);
        }
        ns.recordValue(31_400);
        final String line = LatencyLine.of(ns);
        assertEquals("p50 1.0  p90 1.8  p99 2.0  p99.9 2.0  p99.99 31.4  max 31.4", line);
        final Matcher m = BenchSuite.LATENCY.matcher("latency ASYNC at 1,000 commands/s offered (us): " + line);
        assertTrue(m.find());
        assertEquals("1.0", m.group(1));
        assertEquals("1.8", m.group(2));
        assertEquals("31.4", m.group(6));
    }
}
