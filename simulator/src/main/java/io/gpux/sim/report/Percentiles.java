package io.gpux.sim.report;

import org.HdrHistogram.Histogram;

/**
 * Nearest-rank percentiles of non-negative longs, kept by HdrHistogram to three significant digits:
 * the p-th percentile is the smallest recorded value with at least p percent of the values at or
 * below it. Values under 2048 are exact; a larger one reads as the top of its histogram bucket, at
 * most 0.1% above the value recorded.
 */
final class Percentiles
{
    private final Histogram histogram = new Histogram(3);

    /** Records a value; negative values are not allowed. */
    Percentiles record(final long value)
    {
        histogram.recordValue(value);
        return this;
    }

    long count()
    {
        return histogram.getTotalCount();
    }

    /** The p-th percentile (0 to 100), -1 if nothing was recorded. */
    long at(final double p)
    {
        return histogram.getTotalCount() == 0 ? -1 : histogram.getValueAtPercentile(p);
    }
}
