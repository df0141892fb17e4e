package io.gpux.client;

import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.CancelReason;
import io.gpux.proto.v1.CommandKind;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Response;
import org.agrona.collections.Long2LongHashMap;

/**
 * The order-entry commands (PlaceBid, PlaceAsk, Cancel, Replace, MassCancel, Release) that have no
 * answer yet, in the order they were issued: what makes a reconnect lose nothing and do nothing twice.
 *
 * <p>Life of an entry: {@link #offer} queues it; {@link #writeUnsent} writes the queued ones in order
 * whenever the session can take them (the written ones are always a prefix of the queue); a
 * {@link Response} with its request id settles it ({@link #onResponse}). When the connection is lost
 * ({@link #onConnectionLost}) every written entry goes back to queued, marked as sent before, and is
 * written again, in order, under the same request id and order id, once the next session is ready.
 *
 * <p>A command sent before a disconnect may have reached the engine although its answer was lost.
 * Three rules keep it from acting twice or being reported as a failure. They rest on the protocol's
 * order: a command's events reach the client before its Response, and after a reconnect the gateway
 * resends every account event after {@code last_seq} before ResendComplete (the client re-sends only
 * after that).
 * <ol>
 *   <li><b>Its events settle it.</b> {@link #onEvent} matches every account event against the
 *   unanswered entries, oldest first: {@code Accepted{order}} answers a PlaceBid, PlaceAsk or Replace
 *   of that order ({@code REASON_OK}); {@code Rejected{order}} answers one of them, or a Cancel, by the
 *   rejected command (with the engine's reason); {@code Cancelled{order}} by USER or OWNER_RECLAIM
 *   answers a Cancel. An entry written on the current connection is only marked as answered (its own
 *   Response, due next, settles it); if the connection is lost first, {@link #onConnectionLost}
 *   settles it from the event instead of queueing it again. An entry sent on an earlier connection and
 *   not re-sent yet is settled at once (that is an event the gateway replayed). So a bid that the
 *   engine took, and that may since have filled completely and freed its order id, is never placed
 *   again.</li>
 *   <li><b>A re-sent command refused only because its first send went through is settled.</b> A
 *   re-sent PlaceBid/PlaceAsk answered {@code DUPLICATE_ORDER_ID}, a re-sent Cancel answered
 *   {@code UNKNOWN_ORDER} and a re-sent Release answered {@code UNKNOWN_LEASE} are reported as
 *   {@code REASON_OK} (the message says so, the gateway's command_seq is kept): the order is there,
 *   or is gone, as the command wanted.</li>
 *   <li>MassCancel and Release are re-sent as they are: doing them twice is harmless.</li>
 * </ol>
 * The rules assume that an order id is not reused while a command naming it is unanswered.
 *
 * <p>Bounded: {@link #offer} refuses beyond the capacity. Not thread-safe: one thread (the client's
 * event loop) owns it. No allocation but the synthesized answers of rules 1 and 2. An answer settles its
 * entry in constant time whatever the number in flight (answers to refused commands overtake the others).
 */
final class PendingCommands
{
    /** Where settled entries are reported. */
    interface SettlementHandler
    {
        void onSettled(long requestId, Response response);
    }

    /** Writes one command to the session; false when it cannot take more now (not writable). */
    interface CommandWriter
    {
        boolean write(Envelope command);
    }

    private final SettlementHandler handler;
    private final long[] requestIds;
    /** The command of each slot; null for a settled entry not yet passed by {@link #head} (a gap). */
    private final Envelope[] commands;
    private final boolean[] sentBefore;
    private final Reason[] answeredReasons;
    private final long[] answeredCommandSeqs;
    private final long[] answeredEventSeqs;
    /** Request id to the entry's position: answers, which may come in any order, settle in O(1). */
    private final Long2LongHashMap positions = new Long2LongHashMap(-1);
    private final int mask;
    private final int capacity;
    /** Positions (ever increasing; slot = position & mask) of the oldest entry and after the newest. */
    private long head;
    private long tail;
    /** Positions before this one have been written on the current connection. */
    private long writtenEnd;
    private int size;
    private int writtenCount;

    PendingCommands(final int capacity, final SettlementHandler handler)
    {
        if (capacity < 1)
        {
            throw new IllegalArgumentException("capacity must be at least 1");
        }
        int slots = 1;
        while (slots < capacity)
        {
            slots <<= 1;
        }
        this.handler = handler;
        this.requestIds = new long[slots];
        this.commands = new Envelope[requestIds.length];
        this.sentBefore = new boolean[requestIds.length];
        this.answeredReasons = new Reason[requestIds.length];
        this.answeredCommandSeqs = new long[requestIds.length];
        this.answeredEventSeqs = new long[requestIds.length];
        this.mask = requestIds.length - 1;
        this.capacity = capacity;
    }

    /** True for the bodies this queue keeps: the order-entry commands. */
    static boolean isOrderEntry(final Envelope.BodyCase body)
    {
        return switch (body)
        {
            case PLACE_BID, PLACE_ASK, CANCEL, REPLACE, MASS_CANCEL, RELEASE -> true;
            default -> false;
        };
    }

    /** Queues a command; false (and nothing queued) when the queue is full. */
    boolean offer(final long requestId, final Envelope command)
    {
        if (size == capacity)
        {
            return false;
        }
        if (tail - head == commands.length)
        {
            compact();
        }
        final int slot = (int)(tail & mask);
        requestIds[slot] = requestId;
        commands[slot] = command;
        sentBefore[slot] = false;
        answeredReasons[slot] = null;
        positions.put(requestId, tail);
        tail++;
        size++;
        return true;
    }

    int size()
    {
        return size;
    }

    int capacity()
    {
        return capacity;
    }

    /** Entries written on the current connection (a prefix of the queue). */
    int writtenCount()
    {
        return writtenCount;
    }

    /** The request id of the entry at a position of the queue (0 = oldest). */
    long requestIdAt(final int index)
    {
        return requestIds[slotAt(index)];
    }

    /** Whether the entry at a position was sent on an earlier connection. */
    boolean sentBeforeAt(final int index)
    {
        return sentBefore[slotAt(index)];
    }

    /** The slot of the index-th entry, oldest first, stepping over gaps (for inspection: linear). */
    private int slotAt(final int index)
    {
        int seen = 0;
        for (long p = head; p < tail; p++)
        {
            final int slot = (int)(p & mask);
            if (commands[slot] != null && seen++ == index)
            {
                return slot;
            }
        }
        throw new IndexOutOfBoundsException(index);
    }

    /** Writes the queued entries in order until the writer refuses; the number written. */
    int writeUnsent(final CommandWriter writer)
    {
        int written = 0;
        while (writtenEnd < tail)
        {
            final Envelope command = commands[(int)(writtenEnd & mask)];
            if (command != null)
            {
                if (!writer.write(command))
                {
                    break;
                }
                writtenCount++;
                written++;
            }
            writtenEnd++;
        }
        return written;
    }

    /**
     * The connection is gone: what was written and answered by an event is settled from it (rule 1);
     * the rest of what was written goes back to queued, marked as sent before.
     */
    void onConnectionLost()
    {
        final long end = writtenEnd;
        for (long p = head; p < end; p++)
        {
            final int slot = (int)(p & mask);
            if (commands[slot] == null)
            {
                continue;
            }
            if (answeredReasons[slot] != null)
            {
                final long requestId = requestIds[slot];
                final Response answer = settledByEvent(answeredReasons[slot], answeredCommandSeqs[slot], answeredEventSeqs[slot]);
                remove(p);
                handler.onSettled(requestId, answer);
            }
            else
            {
                sentBefore[slot] = true;
            }
        }
        writtenEnd = head;
        writtenCount = 0;
    }

    /**
     * Settles the entry of this request id, if there is one, through the handler (rewriting the
     * answer to a re-sent command by rule 2 of the class comment).
     *
     * @return false if no entry has this request id (the answer is not for an order-entry command).
     */
    boolean onResponse(final long requestId, final Response response)
    {
        final long p = positions.get(requestId);
        if (p < 0)
        {
            return false;
        }
        final int slot = (int)(p & mask);
        final Response answer = sentBefore[slot] && isAlreadyDone(commands[slot].getBodyCase(), response.getReason())
            ? response.toBuilder()
                .setReason(Reason.REASON_OK)
                .setMessage("settled: the command went through before the reconnect ("
                    + response.getReason() + " on re-send)")
                .build()
            : response;
        remove(p);
        handler.onSettled(requestId, answer);
        return true;
    }

    /**
     * Matches an account event against the unanswered entries (rule 1 of the class comment): marks the
     * oldest written entry it answers, or settles the oldest entry sent on an earlier connection and
     * not re-sent yet.
     *
     * @return true if the event answered an entry.
     */
    boolean onEvent(final AccountEvent event)
    {
        final Reason reason;
        final long orderId;
        switch (event.getKindCase())
        {
            case ACCEPTED ->
            {
                orderId = event.getAccepted().getOrderId();
                reason = Reason.REASON_OK;
            }
            case REJECTED ->
            {
                orderId = event.getRejected().getOrderId();
                reason = event.getRejected().getReason();
            }
            case CANCELLED ->
            {
                final CancelReason why = event.getCancelled().getReason();
                if (why != CancelReason.USER && why != CancelReason.OWNER_RECLAIM)
                {
                    return false;
                }
                orderId = event.getCancelled().getOrderId();
                reason = Reason.REASON_OK;
            }
            default ->
            {
                return false;
            }
        }
        for (long p = head; p < tail; p++)
        {
            final int slot = (int)(p & mask);
            final boolean written = p < writtenEnd;
            if (commands[slot] == null || answeredReasons[slot] != null || !(written || sentBefore[slot]) ||
                !answers(event, orderId, commands[slot]))
            {
                continue;
            }
            if (written)
            {
                answeredReasons[slot] = reason;
                answeredCommandSeqs[slot] = event.getCommandSeq();
                answeredEventSeqs[slot] = event.getSeq();
            }
            else
            {
                final long requestId = requestIds[slot];
                remove(p);
                handler.onSettled(requestId, settledByEvent(reason, event.getCommandSeq(), event.getSeq()));
            }
            return true;
        }
        return false;
    }

    private static Response settledByEvent(final Reason reason, final long commandSeq, final long eventSeq)
    {
        return Response.newBuilder()
            .setReason(reason)
            .setMessage("settled by account event seq " + eventSeq + " (the answer was lost with the connection)")
            .setCommandSeq(commandSeq)
            .build();
    }

    /** Drops every entry without reporting them (the client is closed). */
    void clear()
    {
        java.util.Arrays.fill(commands, null);
        java.util.Arrays.fill(answeredReasons, null);
        positions.clear();
        head = 0;
        tail = 0;
        writtenEnd = 0;
        size = 0;
        writtenCount = 0;
    }

    private static boolean answers(final AccountEvent event, final long orderId, final Envelope command)
    {
        switch (event.getKindCase())
        {
            case ACCEPTED:
                return switch (command.getBodyCase())
                {
                    case PLACE_BID -> command.getPlaceBid().getOrderId() == orderId;
                    case PLACE_ASK -> command.getPlaceAsk().getOrderId() == orderId;
                    case REPLACE -> command.getReplace().getOrderId() == orderId;
                    default -> false;
                };
            case REJECTED:
                final CommandKind kind = event.getRejected().getCommand();
                return switch (command.getBodyCase())
                {
                    case PLACE_BID -> (kind == CommandKind.CMD_BID || kind == CommandKind.COMMAND_KIND_UNSPECIFIED)
                        && command.getPlaceBid().getOrderId() == orderId;
                    case PLACE_ASK -> (kind == CommandKind.CMD_ASK || kind == CommandKind.COMMAND_KIND_UNSPECIFIED)
                        && command.getPlaceAsk().getOrderId() == orderId;
                    case REPLACE -> kind == CommandKind.CMD_REPLACE && command.getReplace().getOrderId() == orderId;
                    case CANCEL -> kind == CommandKind.CMD_CANCEL && command.getCancel().getOrderId() == orderId;
                    default -> false;
                };
            case CANCELLED:
                return command.getBodyCase() == Envelope.BodyCase.CANCEL && command.getCancel().getOrderId() == orderId;
            default:
                return false;
        }
    }

    private static boolean isAlreadyDone(final Envelope.BodyCase body, final Reason reason)
    {
        return switch (body)
        {
            case PLACE_BID, PLACE_ASK -> reason == Reason.DUPLICATE_ORDER_ID;
            case CANCEL -> reason == Reason.UNKNOWN_ORDER;
            case RELEASE -> reason == Reason.UNKNOWN_LEASE;
            default -> false;
        };
    }

    /**
     * Settles the entry at a position: it leaves a gap, which the head steps over once the entries
     * before it are gone (answers come mostly oldest first, so gaps are few and short).
     */
    private void remove(final long p)
    {
        final int slot = (int)(p & mask);
        positions.remove(requestIds[slot]);
        commands[slot] = null;
        answeredReasons[slot] = null;
        size--;
        if (p < writtenEnd)
        {
            writtenCount--;
        }
        while (head < tail && commands[(int)(head & mask)] == null)
        {
            head++;
        }
        if (writtenEnd < head)
        {
            writtenEnd = head;
        }
    }

    /** Closes the gaps (the ring is full of them and a few entries): moves every entry down, in order. */
    private void compact()
    {
        long to = head;
        long newWrittenEnd = head;
        for (long p = head; p < tail; p++)
        {
            final int from = (int)(p & mask);
            if (commands[from] == null)
            {
                continue;
            }
            final int slot = (int)(to & mask);
            if (slot != from)
            {
                requestIds[slot] = requestIds[from];
                commands[slot] = commands[from];
                sentBefore[slot] = sentBefore[from];
                answeredReasons[slot] = answeredReasons[from];
                answeredCommandSeqs[slot] = answeredCommandSeqs[from];
                answeredEventSeqs[slot] = answeredEventSeqs[from];
                commands[from] = null;
                answeredReasons[from] = null;
            }
            positions.put(requestIds[slot], to);
            if (p < writtenEnd)
            {
                newWrittenEnd = to + 1;
            }
            to++;
        }
        tail = to;
        writtenEnd = newWrittenEnd;
    }
}
