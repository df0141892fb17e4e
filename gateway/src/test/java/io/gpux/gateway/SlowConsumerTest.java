package io.gpux.gateway;

import io.gpux.proto.v1.Cancel;
import io.gpux.proto.v1.Deposit;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.PortfolioRequest;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.SessionErrorCode;
import io.gpux.proto.v1.Subscribe;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A connection that stops reading is cut off (SLOW_CONSUMER) once its unsent output passes the
 * high-water mark, and nobody else waits for it: other sessions keep their answers, the engine keeps
 * applying commands. A cut-off client that never reads again still loses its connection (after
 * the close grace, not never), and so does one that floods requests the gateway answers by itself
 * without reading the answers (which must not queue without bound). Sizes, not speeds, are asserted;
 * the loops run until the cut or a generous deadline. The two that wait out the close grace do it
 * side by side, each with its own exchange and a short grace ({@link #SHORT_GRACE_MS}).
 */
class SlowConsumerTest
{
    private static final String MARKET = "L40S-48G";
    private static final int HIGH_WATER = 256 * 1024;
    private static final long DEADLINE_MS = 90_000;
    /** The close grace of the exchanges whose tests wait it out. */
    private static final long SHORT_GRACE_MS = 200;

    private TestExchange ex;

    @AfterEach
    void tearDown()
    {
        if (ex != null)
        {
            ex.close();
        }
    }

    private TestExchange start(final long closeGraceMs) throws Exception
    {
        ex = TestExchange.start(c -> c.outboundHighWaterBytes(HIGH_WATER).heartbeatIntervalMs(1000).closeGraceMs(closeGraceMs));
        return ex;
    }

    private boolean cutOff(final RawConnection c)
    {
        final String peer = ":" + c.localPort() + ")";
        return ex.log.stream().anyMatch(line -> line.contains("SLOW_CONSUMER") && line.contains(peer));
    }

    /** Reads until the server closes; returns every frame read. */
    private static List<Envelope> drain(final RawConnection c) throws IOException
    {
        c.socket.setSoTimeout(30_000);
        final List<Envelope> frames = new ArrayList<>();
        Envelope e;
        while ((e = c.read()) != null)
        {
            frames.add(e);
        }
        return frames;
    }

    private static void roundTrip(final RawConnection c) throws IOException
    {
        final Envelope e = c.responseTo(c.request(Envelope.newBuilder().setPortfolioRequest(PortfolioRequest.getDefaultInstance())));
        assertEquals(Envelope.BodyCase.PORTFOLIO, e.getBodyCase(), e::toString);
    }

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void aStalledSubscriberIsCutOffWhileOthersAndTheEngineCarryOn() throws Exception
    {
        start(GatewayConfiguration.CLOSE_GRACE_DEFAULT);
        final TestExchange.Key mmKey;
        final TestExchange.Key slowKey;
        final TestExchange.Key goodKey;
        try (RawConnection admin = ex.login(ex.admin))
        {
            mmKey = TestExchange.account(admin, "mm", 1_000_000_000_000L, Role.MARKET_MAKER);
            slowKey = TestExchange.account(admin, "slow", 1_000_000_000_000L, Role.RENTER);
            goodKey = TestExchange.account(admin, "good", 1_000_000_000L, Role.RENTER);
        }
        try (RawConnection mm = ex.login(mmKey);
             RawConnection slow = new RawConnection(ex.port(), 4096);
             RawConnection good = ex.login(goodKey))
        {
            mm.startHeartbeats(250);
            good.startHeartbeats(250);
            final long machine = TestExchange.ok(mm, Envelope.newBuilder().setRegisterMachine(RegisterMachine.newBuilder()
                .setName("rig").setMarket(MARKET).setGpus(64))).getAssignedId();
            TestExchange.ok(mm, Envelope.newBuilder().setMachineHeartbeat(MachineHeartbeat.newBuilder().setMachineId(machine)));
            for (int i = 0; i < 20; i++)
            {
                TestExchange.ok(mm, Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder()
                    .setOrderId(1_000_000 + i).setMachineId(machine).setGpus(1).setPrice(900_000 + i * 100)));
            }

            final Envelope accepted = slow.login(slowKey.id(), slowKey.secret());
            assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, accepted.getBodyCase(), accepted::toString);
            slow.startHeartbeats(250);
            // resting bids far below the asks: the slow account's Portfolio answers grow big
            final List<Envelope.Builder> bids = new ArrayList<>();
            for (int i = 1; i <= 400; i++)
            {
                bids.add(Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
                    .setOrderId(i).setMarket(MARKET).setGpus(1).setPrice(i)));
            }
            final long firstBid = slow.requests(bids);
            final Envelope lastBid = slow.responseTo(firstBid + bids.size() - 1);
            assertEquals(Reason.REASON_OK, lastBid.getResponse().getReason(), lastBid::toString);
            final Envelope snapshot = slow.responseTo(slow.request(Envelope.newBuilder().setSubscribe(
                Subscribe.newBuilder().setMarket(MARKET))));
            assertEquals(Envelope.BodyCase.BOOK_SNAPSHOT, snapshot.getBodyCase(), snapshot::toString);

            // from here on the slow session never reads until the server has cut it off
            final long appliedAtStall = ex.exchange.pipeline().appliedCommands();
            int goodRoundTrips = 0;
            int mmCommands = 0;
            long orderId = 1;
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
            while (!cutOff(slow))
            {
                assertTrue(System.nanoTime() < deadline, "the stalled session was not cut off in " + DEADLINE_MS + " ms");
                // a bid inside the top 20 levels and its cancel: two book updates for the subscriber
                final long id = orderId++;
                TestExchange.ok(mm, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
                    .setOrderId(id).setMarket(MARKET).setGpus(1).setPrice(500 + id % 40)));
                TestExchange.ok(mm, Envelope.newBuilder().setCancel(Cancel.newBuilder().setOrderId(id)));
                mmCommands += 2;
                if (id % 8 == 0)
                {
                    slow.request(Envelope.newBuilder().setPortfolioRequest(PortfolioRequest.getDefaultInstance()));
                }
                if (id % 25 == 0)
                {
                    roundTrip(good);
                    goodRoundTrips++;
                }
            }
            final long cutAt = System.nanoTime();
            // still stalled: the others carry on
            for (int i = 0; i < 50; i++)
            {
                roundTrip(good);
                goodRoundTrips++;
                final long id = orderId++;
                TestExchange.ok(mm, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
                    .setOrderId(id).setMarket(MARKET).setGpus(1).setPrice(500 + id % 40)));
                TestExchange.ok(mm, Envelope.newBuilder().setCancel(Cancel.newBuilder().setOrderId(id)));
                mmCommands += 2;
            }
            assertTrue(goodRoundTrips >= 50, "round trips of the well-behaved session while the other was stalled");
            assertTrue(ex.exchange.pipeline().appliedCommands() >= appliedAtStall + mmCommands,
                "the engine applied every command sent meanwhile");

            // the slow session reads again: what was queued before the cut, then the reason, then the end
            slow.stopHeartbeats();
            final long resumedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cutAt);
            final List<Envelope> rest = drain(slow);
            System.err.printf("slow consumer: cut after %d engine commands of traffic, %d round trips of the other session; "
                + "resumed reading %d ms after the cut, read %d frames%n", mmCommands, goodRoundTrips, resumedAfterMs, rest.size());
            if (resumedAfterMs < ex.exchange.ctx.closeGraceMs())
            {
                assertTrue(!rest.isEmpty(), "nothing at all was read after resuming");
                final Envelope last = rest.get(rest.size() - 1);
                assertEquals(Envelope.BodyCase.SESSION_ERROR, last.getBodyCase(), "the last frame before EOF: " + last);
                assertEquals(SessionErrorCode.SLOW_CONSUMER, last.getSessionError().getCode());
            }
            // else: the client took longer than the grace to come back, and the server closed without waiting
            assertEquals(1, ex.exchange.counters.slowConsumers.get(), "the cut is counted");

            for (int i = 0; i < 20; i++)
            {
                roundTrip(good);
            }
            TestExchange.ok(mm, Envelope.newBuilder().setCancel(Cancel.newBuilder().setOrderId(1_000_000)));
        }
        assertTrue(ex.logLines("failed:").isEmpty(), () -> String.join("\n", ex.logLines("failed:")));
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    @Execution(ExecutionMode.CONCURRENT)
    void aStalledReaderThatNeverComesBackIsClosedAnyway() throws Exception
    {
        assumeTrue(SocketProbe.available(), "needs /proc to see the server's side of a connection");
        start(SHORT_GRACE_MS);
        final TestExchange.Key slowKey;
        try (RawConnection admin = ex.login(ex.admin))
        {
            slowKey = TestExchange.account(admin, "slow", 1_000_000_000_000L, Role.RENTER);
        }
        try (RawConnection slow = new RawConnection(ex.port(), 4096))
        {
            assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, slow.login(slowKey.id(), slowKey.secret()).getBodyCase());
            final List<Envelope.Builder> bids = new ArrayList<>();
            for (int i = 1; i <= 400; i++)
            {
                bids.add(Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
                    .setOrderId(i).setMarket(MARKET).setGpus(1).setPrice(i)));
            }
            slow.responseTo(slow.requests(bids) + bids.size() - 1);
            assertEquals(1, SocketProbe.serverConnections(ex.port(), slow.localPort()));
            slow.startHeartbeats(250);
            // big answers, never read, until the server gives up on us (the egress or the gateway handler
            // notices first, whichever has something to write or reads next); then only heartbeats
            final long started = System.nanoTime();
            final long deadline = started + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
            int requests = 0;
            try
            {
                // the server's side is read from /proc (slow on a busy machine) once every 32 requests
                while (!cutOff(slow)
                    && (requests % 32 != 31 || SocketProbe.serverConnections(ex.port(), slow.localPort()) > 0))
                {
                    assertTrue(System.nanoTime() < deadline, "not cut off");
                    slow.request(Envelope.newBuilder().setPortfolioRequest(PortfolioRequest.getDefaultInstance()));
                    requests++;
                    Thread.sleep(2);
                }
            }
            catch (final IOException resetByTheServer)
            {
                // it closed the connection while we were still writing
            }
            final long stoppedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            // still not reading: the server must not keep the connection, and what is queued for it, for ever
            assertTrue(SocketProbe.await(() -> SocketProbe.serverConnections(ex.port(), slow.localPort()) == 0,
                SHORT_GRACE_MS + 20_000), "the server still holds the stalled connection");
            System.err.printf("stalled reader: %d unread Portfolio requests in %d ms, closed %d ms after the first%n",
                requests, stoppedMs, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    @Execution(ExecutionMode.CONCURRENT)
    void aClientFloodingRequestsWithoutReadingIsCutOff() throws Exception
    {
        assumeTrue(SocketProbe.available(), "needs /proc to see the server's side of a connection");
        start(SHORT_GRACE_MS);
        final TestExchange.Key key;
        try (RawConnection admin = ex.login(ex.admin))
        {
            key = TestExchange.account(admin, "flooder", 0, Role.RENTER);
        }
        try (RawConnection flooder = new RawConnection(ex.port(), 4096))
        {
            assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, flooder.login(key.id(), key.secret()).getBodyCase());
            // requests the gateway answers by itself (NOT_AUTHORIZED), never read: ~60 bytes of answer for ~20 sent
            final List<Envelope.Builder> batch = new ArrayList<>();
            for (int i = 0; i < 2000; i++)
            {
                batch.add(Envelope.newBuilder().setDeposit(Deposit.newBuilder().setAccount("flooder").setAmount(1)));
            }
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
            int sent = 0;
            try
            {
                while (sent < 400_000 && SocketProbe.serverConnections(ex.port(), flooder.localPort()) > 0)
                {
                    assertTrue(System.nanoTime() < deadline, "still sending");
                    flooder.requests(batch);
                    sent += batch.size();
                }
            }
            catch (final IOException closedByServer)
            {
                // the server closed the connection while we were writing: what we want
            }
            assertTrue(SocketProbe.await(() -> SocketProbe.serverConnections(ex.port(), flooder.localPort()) == 0,
                SHORT_GRACE_MS + 20_000),
                "the server still holds a connection that never reads its answers, after " + sent + " requests");
        }
        try (RawConnection admin = ex.login(ex.admin))
        {
            final Response r = TestExchange.response(admin, Envelope.newBuilder().setDeposit(
                Deposit.newBuilder().setAccount("flooder").setAmount(1)));
            assertEquals(Reason.REASON_OK, r.getReason(), "the gateway still answers");
        }
    }
}
