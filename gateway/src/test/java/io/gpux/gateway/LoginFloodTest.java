package io.gpux.gateway;

import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.SessionErrorCode;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A flood of bad logins from one address over real sockets: past its allowance of failures the
 * address is refused (LOGIN_THROTTLED, no signature checked), counted and logged in a line or two,
 * while a good login from another address gets in; the gateway's clock is moved by hand.
 */
class LoginFloodTest
{
    private static final String WRONG_SECRET = "00".repeat(32);

    @Test
    void aFloodFromOneAddressIsThrottledWhileAnotherAddressLogsIn() throws Exception
    {
        final AtomicLong now = new AtomicLong(1_000_000_000_000L);
        try (TestExchange ex = TestExchange.start(c -> c.nanoClock(now::get).loginFailureBurst(5).loginFailuresPerSecond(1)))
        {
            final TestExchange.Key good;
            final TestExchange.Key victim;
            try (RawConnection admin = ex.login(ex.admin))
            {
                good = TestExchange.account(admin, "good", 0, Role.RENTER);
                victim = TestExchange.account(admin, "victim", 0, Role.RENTER);
            }
            int failed = 0;
            int throttled = 0;
            for (int i = 0; i < 60; i++)
            {
                try (RawConnection c = RawConnection.from("127.0.0.1", ex.port()))
                {
                    final Envelope e = c.login(victim.id(), WRONG_SECRET);
                    assertEquals(Envelope.BodyCase.SESSION_ERROR, e.getBodyCase(), e::toString);
                    switch (e.getSessionError().getCode())
                    {
                        case AUTHENTICATION_FAILED -> failed++;
                        case LOGIN_THROTTLED ->
                        {
                            throttled++;
                            assertTrue(e.getSessionError().getMessage().contains("retry in"), e::toString);
                        }
                        default -> throw new AssertionError(e.toString());
                    }
                }
            }
            assertEquals(5, failed, "the burst is checked");
            assertEquals(55, throttled, "the rest are refused unchecked");
            assertEquals(5, ex.exchange.failedLogins());
            assertEquals(55, ex.exchange.throttledLogins());
            assertEquals(1, ex.logLines("logins: ").size(), "one log line, not one per attempt: " + ex.logLines("logins: "));

            try (RawConnection c = RawConnection.from("127.0.0.2", ex.port()))
            {
                assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, c.login(good.id(), good.secret()).getBodyCase(),
                    "a good login from another address gets in");
            }
            try (RawConnection c = RawConnection.from("127.0.0.1", ex.port()))
            {
                assertEquals(SessionErrorCode.LOGIN_THROTTLED, c.login(good.id(), good.secret()).getSessionError().getCode(),
                    "the flooding address is held back whatever key it uses");
            }
            try (RawConnection c = RawConnection.from("127.0.0.3", ex.port()))
            {
                assertEquals(SessionErrorCode.LOGIN_THROTTLED, c.login(victim.id(), victim.secret()).getSessionError().getCode(),
                    "the flooded key is held back from every address");
            }

            now.addAndGet(TimeUnit.SECONDS.toNanos(10));
            try (RawConnection c = RawConnection.from("127.0.0.1", ex.port()))
            {
                assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, c.login(victim.id(), victim.secret()).getBodyCase(),
                    "once the flood stops, the address and the key get back in");
            }
        }
    }
}
