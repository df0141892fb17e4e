package io.gpux.core.counters;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * A latency histogram shown as counters: one thread records times (an HdrHistogram recorder: no lock,
 * no allocation), another turns each window of them into its quantiles (0.5, 0.9, 0.99, 0.999 and 1, the
 * maximum) and how many were recorded, once a window.
 */
public final class LatencyCounters
{
    private static final String[] QUANTILES = {"0.5", "0.9", "0.99", "0.999", "1"};
    private static final double[] PERCENTILES = {50, 90, 99, 99.9, 100};

    private final SingleWriterRecorder recorder = new SingleWriterRecorder(3);
    private final AtomicCounter[] quantiles = new AtomicCounter[QUANTILES.length];
    private final AtomicCounter count;
    private Histogram window;

    /**
     * @param quantilesFigure a figure with one label, {@code quantile}.
     * @param countFigure a figure without labels: how many times the last window holds.
     */
    public LatencyCounters(final ExchangeCounters counters, final CounterDescriptor quantilesFigure,
        final CounterDescriptor countFigure)
    {
        for (int i = 0; i < QUANTILES.length; i++)
        {
            quantiles[i] = counters.newCounter(quantilesFigure, QUANTILES[i]);
        }
        count = counters.newCounter(countFigure);
    }

    /** The recording thread: one time, in ns. */
    public void record(final long nanos)
    {
        recorder.recordValue(Math.max(0, nanos));
    }

    /** The sampling thread: the window since the last call into the counters. */
    public void sample()
    {
        window = recorder.getIntervalHistogram(window);
        final long total = window.getTotalCount();
        for (int i = 0; i < PERCENTILES.length; i++)
        {
            quantiles[i].setRelease(total == 0 ? 0 :
                PERCENTILES[i] == 100 ? window.getMaxValue() : window.getValueAtPercentile(PERCENTILES[i]));
        }
        count.setRelease(total);
    }
}
