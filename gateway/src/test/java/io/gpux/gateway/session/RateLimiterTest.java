package io.gpux.gateway.session;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The session token bucket, driven by hand-made nanosecond times. */
class RateLimiterTest
{
    private static final long MS = 1_000_000L;
    private static final long T0 = 123_456_789_000L;

    private static int drain(final RateLimiter limiter, final long now)
    {
        int n = 0;
        while (limiter.tryAcquire(now))
        {
            n++;
            if (n > 1_000_000)
            {
                throw new AssertionError("the bucket does not run dry");
            }
        }
        return n;
    }

    @Test
    void aFreshBucketHoldsTheBurstThenRefillsAtTheRate()
    {
        final RateLimiter limiter = new RateLimiter(10, 5, T0);
        assertEquals(5, drain(limiter, T0), "the burst");
        assertFalse(limiter.tryAcquire(T0 + 99 * MS), "one token takes 100 ms");
        assertTrue(limiter.tryAcquire(T0 + 100 * MS));
        assertFalse(limiter.tryAcquire(T0 + 100 * MS));
        assertEquals(3, drain(limiter, T0 + 400 * MS), "three more tokens by 400 ms");
    }

    @Test
    void idleTimeSavesUpNoMoreThanTheBurst()
    {
        final RateLimiter limiter = new RateLimiter(10, 5, T0);
        drain(limiter, T0);
        assertEquals(5, drain(limiter, T0 + 3_600_000 * MS), "an hour idle still gives only the burst");
        assertFalse(limiter.tryAcquire(T0 + 3_600_000 * MS));
    }

    @Test
    void aSteadyRateAtTheLimitIsNeverRefused()
    {
        final RateLimiter limiter = new RateLimiter(1000, 1, T0);
        for (int i = 0; i < 10_000; i++)
        {
            assertTrue(limiter.tryAcquire(T0 + i * MS), "request " + i);
        }
        assertFalse(limiter.tryAcquire(T0 + 9_999 * MS));
    }

    @Test
    void overALongRunThePassedCountFollowsTheRate()
    {
        final RateLimiter limiter = new RateLimiter(50, 10, T0);
        int passed = 0;
        // a request every 1 ms for 10 s: 10 of burst, then 50 a second
        for (int i = 0; i <= 10_000; i++)
        {
            if (limiter.tryAcquire(T0 + i * MS))
            {
                passed++;
            }
        }
        assertEquals(10 + 500, passed);
    }

    @Test
    void timeGoingBackDoesNotMintTokens()
    {
        final RateLimiter limiter = new RateLimiter(10, 2, T0);
        drain(limiter, T0);
        assertFalse(limiter.tryAcquire(T0 - 10_000 * MS));
        assertFalse(limiter.tryAcquire(T0));
    }

    @Test
    void nanoTimeNearItsWrapIsHandled()
    {
        final long t = Long.MAX_VALUE - 50 * MS;
        final RateLimiter limiter = new RateLimiter(10, 3, t);
        assertEquals(3, drain(limiter, t));
        assertTrue(limiter.tryAcquire(t + 100 * MS), "past Long.MAX_VALUE, as System.nanoTime() may go");
        assertFalse(limiter.tryAcquire(t + 100 * MS));
    }

    @Test
    void ratesAboveOneANanosecondAndNonsenseSettings()
    {
        final RateLimiter fast = new RateLimiter(5_000_000_000L, 4, T0);
        assertEquals(4, drain(fast, T0));
        assertThrows(IllegalArgumentException.class, () -> new RateLimiter(0, 1, T0));
        assertThrows(IllegalArgumentException.class, () -> new RateLimiter(1, 0, T0));
        assertThrows(IllegalArgumentException.class, () -> new RateLimiter(-1, 1, T0));
    }
}
