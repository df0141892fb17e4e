package io.gpux.gateway;

import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Cancel;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.PortfolioRequest;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.SessionErrorCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Resends are cursors the egress advances a bounded slice at a time: an account with a long history
 * asking for all of it on many connections that never read does not hold the gateway, another
 * account's round trips stay quick and its sessions stay up, and a session that does read gets every
 * event once, in order, then the live stream. The per-account and global limits refuse a Login that
 * would start one resend too many, with the reason, and such a refused Login cancels nothing.
 */
class ResendUnderLoadTest
{
    private static final String MARKET = "A100-80G";
    private static final int SILENT = 40;
    /** A round trip slower than this is slow; at most {@link #SLOW_SHARE} of them may be, on a loaded machine. */
    private static final long ROUND_TRIP_BOUND_MS = 500;
    private static final double SLOW_SHARE = 0.05;
    /** No round trip may take this long: a gateway held by the resends would stall every one far longer. */
    private static final long HELD_MS = 5000;
    /** Bids and cancels that build the long history (two events each pair at least). */
    private static final int HISTORY_PAIRS = 15_000;
    /**
     * Bids and cancels of a history whose resend cannot finish without the client reading: its frames
     * (over 5 MiB) are more than the socket buffers of a loopback connection (up to 4 MiB) and the
     * high-water mark hold.
     */
    private static final int STALLING_PAIRS = 60_000;
    /** Bids and cancels the heavy account makes while the resends run. */
    private static final int HEAVY_LIVE_PAIRS = 20;

    private TestExchange ex;

    /** The thread layout under test: the core and the egress on the event loop (the default) or their own threads. */
    boolean sharedLoop()
    {
        return true;
    }

    @AfterEach
    void tearDown()
    {
        if (ex != null)
        {
            ex.close();
        }
    }

    /**
     * An exchange with the resend limits and the high-water mark given (unread output a connection may have).
     * Connections opened before a long history is written log in after it: the login deadline outlasts the test.
     */
    private TestExchange start(final int perAccount, final int total, final int highWaterBytes) throws Exception
    {
        ex = TestExchange.start(c -> c.sharedLoop(sharedLoop()).heartbeatIntervalMs(2000).loginTimeoutMs(120_000)
            .outboundHighWaterBytes(highWaterBytes)
            .ratePerSecond(10_000_000).rateBurst(1_000_000).maxResendsPerAccount(perAccount).maxResends(total));
        return ex;
    }

    /**
     * Many resting bids, each cancelled, in pipelined batches of {@code batch} pairs: a long history
     * fast (a batch's answers must fit under the exchange's high-water mark). Returns the account's last event.
     */
    private static long history(final RawConnection c, final int pairs, final int batch) throws IOException
    {
        for (int from = 0; from < pairs; from += batch)
        {
            final List<Envelope.Builder> requests = new ArrayList<>(2 * batch);
            for (int i = from + 1; i <= Math.min(pairs, from + batch); i++)
            {
                requests.add(Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
                    .setOrderId(i).setMarket(MARKET).setGpus(1).setPrice(1 + i % 50)));
            }
            final int bids = requests.size();
            for (int i = from + 1; i <= from + bids; i++)
            {
                requests.add(Envelope.newBuilder().setCancel(Cancel.newBuilder().setOrderId(i)));
            }
            final long first = c.requests(requests);
            final Envelope last = c.responseTo(first + requests.size() - 1);
            assertEquals(Reason.REASON_OK, last.getResponse().getReason(), last::toString);
        }
        return lastSeq(c);
    }

    private static long lastSeq(final RawConnection c) throws IOException
    {
        final Envelope e = c.responseTo(c.request(Envelope.newBuilder().setPortfolioRequest(PortfolioRequest.getDefaultInstance())));
        assertEquals(Envelope.BodyCase.PORTFOLIO, e.getBodyCase(), e::toString);
        return e.getPortfolio().getLastSeq();
    }

    /** Sends a Login asking for a resend after {@code lastSeq}; returns the first frame of the answer. */
    private static Envelope resume(final RawConnection c, final TestExchange.Key key, final long lastSeq,
        final boolean cancelOnDisconnect) throws IOException
    {
        c.send(Envelope.newBuilder().setLogin(RawConnection.login(key.id(), key.secret(), System.currentTimeMillis())
            .setLastSeq(lastSeq).setCancelOnDisconnect(cancelOnDisconnect)).build());
        return c.readNonHeartbeat();
    }

    /**
     * A bid and its cancel; asserts each answer comes within {@link #HELD_MS} and adds their round trips (ms) to
     * {@code times}.
     */
    private static void tradeRoundTrips(final RawConnection c, final long orderId, final List<Long> times) throws IOException
    {
        long started = System.nanoTime();
        final Response bid = TestExchange.ok(c, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
            .setOrderId(orderId).setMarket(MARKET).setGpus(1).setPrice(7)));
        final long bidMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertTrue(bidMs < HELD_MS, () -> "a bid answered in " + bidMs + " ms during the resends: " + bid);
        started = System.nanoTime();
        TestExchange.ok(c, Envelope.newBuilder().setCancel(Cancel.newBuilder().setOrderId(orderId)));
        final long cancelMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertTrue(cancelMs < HELD_MS, () -> "a cancel answered in " + cancelMs + " ms during the resends");
        times.add(bidMs);
        times.add(cancelMs);
    }

    /** At most {@link #SLOW_SHARE} of the round trips (and at least one may be) over {@link #ROUND_TRIP_BOUND_MS}. */
    private static void assertFewSlow(final List<Long> times)
    {
        final long slow = times.stream().filter(t -> t >= ROUND_TRIP_BOUND_MS).count();
        assertTrue(slow <= Math.max(1, (long)(SLOW_SHARE * times.size())), () -> slow + " of " + times.size()
            + " round trips took " + ROUND_TRIP_BOUND_MS + " ms or more during the resends: " + times);
    }

    /** What a reading resend session saw: its events in order, where ResendComplete came, and what it said. */
    private record Resent(List<AccountEvent> events, int completeAt, long completeLastSeq, long completeResent)
    {
    }

    /** Reads a resend from the LoginAccepted on, until the account's event {@code until} and ResendComplete have come. */
    private static Resent readResend(final RawConnection c, final long until) throws IOException
    {
        return readResend(c, until, () -> false);
    }

    /**
     * Reads a resend until the account's event {@code until} and ResendComplete have come, or (checked
     * between frames: the server's heartbeats come at least every interval) {@code giveUp} says so.
     */
    private static Resent readResend(final RawConnection c, final long until, final BooleanSupplier giveUp) throws IOException
    {
        final List<AccountEvent> events = new ArrayList<>();
        int completeAt = -1;
        long completeLast = -1;
        long completeResent = -1;
        while ((completeAt < 0 || events.isEmpty() || events.get(events.size() - 1).getSeq() < until) && !giveUp.getAsBoolean())
        {
            final Envelope e = c.read();
            if (e != null && e.getBodyCase() == Envelope.BodyCase.HEARTBEAT)
            {
                continue;
            }
            assertNotNull(e, "the resending session was closed after " + events.size() + " events");
            if (e.getBodyCase() == Envelope.BodyCase.EVENT)
            {
                events.add(e.getEvent());
            }
            else if (e.getBodyCase() == Envelope.BodyCase.RESEND_COMPLETE)
            {
                assertEquals(-1, completeAt, "a second ResendComplete");
                completeAt = events.size();
                completeLast = e.getResendComplete().getLastSeq();
                completeResent = e.getResendComplete().getEventsResent();
            }
            else
            {
                throw new AssertionError("unexpected during the resend: " + e);
            }
        }
        return new Resent(events, completeAt, completeLast, completeResent);
    }

    /**
     * The other account trades on its own thread from before the resends are asked for until after the
     * reading session is live; each answer within {@link #HELD_MS} and few over {@link #ROUND_TRIP_BOUND_MS}; it
     * also makes the heavy account's live events while the resends run. Returns how many round trips it made.
     */
    private static CompletableFuture<Integer> trade(
        final RawConnection trader, final RawConnection heavy, final AtomicBoolean stop, final AtomicInteger roundTrips)
    {
        return CompletableFuture.supplyAsync(() ->
        {
            try
            {
                final List<Long> times = new ArrayList<>();
                long orderId = 1;
                while (!stop.get())
                {
                    tradeRoundTrips(trader, orderId++, times);
                    final int n = roundTrips.incrementAndGet();
                    if (n % 3 == 0 && n <= 3 * HEAVY_LIVE_PAIRS)
                    {
                        final long id = 1_000_000 + n;
                        TestExchange.ok(heavy, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
                            .setOrderId(id).setMarket(MARKET).setGpus(1).setPrice(3)));
                        TestExchange.ok(heavy, Envelope.newBuilder().setCancel(Cancel.newBuilder().setOrderId(id)));
                    }
                }
                assertFewSlow(times);
                return roundTrips.get();
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        });
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void manyResendsThatNeverReadDoNotHoldTheGatewayAndAReaderGetsEverythingThenLive() throws Exception
    {
        // the default high-water mark: a connection that does not read may have 8 MiB queued, all of this history
        start(SILENT + 1, SILENT + 8, GatewayConfiguration.HIGH_WATER_DEFAULT);
        final TestExchange.Key heavyKey;
        final TestExchange.Key traderKey;
        try (RawConnection admin = ex.login(ex.admin))
        {
            heavyKey = TestExchange.account(admin, "heavy", 1_000_000_000_000_000L, Role.RENTER);
            traderKey = TestExchange.account(admin, "trader", 1_000_000_000_000L, Role.RENTER);
        }
        final List<RawConnection> silent = new ArrayList<>();
        try (RawConnection heavy = ex.login(heavyKey);
             RawConnection trader = ex.login(traderKey);
             RawConnection traderIdle = ex.login(traderKey);
             RawConnection reader = new RawConnection(ex.port()))
        {
            heavy.startHeartbeats(250);
            trader.startHeartbeats(250);
            traderIdle.startHeartbeats(250);
            final long historyLast = history(heavy, HISTORY_PAIRS, 1000);
            assertTrue(historyLast >= 2L * HISTORY_PAIRS, () -> "history of " + historyLast + " events");

            final AtomicBoolean stop = new AtomicBoolean();
            final AtomicInteger roundTrips = new AtomicInteger();
            final CompletableFuture<Integer> trading = trade(trader, heavy, stop, roundTrips);
            while (roundTrips.get() < 5 && !trading.isDone())
            {
                Thread.sleep(1);
            }
            // connections that ask for the whole history at once and never read it (a 4 KiB receive buffer)
            for (int i = 0; i < SILENT; i++)
            {
                final RawConnection c = new RawConnection(ex.port(), 4096);
                silent.add(c);
                c.send(Envelope.newBuilder().setLogin(RawConnection.login(heavyKey.id(), heavyKey.secret(),
                    System.currentTimeMillis()).setLastSeq(0)).build());
            }
            final Envelope accepted = resume(reader, heavyKey, 0, false);
            assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, accepted.getBodyCase(), accepted::toString);
            final long readerLast = accepted.getLoginAccepted().getLastSeq();
            reader.startHeartbeats(250);
            // and the heavy account's live events made meanwhile, before or after this login: a bid and a cancel, 2 events each
            final long heavyFinal = historyLast + 2 * HEAVY_LIVE_PAIRS;
            final long readUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            final Resent r = readResend(reader, heavyFinal,
                () -> trading.isCompletedExceptionally() || System.nanoTime() > readUntil);
            while (roundTrips.get() < 3 * HEAVY_LIVE_PAIRS + 10 && !trading.isDone())
            {
                Thread.sleep(1);
            }
            stop.set(true);
            final int traded;
            try
            {
                traded = trading.get(60, TimeUnit.SECONDS);
            }
            catch (final ExecutionException ex)
            {
                throw ex.getCause() instanceof Error error ? error : new AssertionError(ex.getCause());
            }
            assertEquals(heavyFinal, r.events().size(), "the events the reading session had in 60 s");

            for (int i = 0; i < r.events().size(); i++)
            {
                assertEquals(i + 1, r.events().get(i).getSeq(), "every event once, in order");
            }
            assertEquals(readerLast, r.completeAt(), "ResendComplete right after the account's last event at login");
            assertEquals(readerLast, r.completeLastSeq());
            assertEquals(readerLast, r.completeResent());

            // live: the reader's own command's events come next, without a gap, and then its answer
            final long request = reader.request(Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
                .setOrderId(5_000_000).setMarket(MARKET).setGpus(1).setPrice(5)));
            final List<AccountEvent> after = new ArrayList<>();
            final Response answer = GatewayTest.collect(reader, request, after);
            assertEquals(Reason.REASON_OK, answer.getReason(), answer::toString);
            final long heavyLast = lastSeq(heavy);
            final long readerSeen = r.events().get(r.events().size() - 1).getSeq();
            assertTrue(!after.isEmpty(), "the reader's bid's events came before its answer");
            for (int i = 0; i < after.size(); i++)
            {
                assertEquals(readerSeen + 1 + i, after.get(i).getSeq(), "live, without a gap, after the resend");
            }
            assertEquals(heavyLast, after.get(after.size() - 1).getSeq());

            // the other account's sessions are both still up
            final List<Long> lastTrips = new ArrayList<>();
            tradeRoundTrips(trader, 9_000_000, lastTrips);
            tradeRoundTrips(traderIdle, 9_000_001, lastTrips);
            System.err.printf("resend under load: %d events of history, %d silent resends, %d round trips meanwhile%n",
                historyLast, SILENT, traded);
        }
        finally
        {
            for (final RawConnection c : silent)
            {
                c.close();
            }
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aLoginPastTheAccountsResendLimitIsRefusedWithTheReasonAndCancelsNothing() throws Exception
    {
        start(2, 64, 64 * 1024);
        final TestExchange.Key heavyKey;
        try (RawConnection admin = ex.login(ex.admin))
        {
            heavyKey = TestExchange.account(admin, "heavy", 1_000_000_000_000_000L, Role.RENTER);
        }
        try (RawConnection heavy = ex.login(heavyKey);
             RawConnection stalled1 = new RawConnection(ex.port(), 4096);
             RawConnection stalled2 = new RawConnection(ex.port(), 4096);
             RawConnection refused = new RawConnection(ex.port());
             RawConnection liveOnly = new RawConnection(ex.port());
             RawConnection upToDate = new RawConnection(ex.port()))
        {
            heavy.startHeartbeats(250);
            history(heavy, STALLING_PAIRS, 200);
            TestExchange.ok(heavy, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
                .setOrderId(99_999).setMarket(MARKET).setGpus(1).setPrice(2)));
            final long last = lastSeq(heavy);
            final Envelope stalled1Accepted = resume(stalled1, heavyKey, 0, false);
            assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, stalled1Accepted.getBodyCase(), stalled1Accepted::toString);
            final Envelope stalled2Accepted = resume(stalled2, heavyKey, 0, false);
            assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, stalled2Accepted.getBodyCase(), stalled2Accepted::toString);
            stalled1.startHeartbeats(250);
            stalled2.startHeartbeats(250);

            final Envelope refusal = resume(refused, heavyKey, 0, true);
            assertEquals(Envelope.BodyCase.SESSION_ERROR, refusal.getBodyCase(), refusal::toString);
            assertEquals(SessionErrorCode.TOO_MANY_RESENDS, refusal.getSessionError().getCode());
            assertTrue(refusal.getSessionError().getMessage().contains("the account has 2 resends in progress"),
                refusal.getSessionError().getMessage());
            assertTrue(refused.closedByServer(), "the refused connection is closed");
            assertEquals(2, ex.exchange.egress.resendsInProgress(), "the stalled resends are still in progress");

            // no resend asked, or nothing to resend: no limit
            assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, liveOnly.login(heavyKey.id(), heavyKey.secret()).getBodyCase());
            assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, resume(upToDate, heavyKey, last, false).getBodyCase());
            final Envelope none = upToDate.readNonHeartbeat();
            assertEquals(0, none.getResendComplete().getEventsResent(), none::toString);

            // the refused Login asked for cancel-on-disconnect, but it was never a session: the order stands
            final Envelope portfolio = heavy.responseTo(heavy.request(
                Envelope.newBuilder().setPortfolioRequest(PortfolioRequest.getDefaultInstance())));
            assertEquals(1, portfolio.getPortfolio().getOrdersCount(), portfolio::toString);

            // a stalled resend that goes away frees its place
            stalled1.close();
            final long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (ex.exchange.egress.resendsInProgress() > 1)
            {
                assertTrue(System.nanoTime() < until, "the closed connection's resend was not ended");
                Thread.sleep(5);
            }
            try (RawConnection again = new RawConnection(ex.port()))
            {
                assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, resume(again, heavyKey, last - 10, false).getBodyCase());
                final Resent r = readResend(again, last);
                assertEquals(10, r.events().size());
                assertEquals(10, r.completeResent());
            }
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aLoginPastTheGatewaysResendLimitIsRefusedWithTheReason() throws Exception
    {
        start(4, 1, 64 * 1024);
        final TestExchange.Key heavyKey;
        final TestExchange.Key otherKey;
        try (RawConnection admin = ex.login(ex.admin))
        {
            heavyKey = TestExchange.account(admin, "heavy", 1_000_000_000_000_000L, Role.RENTER);
            otherKey = TestExchange.account(admin, "other", 1_000_000L, Role.RENTER);
        }
        try (RawConnection heavy = ex.login(heavyKey);
             RawConnection stalled = new RawConnection(ex.port(), 4096);
             RawConnection refused = new RawConnection(ex.port()))
        {
            heavy.startHeartbeats(250);
            history(heavy, STALLING_PAIRS, 200);
            final Envelope stalledAccepted = resume(stalled, heavyKey, 0, false);
            assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, stalledAccepted.getBodyCase(), stalledAccepted::toString);
            stalled.startHeartbeats(250);
            final Envelope refusal = resume(refused, otherKey, 0, false);
            assertEquals(Envelope.BodyCase.SESSION_ERROR, refusal.getBodyCase(), refusal::toString);
            assertEquals(SessionErrorCode.TOO_MANY_RESENDS, refusal.getSessionError().getCode());
            assertTrue(refusal.getSessionError().getMessage().contains("the gateway has 1 resends in progress"),
                refusal.getSessionError().getMessage());
            assertEquals(1, ex.exchange.egress.resendsInProgress(), "the stalled resend is still in progress");
        }
    }
}
