package io.gpux.gateway.session;

/**
 * A token bucket: {@code ratePerSecond} tokens a second, at most {@code burst} saved up. Used by one
 * thread (the connection's event loop); time comes in as nanoseconds.
 */
public final class RateLimiter
{
    private final long nanosPerToken;
    private final long burstNanos;
    private long emptyAt;

    public RateLimiter(final long ratePerSecond, final long burst, final long nowNanos)
    {
        if (ratePerSecond <= 0 || burst <= 0)
        {
            throw new IllegalArgumentException("rate and burst must be positive");
        }
        nanosPerToken = Math.max(1, 1_000_000_000L / ratePerSecond);
        burstNanos = nanosPerToken * burst;
        emptyAt = nowNanos - burstNanos;
    }

    /** Takes a token if there is one. */
    public boolean tryAcquire(final long nowNanos)
    {
        // differences, not comparisons, of nanoTime values: they may wrap (System.nanoTime's contract)
        if (emptyAt - (nowNanos - burstNanos) < 0)
        {
            emptyAt = nowNanos - burstNanos;
        }
        final long next = emptyAt + nanosPerToken;
        if (next - nowNanos > 0)
        {
            return false;
        }
        emptyAt = next;
        return true;
    }
}
