package io.gpux.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Accepted;
import io.gpux.proto.v1.Cancel;
import io.gpux.proto.v1.CancelReason;
import io.gpux.proto.v1.Cancelled;
import io.gpux.proto.v1.CommandKind;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.MassCancel;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Rejected;
import io.gpux.proto.v1.Release;
import io.gpux.proto.v1.Replace;
import io.gpux.proto.v1.Response;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PendingCommandsTest
{
    private final List<String> settled = new ArrayList<>();
    private final PendingCommands pending = new PendingCommands(8,
        (requestId, response) -> settled.add(requestId + ":" + response.getReason()));
    private final List<Long> wire = new ArrayList<>();
    private boolean writable = true;
    private final PendingCommands.CommandWriter writer = command ->
    {
        if (!writable)
        {
            return false;
        }
        wire.add(command.getRequestId());
        return true;
    };

    private static Envelope bid(final long requestId, final long orderId)
    {
        return Envelope.newBuilder().setRequestId(requestId)
            .setPlaceBid(PlaceBid.newBuilder().setOrderId(orderId).setMarket("M").setGpus(1).setPrice(1)).build();
    }

    private static Envelope ask(final long requestId, final long orderId)
    {
        return Envelope.newBuilder().setRequestId(requestId)
            .setPlaceAsk(PlaceAsk.newBuilder().setOrderId(orderId).setMachineId(1).setGpus(1).setPrice(1)).build();
    }

    private static Envelope cancel(final long requestId, final long orderId)
    {
        return Envelope.newBuilder().setRequestId(requestId).setCancel(Cancel.newBuilder().setOrderId(orderId)).build();
    }

    private static Envelope replace(final long requestId, final long orderId)
    {
        return Envelope.newBuilder().setRequestId(requestId).setReplace(Replace.newBuilder().setOrderId(orderId).setGpus(2)).build();
    }

    private static Envelope release(final long requestId, final long leaseId)
    {
        return Envelope.newBuilder().setRequestId(requestId).setRelease(Release.newBuilder().setLeaseId(leaseId)).build();
    }

    private static Response response(final Reason reason)
    {
        return Response.newBuilder().setReason(reason).setCommandSeq(99).build();
    }

    private static AccountEvent accepted(final long seq, final long orderId)
    {
        return AccountEvent.newBuilder().setSeq(seq).setCommandSeq(500 + seq)
            .setAccepted(Accepted.newBuilder().setOrderId(orderId)).build();
    }

    private boolean offer(final Envelope command)
    {
        return pending.offer(command.getRequestId(), command);
    }

    @Test
    void writesInOrderAndSettlesByRequestId()
    {
        offer(bid(1, 100));
        offer(ask(2, 200));
        offer(cancel(3, 100));
        assertEquals(3, pending.writeUnsent(writer));
        assertEquals(List.of(1L, 2L, 3L), wire);
        assertEquals(0, pending.writeUnsent(writer));

        assertTrue(pending.onResponse(2, response(Reason.REASON_OK)));     // out of order
        assertFalse(pending.onResponse(2, response(Reason.REASON_OK)));    // settled once
        assertFalse(pending.onResponse(77, response(Reason.REASON_OK)));   // a query's answer
        assertTrue(pending.onResponse(1, response(Reason.INSUFFICIENT_FUNDS)));
        assertEquals(List.of("2:REASON_OK", "1:INSUFFICIENT_FUNDS"), settled);
        assertEquals(1, pending.size());
        assertEquals(3, pending.requestIdAt(0));
        assertEquals(1, pending.writtenCount());
    }

    @Test
    void aFullQueueRefuses()
    {
        for (int i = 1; i <= 8; i++)
        {
            assertTrue(offer(bid(i, i)));
        }
        assertFalse(offer(bid(9, 9)));
        assertEquals(8, pending.size());
        pending.onResponse(1, response(Reason.REASON_OK));
        assertTrue(offer(bid(9, 9)));
    }

    @Test
    void backpressureStopsWritingAndResumesInOrder()
    {
        offer(bid(1, 1));
        offer(bid(2, 2));
        offer(bid(3, 3));
        writable = false;
        assertEquals(0, pending.writeUnsent(writer));
        writable = true;
        pending.writeUnsent(new PendingCommands.CommandWriter()
        {
            private int budget = 1;

            @Override
            public boolean write(final Envelope command)
            {
                return budget-- > 0 && writer.write(command);
            }
        });
        assertEquals(List.of(1L), wire);
        offer(bid(4, 4));
        assertEquals(3, pending.writeUnsent(writer));
        assertEquals(List.of(1L, 2L, 3L, 4L), wire);
    }

    @Test
    void everythingWrittenIsResentAfterAReconnectInOrder()
    {
        offer(bid(1, 10));
        offer(replace(2, 10));
        pending.writeUnsent(writer);
        offer(cancel(3, 10));            // issued while the connection is dying: never written
        pending.onConnectionLost();
        assertEquals(0, pending.writtenCount());
        assertTrue(pending.sentBeforeAt(0));
        assertTrue(pending.sentBeforeAt(1));
        assertFalse(pending.sentBeforeAt(2));

        wire.clear();
        assertEquals(3, pending.writeUnsent(writer));
        assertEquals(List.of(1L, 2L, 3L), wire, "same request ids, same order");
    }

    @Test
    void aResentOrderRefusedAsDuplicateIsSettledAsOk()
    {
        final List<Response> answers = new ArrayList<>();
        final PendingCommands capture = new PendingCommands(8, (id, r) -> answers.add(r));
        for (final Envelope e : List.of(bid(1, 10), ask(2, 20), cancel(3, 30), release(4, 40), bid(5, 50)))
        {
            capture.offer(e.getRequestId(), e);
        }
        capture.writeUnsent(writer);
        capture.onConnectionLost();
        capture.offer(6, bid(6, 60));    // first sent on the new connection
        capture.writeUnsent(writer);

        capture.onResponse(1, response(Reason.DUPLICATE_ORDER_ID));
        capture.onResponse(2, response(Reason.DUPLICATE_ORDER_ID));
        capture.onResponse(3, response(Reason.UNKNOWN_ORDER));
        capture.onResponse(4, response(Reason.UNKNOWN_LEASE));
        capture.onResponse(5, response(Reason.INSUFFICIENT_FUNDS));   // a real refusal stays one
        capture.onResponse(6, response(Reason.DUPLICATE_ORDER_ID));   // not a re-send: a real error
        assertEquals(List.of(Reason.REASON_OK, Reason.REASON_OK, Reason.REASON_OK, Reason.REASON_OK,
            Reason.INSUFFICIENT_FUNDS, Reason.DUPLICATE_ORDER_ID), answers.stream().map(Response::getReason).toList());
        assertEquals(99, answers.get(0).getCommandSeq());
        assertTrue(answers.get(0).getMessage().contains("DUPLICATE_ORDER_ID on re-send"));
        assertEquals(0, capture.size());
    }

    @Test
    void replayedEventsSettleWhatWentThroughBeforeTheDisconnect()
    {
        offer(bid(1, 10));                        // accepted (and maybe filled) before the drop
        offer(bid(2, 11));                        // rejected before the drop
        offer(cancel(3, 12));                     // cancelled before the drop
        offer(replace(4, 10));                    // accepted too: the second Accepted{10}
        offer(Envelope.newBuilder().setRequestId(5).setMassCancel(MassCancel.getDefaultInstance()).build());
        offer(bid(6, 13));                        // never reached the engine
        pending.writeUnsent(writer);
        offer(bid(7, 14));                        // never written
        pending.onConnectionLost();

        assertTrue(pending.onEvent(accepted(1, 10)));
        assertTrue(pending.onEvent(AccountEvent.newBuilder().setSeq(2)
            .setRejected(Rejected.newBuilder().setOrderId(11).setReason(Reason.INSUFFICIENT_FUNDS).setCommand(CommandKind.CMD_BID))
            .build()));
        assertTrue(pending.onEvent(AccountEvent.newBuilder().setSeq(3)
            .setCancelled(Cancelled.newBuilder().setOrderId(12).setReason(CancelReason.USER)).build()));
        assertTrue(pending.onEvent(accepted(4, 10)));
        // events that answer nothing pending
        assertFalse(pending.onEvent(accepted(5, 999)));
        assertFalse(pending.onEvent(AccountEvent.newBuilder().setSeq(6)
            .setCancelled(Cancelled.newBuilder().setOrderId(13).setReason(CancelReason.MASS_CANCEL)).build()));
        assertFalse(pending.onEvent(accepted(7, 14)), "an entry never sent cannot have been accepted");

        assertEquals(List.of("1:REASON_OK", "2:INSUFFICIENT_FUNDS", "3:REASON_OK", "4:REASON_OK"), settled);
        wire.clear();
        pending.writeUnsent(writer);
        assertEquals(List.of(5L, 6L, 7L), wire, "only what the engine did not see is re-sent");
    }

    @Test
    void anEventOnTheLiveConnectionMarksAndTheResponseSettles()
    {
        offer(bid(1, 10));
        offer(replace(2, 10));
        pending.writeUnsent(writer);
        assertTrue(pending.onEvent(accepted(1, 10)));       // the bid's Accepted
        assertTrue(pending.onEvent(accepted(2, 10)));       // the replace's Accepted: the next entry
        assertFalse(pending.onEvent(accepted(3, 10)));      // nothing left to answer
        assertTrue(settled.isEmpty(), "the Responses are due next: they settle");
        assertTrue(pending.onResponse(1, response(Reason.REASON_OK)));
        assertTrue(pending.onResponse(2, response(Reason.INSUFFICIENT_FUNDS)));
        assertEquals(List.of("1:REASON_OK", "2:INSUFFICIENT_FUNDS"), settled, "the gateway's answer wins");
    }

    @Test
    void aCommandWhoseEventsCameButNotItsResponseIsSettledWhenTheConnectionDrops()
    {
        final List<Response> answers = new ArrayList<>();
        final PendingCommands queue = new PendingCommands(8, (id, r) -> answers.add(r));
        queue.offer(1, bid(1, 10));     // accepted, its Response lost
        queue.offer(2, bid(2, 11));     // no event: never reached the engine
        queue.offer(3, ask(3, 12));     // rejected, its Response lost
        queue.writeUnsent(writer);
        queue.onEvent(accepted(7, 10));
        queue.onEvent(AccountEvent.newBuilder().setSeq(8).setCommandSeq(60)
            .setRejected(Rejected.newBuilder().setOrderId(12).setReason(Reason.NOT_OWNER).setCommand(CommandKind.CMD_ASK)).build());
        queue.onConnectionLost();
        assertEquals(List.of(Reason.REASON_OK, Reason.NOT_OWNER), answers.stream().map(Response::getReason).toList());
        assertEquals(507, answers.get(0).getCommandSeq());
        assertTrue(answers.get(0).getMessage().contains("seq 7"));
        assertEquals(1, queue.size());
        assertEquals(2, queue.requestIdAt(0));
        assertTrue(queue.sentBeforeAt(0));
        wire.clear();
        queue.writeUnsent(writer);
        assertEquals(List.of(2L), wire, "only the bid the engine never saw is re-sent");
    }

    @Test
    void aReplayedRejectMatchesTheCommandItNames()
    {
        offer(bid(1, 10));
        offer(cancel(2, 10));
        pending.writeUnsent(writer);
        pending.onConnectionLost();
        assertTrue(pending.onEvent(AccountEvent.newBuilder().setSeq(1)
            .setRejected(Rejected.newBuilder().setOrderId(10).setReason(Reason.UNKNOWN_ORDER).setCommand(CommandKind.CMD_CANCEL))
            .build()));
        assertEquals(List.of("2:UNKNOWN_ORDER"), settled);
        assertEquals(1, pending.requestIdAt(0));
    }

    @Test
    void onlyOrderEntryIsKept()
    {
        assertTrue(PendingCommands.isOrderEntry(Envelope.BodyCase.PLACE_BID));
        assertTrue(PendingCommands.isOrderEntry(Envelope.BodyCase.RELEASE));
        assertTrue(PendingCommands.isOrderEntry(Envelope.BodyCase.MASS_CANCEL));
        assertFalse(PendingCommands.isOrderEntry(Envelope.BodyCase.QUOTE_REQUEST));
        assertFalse(PendingCommands.isOrderEntry(Envelope.BodyCase.REGISTER_MACHINE));
        assertFalse(PendingCommands.isOrderEntry(Envelope.BodyCase.DEPOSIT));
    }

    @Test
    void wrapsAroundTheRing()
    {
        long id = 1;
        for (int round = 0; round < 50; round++)
        {
            for (int i = 0; i < 5; i++)
            {
                assertTrue(offer(bid(id, id)));
                id++;
            }
            pending.writeUnsent(writer);
            // settle the middle one first, then the rest oldest first
            assertTrue(pending.onResponse(id - 3, response(Reason.REASON_OK)));
            for (long r = id - 5; r < id; r++)
            {
                if (r != id - 3)
                {
                    assertTrue(pending.onResponse(r, response(Reason.REASON_OK)));
                }
            }
            assertEquals(0, pending.size());
            assertEquals(0, pending.writtenCount());
        }
        assertEquals(250, settled.size());
    }
}
