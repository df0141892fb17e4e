package io.gpux.sim.market;

/**
 * Market time as the demo's exchange computes it ({@code io.gpux.gateway.ScaledEpochClock}):
 * {@code anchorMarketMs + (wallNow - anchorWallMs) * scale}. Agents read it for their decisions;
 * the exchange stamps its own time on every command.
 */
public final class ScaledClock
{
    private final long anchorWallMs;
    private final long anchorMarketMs;
    private final long scale;

    public ScaledClock(final long anchorWallMs, final long anchorMarketMs, final long scale)
    {
        if (scale < 1)
        {
            throw new IllegalArgumentException("scale must be at least 1");
        }
        this.anchorWallMs = anchorWallMs;
        this.anchorMarketMs = anchorMarketMs;
        this.scale = scale;
    }

    public long now()
    {
        return marketTime(System.currentTimeMillis());
    }

    public long marketTime(final long wallMs)
    {
        return anchorMarketMs + (wallMs - anchorWallMs) * scale;
    }

    /** The wall time at which the market reaches {@code marketMs}. */
    public long wallTime(final long marketMs)
    {
        return anchorWallMs + Math.floorDiv(marketMs - anchorMarketMs, scale);
    }

    /** Wall microseconds for a span of market milliseconds. */
    public long wallMicros(final long marketMs)
    {
        return Math.max(0, marketMs * 1000 / scale);
    }

    public long scale()
    {
        return scale;
    }

    public long anchorWallMs()
    {
        return anchorWallMs;
    }

    public long anchorMarketMs()
    {
        return anchorMarketMs;
    }

    /** The server's {@code --clock-anchor} value. */
    public String anchorArgument()
    {
        return anchorWallMs + ":" + anchorMarketMs;
    }
}
