package io.gpux.gateway.auth;

import io.gpux.proto.v1.SessionErrorCode;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The failed-login throttle, on a clock moved by hand. */
class LoginThrottleTest
{
    private long now = 987_654_321_000L;
    private final List<String> log = new ArrayList<>();
    private final LoginThrottle throttle = new LoginThrottle(2, 5, () -> now, 10_000, log::add);

    private static InetAddress address(final int last) throws Exception
    {
        return InetAddress.getByAddress(new byte[] {10, 0, 0, (byte)last});
    }

    private void fail(final InetAddress from, final long key)
    {
        throttle.onFailure(from, key, SessionErrorCode.AUTHENTICATION_FAILED, "unknown key or bad signature");
    }

    @Test
    void anAddressThatFailsItsBurstIsRefusedUntilItsBucketRefills() throws Exception
    {
        final InetAddress flooder = address(1);
        for (int i = 0; i < 5; i++)
        {
            assertNull(throttle.check(flooder, 1000 + i), "within the burst, each login is checked");
            fail(flooder, 1000 + i);
        }
        final String refusal = throttle.check(flooder, 2000);
        assertNotNull(refusal, "the address has used its failures, whatever key it tries");
        assertEquals("too many failed logins from this address: retry in 500 ms", refusal);
        assertNull(throttle.check(address(2), 2000), "another address is not held back");
        assertEquals(5, throttle.failed());
        assertEquals(1, throttle.throttled());

        now += TimeUnit.MILLISECONDS.toNanos(499);
        assertNotNull(throttle.check(flooder, 2000));
        now += TimeUnit.MILLISECONDS.toNanos(1);
        assertNull(throttle.check(flooder, 2000), "a token back after 1/rate s");
        fail(flooder, 2000);
        assertNotNull(throttle.check(flooder, 2000), "and spent again");
        assertEquals(3, throttle.throttled(), "refusals take no token: a client that waits gets its try");
    }

    @Test
    void aKeyFailingFromManyAddressesIsRefusedEverywhere() throws Exception
    {
        for (int i = 0; i < 5; i++)
        {
            assertNull(throttle.check(address(10 + i), 77));
            fail(address(10 + i), 77);
        }
        final String refusal = throttle.check(address(99), 77);
        assertNotNull(refusal);
        assertTrue(refusal.startsWith("too many failed logins from this key"), refusal);
        assertNull(throttle.check(address(99), 78), "another key from that address is checked");
    }

    @Test
    void aFloodLogsOneLineAtOnceThenOneSummaryPerInterval() throws Exception
    {
        final InetAddress flooder = address(1);
        for (int i = 0; i < 10_000; i++)
        {
            if (throttle.check(flooder, 5) == null)
            {
                fail(flooder, 5);
            }
            now += TimeUnit.MICROSECONDS.toNanos(100);  // 10,000 attempts a second, for one second
        }
        assertEquals(1, log.size(), "the first failure is logged, the rest wait for the interval: " + log);
        now += TimeUnit.SECONDS.toNanos(10);
        assertNull(throttle.check(flooder, 5), "refilled after a quiet spell");
        fail(flooder, 5);
        assertEquals(2, log.size());
        final String summary = log.get(1);
        assertTrue(summary.contains("failed") && summary.contains("throttled") && summary.contains("10.0.0.1"), summary);
        assertEquals(throttle.failed() + throttle.throttled(), 10_001, "every attempt counted once");
        throttle.onSessionLimit(flooder, 5, "account x has its maximum of 64 sessions: log one out first");
        assertEquals(1, throttle.overSessionLimit());
        assertEquals(2, log.size(), "logged with the next summary, not at once");
    }
}
