package io.gpux.sim.market;

import java.util.concurrent.TimeUnit;
import org.HdrHistogram.ConcurrentHistogram;

/**
 * Order-to-fill latencies from every client (any thread): all of them, and those of orders submitted
 * after the opening burst (when every agent registers, asks and bids at once, the first second or so
 * measures a queue, not the exchange).
 */
public final class LatencyRecorder
{
    private final ConcurrentHistogram all = new ConcurrentHistogram(TimeUnit.SECONDS.toNanos(60), 3);
    private final ConcurrentHistogram afterOpening = new ConcurrentHistogram(TimeUnit.SECONDS.toNanos(60), 3);
    private volatile long openingEndsNanos = Long.MAX_VALUE;

    /** Orders submitted from {@code nanoTime} on count as after the opening. */
    public void openingEndsAt(final long nanoTime)
    {
        openingEndsNanos = nanoTime;
    }

    void record(final long submittedNanos, final long filledNanos)
    {
        final long v = Math.min(Math.max(filledNanos - submittedNanos, 0), all.getHighestTrackableValue());
        all.recordValue(v);
        if (submittedNanos >= openingEndsNanos)
        {
            afterOpening.recordValue(v);
        }
    }

    public ConcurrentHistogram all()
    {
        return all;
    }

    public ConcurrentHistogram afterOpening()
    {
        return afterOpening;
    }
}
