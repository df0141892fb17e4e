package io.gpux.client;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential reconnect delays with jitter: the n-th delay after the last successful login is drawn
 * from {@code [d/2, d]} with {@code d = min(initial * 2^(n-1), max)}. The jitter keeps hundreds of
 * clients that lost the same gateway from knocking on it in the same millisecond.
 */
final class ReconnectBackoff
{
    private final long initialMs;
    private final long maxMs;
    private long nextMs;

    ReconnectBackoff(final long initialMs, final long maxMs)
    {
        if (initialMs < 1 || maxMs < initialMs)
        {
            throw new IllegalArgumentException("need 1 <= initial <= max, got " + initialMs + " and " + maxMs);
        }
        this.initialMs = initialMs;
        this.maxMs = maxMs;
        this.nextMs = initialMs;
    }

    /** The delay before the next attempt, in milliseconds. */
    long nextDelayMs()
    {
        final long ceiling = nextMs;
        nextMs = Math.min(maxMs, nextMs * 2);
        final long floor = ceiling / 2;
        return floor + ThreadLocalRandom.current().nextLong(ceiling - floor + 1);
    }

    /** Back to the initial delay (after a successful login). */
    void reset()
    {
        nextMs = initialMs;
    }
}
