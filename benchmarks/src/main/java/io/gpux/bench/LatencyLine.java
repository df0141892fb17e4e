package io.gpux.bench;

import org.HdrHistogram.Histogram;

/**
 * The percentile line every latency benchmark prints, from a histogram of nanoseconds, in microseconds:
 * {@code p50 X  p90 X  p99 X  p99.9 X  p99.99 X  max X}. {@code ./gpux bench} ({@code BenchSuite}) reads its
 * figures back from this line, so it is written in one place.
 */
public final class LatencyLine
{
    private LatencyLine()
    {
    }

    public static String of(final Histogram ns)
    {
        return String.format("p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  p99.99 %.1f  max %.1f",
            ns.getValueAtPercentile(50) / 1e3, ns.getValueAtPercentile(90) / 1e3, ns.getValueAtPercentile(99) / 1e3,
            ns.getValueAtPercentile(99.9) / 1e3, ns.getValueAtPercentile(99.99) / 1e3, ns.getMaxValue() / 1e3);
    }
}
