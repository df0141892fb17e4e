package io.gpux.gateway;

import io.gpux.proto.v1.Cancel;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Heartbeat;
import io.gpux.proto.v1.MarketsRequest;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Role;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The per-session token bucket, end to end: 50 requests a second, bursts of 10. The gateway's clock is moved by hand, so
 * the bucket refills only when a test says so.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RateLimitTest
{
    private static final int RATE = 50;
    private static final int BURST = 10;

    private final AtomicLong now = new AtomicLong(1_000_000_000_000L);
    private TestExchange ex;
    private TestExchange.Key key;

    @BeforeEach
    void setUp() throws Exception
    {
        ex = TestExchange.start(c -> c.nanoClock(now::get).ratePerSecond(RATE).rateBurst(BURST));
        try (RawConnection admin = ex.login(ex.admin))
        {
            key = TestExchange.account(admin, "burster", 1_000_000, Role.RENTER);
        }
    }

    @AfterEach
    void tearDown()
    {
        ex.close();
    }

    /**
     * Sends the requests in one write and reads the answer to each; returns the answers in request
     * order. They need not arrive in that order: the gateway answers RATE_LIMITED at once, the engine's
     * answers come later through the egress.
     */
    private static List<Envelope> burst(final RawConnection c, final List<Envelope.Builder> requests) throws IOException
    {
        final long first = c.requests(requests);
        final java.util.Map<Long, Envelope> byId = new java.util.HashMap<>();
        while (byId.size() < requests.size())
        {
            final Envelope e = c.read();
            assertNotNull(e, "closed after " + byId.size() + " answers");
            final long id = e.getRequestId();
            if (id >= first && id < first + requests.size() && e.getBodyCase() != Envelope.BodyCase.EVENT)
            {
                assertEquals(null, byId.put(id, e), "one answer per request");
            }
        }
        final List<Envelope> answers = new ArrayList<>();
        for (long id = first; id < first + requests.size(); id++)
        {
            answers.add(byId.get(id));
        }
        return answers;
    }

    private static boolean limited(final Envelope e)
    {
        return e.getBodyCase() == Envelope.BodyCase.RESPONSE && e.getResponse().getReason() == Reason.RATE_LIMITED;
    }

    @Test
    void aBurstBeyondTheBucketIsRefusedThenTheRateComesBack() throws Exception
    {
        try (RawConnection c = ex.login(key))
        {
            final List<Envelope.Builder> requests = new ArrayList<>();
            for (int i = 0; i < 100; i++)
            {
                requests.add(Envelope.newBuilder().setMarketsRequest(MarketsRequest.getDefaultInstance()));
            }
            final List<Envelope> answers = burst(c, requests);
            final long refused = answers.stream().filter(RateLimitTest::limited).count();
            final long answered = answers.stream().filter(e -> e.getBodyCase() == Envelope.BodyCase.MARKETS).count();
            assertEquals(100, refused + answered, "every request is answered, one way or the other");
            // the clock stands still: the burst passes, nothing refills
            assertEquals(BURST, answered, "the burst passes, no more");
            for (int i = 0; i < BURST; i++)
            {
                assertEquals(Envelope.BodyCase.MARKETS, answers.get(i).getBodyCase(), "the first requests are the burst");
            }

            // one token's time brings back one request, not two
            now.addAndGet(TimeUnit.SECONDS.toNanos(1) / RATE);
            assertEquals(Envelope.BodyCase.MARKETS, marketsRequest(c).getBodyCase(), "one token has refilled");
            assertTrue(limited(marketsRequest(c)), "only one token has refilled");

            now.addAndGet(TimeUnit.SECONDS.toNanos(1));
            for (int i = 0; i < BURST; i++)
            {
                final Envelope e = marketsRequest(c);
                assertEquals(Envelope.BodyCase.MARKETS, e.getBodyCase(), "after a second the bucket has refilled: " + e);
            }
            assertTrue(limited(marketsRequest(c)), "a second refills the bucket to its burst, no further");
        }
    }

    private static Envelope marketsRequest(final RawConnection c) throws IOException
    {
        return c.responseTo(c.request(Envelope.newBuilder().setMarketsRequest(MarketsRequest.getDefaultInstance())));
    }

    @Test
    void refusedCommandsAreNotJournaledAndHeartbeatsAreNotCounted() throws Exception
    {
        try (RawConnection c = ex.login(key))
        {
            // heartbeats are free: 200 of them, then a full burst still passes
            final List<Envelope.Builder> heartbeats = new ArrayList<>();
            for (int i = 0; i < 200; i++)
            {
                heartbeats.add(Envelope.newBuilder().setHeartbeat(Heartbeat.getDefaultInstance()));
            }
            c.requests(heartbeats);
            final List<Envelope.Builder> cancels = new ArrayList<>();
            for (int i = 0; i < 100; i++)
            {
                cancels.add(Envelope.newBuilder().setCancel(Cancel.newBuilder().setOrderId(i + 1)));
            }
            final List<Envelope> answers = burst(c, cancels);
            int journaled = 0;
            for (int i = 0; i < answers.size(); i++)
            {
                final Envelope e = answers.get(i);
                assertEquals(Envelope.BodyCase.RESPONSE, e.getBodyCase());
                if (limited(e))
                {
                    assertEquals(0, e.getResponse().getCommandSeq(), "a refused command never reaches the journal");
                }
                else
                {
                    assertEquals(Reason.UNKNOWN_ORDER, e.getResponse().getReason(), e::toString);
                    assertTrue(e.getResponse().getCommandSeq() > 0);
                    journaled++;
                }
                if (i < BURST)
                {
                    assertEquals(Reason.UNKNOWN_ORDER, e.getResponse().getReason(), "heartbeats took no tokens");
                }
            }
            assertTrue(journaled < 100, "some were refused");
        }
    }

    @Test
    void eachSessionHasItsOwnBucket() throws Exception
    {
        try (RawConnection first = ex.login(key); RawConnection second = ex.login(key))
        {
            final List<Envelope.Builder> requests = new ArrayList<>();
            for (int i = 0; i < 40; i++)
            {
                requests.add(Envelope.newBuilder().setMarketsRequest(MarketsRequest.getDefaultInstance()));
            }
            assertTrue(burst(first, requests).stream().anyMatch(RateLimitTest::limited));
            final List<Envelope> secondAnswers = burst(second, requests.subList(0, BURST));
            assertTrue(secondAnswers.stream().noneMatch(RateLimitTest::limited), "another session of the account is not limited");
        }
    }
}
