package io.gpux.gateway;

import org.agrona.concurrent.EpochClock;

/**
 * Exchange time that runs {@code scale} times faster than the wall clock from an anchor:
 * {@code time = anchorExchangeMs + (wallNow - anchorWallMs) * scale}. For demos and studies that
 * compress a day of market into a minute; the same anchor given to a restarted server continues
 * the same time line. Scale 1 with anchors equal is the wall clock.
 */
public final class ScaledEpochClock implements EpochClock
{
    private final long anchorWallMs;
    private final long anchorExchangeMs;
    private final long scale;

    public ScaledEpochClock(final long anchorWallMs, final long anchorExchangeMs, final long scale)
    {
        if (scale < 1)
        {
            throw new IllegalArgumentException("scale must be at least 1: " + scale);
        }
        this.anchorWallMs = anchorWallMs;
        this.anchorExchangeMs = anchorExchangeMs;
        this.scale = scale;
    }

    @Override
    public long time()
    {
        return anchorExchangeMs + (System.currentTimeMillis() - anchorWallMs) * scale;
    }
}
