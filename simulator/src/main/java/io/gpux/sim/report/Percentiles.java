package io.gpux.sim.report;

import java.util.Arrays;

/** Nearest-rank percentiles of a sample of longs. */
final class Percentiles
{
    private final long[] sorted;

    Percentiles(final long[] values, final int count)
    {
        this.sorted = Arrays.copyOf(values, count);
        Arrays.sort(sorted);
    }

    int count()
    {
        return sorted.length;
    }

    /** The p-th percentile (0 to 100), -1 if empty. */
    long at(final double p)
    {
        if (sorted.length == 0)
        {
            return -1;
        }
        final int rank = (int)Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }
}
