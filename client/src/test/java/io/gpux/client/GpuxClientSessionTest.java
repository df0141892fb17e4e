package io.gpux.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.client.FakeGateway.Drop;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.SessionErrorCode;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The client's session over real sockets: connect, request and response, reconnect with resume and resend, order entry
 * while disconnected, a refused login or connection, a silent gateway.
 */
class GpuxClientSessionTest extends GpuxClientSocketHarness
{
    @Test
    void connectRequestReconnectResumeAndResend() throws Exception
    {
        final Recorder recorder = new Recorder();
        try (GpuxClient client = new GpuxClient(context(recorder).firstOrderId(1)))
        {
            client.connect();
            assertTrue(client.isConnected());
            assertEquals(1, gateway.logins.size());
            assertFalse(gateway.logins.get(0).hasLastSeq(), "a fresh client starts live");
            assertEquals(0, client.lastSeq(), "the account's last seq from LoginAccepted");
            assertTrue(recorder.callbackThread.getName().length() > 0);
            assertTrue(client.eventLoop().inEventLoop(recorder.callbackThread), "callbacks run on the client's loop");

            // request / response, blocking convenience
            assertEquals(1, client.nextOrderId());
            final Response first = client.call(Envelope.newBuilder().setPlaceBid(
                PlaceBid.newBuilder().setOrderId(1).setMarket("M").setGpus(8).setPrice(25_000)), TIMEOUT);
            assertEquals(Reason.REASON_OK, first.getReason());
            assertEquals(List.of(1L), recorder.eventSeqs, "the Accepted event came before the Response");
            final Portfolio portfolio = client.portfolio(TIMEOUT);
            assertEquals(1_000_000_000, portfolio.getBalance());

            client.subscribe("M");
            await("the first snapshot", () -> recorder.snapshots.size() == 1);

            // 1. the gateway drops the connection when order 2 arrives, before the engine sees it
            gateway.drops.put(2L, Drop.BEFORE_APPLY);
            final long request2 = client.placeBid(2, "M", 4, 26_000);
            await("order 2 answered", () -> recorder.responses.containsKey(request2));
            assertEquals(Reason.REASON_OK, recorder.responses.get(request2).getReason());
            assertEquals(2, gateway.logins.size());
            assertTrue(gateway.logins.get(1).hasLastSeq());
            assertEquals(1, gateway.logins.get(1).getLastSeq(), "resume after the last event delivered");
            assertEquals(2, gateway.placeBidsReceived(2), "re-sent after the reconnect");
            final List<Envelope> bids = gateway.received.stream().filter(Envelope::hasPlaceBid)
                .filter(e -> e.getPlaceBid().getOrderId() == 2).toList();
            assertEquals(request2, bids.get(0).getRequestId());
            assertEquals(request2, bids.get(1).getRequestId(), "same request id on the new connection");
            assertEquals(List.of(1L, 2L), recorder.eventSeqs);
            await("the renewed subscription's snapshot", () -> recorder.snapshots.size() == 2);
            assertEquals(1, recorder.disconnects.size());
            assertTrue(recorder.disconnects.get(0).endsWith("(reconnecting)"), recorder.disconnects.toString());

            // 2. order 3 reaches the engine, then the connection drops before its event and answer
            gateway.drops.put(3L, Drop.AFTER_APPLY);
            final long request3 = client.placeBid(3, "M", 1, 27_000);
            await("order 3 settled", () -> recorder.responses.containsKey(request3));
            final Response settled = recorder.responses.get(request3);
            assertEquals(Reason.REASON_OK, settled.getReason());
            assertEquals(3, settled.getCommandSeq(), "the replayed event's command");
            assertEquals(3, gateway.logins.size());
            assertEquals(2, gateway.logins.get(2).getLastSeq());
            assertEquals(List.of(1L, 2L, 3L), recorder.eventSeqs, "every event once, in order");
            assertEquals(1, gateway.placeBidsReceived(3), "the replayed Accepted settled it: not placed twice");
            assertEquals(0, client.unansweredCommands());
            await("the second ResendComplete", () -> recorder.resends.size() == 2);
            assertEquals(1, recorder.resends.get(1).getEventsResent());

            // 3. order 4's event arrives, then the connection drops before its Response
            gateway.drops.put(4L, Drop.AFTER_EVENTS);
            final long request4 = client.placeBid(4, "M", 1, 27_000);
            await("order 4 settled", () -> recorder.responses.containsKey(request4));
            assertEquals(Reason.REASON_OK, recorder.responses.get(request4).getReason());
            await("the fourth login", () -> gateway.logins.size() == 4);
            assertEquals(4, gateway.logins.get(3).getLastSeq());
            assertEquals(1, gateway.placeBidsReceived(4), "its Accepted settled it: not placed twice");
            assertEquals(List.of(1L, 2L, 3L, 4L), recorder.eventSeqs);

            // a genuine duplicate on a first send is still an error
            final Response duplicate = client.call(Envelope.newBuilder().setPlaceBid(
                PlaceBid.newBuilder().setOrderId(1).setMarket("M").setGpus(1).setPrice(1)), TIMEOUT);
            assertEquals(Reason.DUPLICATE_ORDER_ID, duplicate.getReason());
            assertEquals(5, client.lastSeq());
        }
        await("the Logout", () -> gateway.received(Envelope.BodyCase.LOGOUT) == 1);
        assertTrue(recorder.disconnects.get(recorder.disconnects.size() - 1).endsWith("(final)"));
        assertFalse(clientGroup.isShuttingDown(), "a shared group is not the client's to stop");
    }

    @Test
    void orderEntryWaitsWhileDisconnectedAndQueriesAreRefused() throws Exception
    {
        final Recorder recorder = new Recorder();
        try (GpuxClient client = new GpuxClient(context(recorder)))
        {
            assertThrows(IllegalStateException.class, client::portfolio);
            final long request = client.placeBid(client.nextOrderId(), "M", 2, 10_000);
            assertEquals(1, client.unansweredCommands());
            client.connect();
            await("the queued bid answered", () -> recorder.responses.containsKey(request));
            assertEquals(Reason.REASON_OK, recorder.responses.get(request).getReason());
            assertEquals(0, client.unansweredCommands());
        }
        final GpuxClient closed = new GpuxClient(context(new Recorder()));
        closed.close();
        assertThrows(IllegalStateException.class, () -> closed.placeBid(1, "M", 1, 1));
    }

    @Test
    void aRefusedLoginFailsConnectAndIsNotRetried() throws Exception
    {
        final Recorder recorder = new Recorder();
        final ClientContext ctx = context(recorder).secretHex(SECRET_HEX.replace('0', '1'));
        try (GpuxClient client = new GpuxClient(ctx))
        {
            final GpuxSessionException refused = assertThrows(GpuxSessionException.class, client::connect);
            assertEquals(SessionErrorCode.AUTHENTICATION_FAILED, refused.code());
            assertEquals(1, recorder.sessionErrors.size());
            await("the disconnect reported", () -> !recorder.disconnects.isEmpty());
            assertTrue(recorder.disconnects.get(0).endsWith("(final)"), "no reconnect planned: " + recorder.disconnects);
            // a task on the client's own event loop, due after the longest reconnect delay: a reconnect timer set at the
            // refusal would have fired before it
            final CountDownLatch pastBackoff = new CountDownLatch(1);
            client.schedule(2 * ctx.reconnectBackoffMax().toMillis(), pastBackoff::countDown);
            assertTrue(pastBackoff.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS), "the client's event loop runs");
            assertEquals(1, gateway.connections, "no reconnect after a refused first Login");
            assertEquals(1, recorder.disconnects.size(), recorder.disconnects.toString());
            assertFalse(client.isConnected());
        }
    }

    @Test
    void aSilentGatewayIsTreatedAsDeadAndTheClientHeartbeats() throws Exception
    {
        gateway.heartbeatIntervalMs = 100;
        gateway.silentAfterLogin = true;
        final Recorder recorder = new Recorder();
        try (GpuxClient client = new GpuxClient(context(recorder)))
        {
            client.connect();
            await("a heartbeat from the client", () -> gateway.received(Envelope.BodyCase.HEARTBEAT) >= 1);
            await("a reconnect after two silent intervals", () -> gateway.logins.size() >= 2);
            assertTrue(recorder.disconnects.get(0).contains("silent"), recorder.disconnects.toString());
            assertNotNull(client.loginAccepted());
        }
    }

    @Test
    void aConnectionRefusedFailsConnect()
    {
        final ClientContext ctx = context(new Recorder()).port(1).connectTimeout(Duration.ofSeconds(1));
        try (GpuxClient client = new GpuxClient(ctx))
        {
            assertThrows(java.io.IOException.class, client::connect);
        }
    }
}
