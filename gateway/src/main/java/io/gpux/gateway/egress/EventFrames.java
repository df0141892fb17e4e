package io.gpux.gateway.egress;

import io.gpux.engine.event.Event;
import io.gpux.engine.event.RejectReason;
import io.gpux.gateway.directory.Directory;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Accepted;
import io.gpux.proto.v1.Balance;
import io.gpux.proto.v1.Cancelled;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Fill;
import io.gpux.proto.v1.LeaseEnded;
import io.gpux.proto.v1.LeaseStarted;
import io.gpux.proto.v1.MachineOffline;
import io.gpux.proto.v1.MachineOnline;
import io.gpux.proto.v1.PreemptNotice;
import io.gpux.proto.v1.Rejected;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.Settled;
import io.gpux.proto.v1.Trade;
import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static io.gpux.gateway.codec.WireWriter.bool;
import static io.gpux.gateway.codec.WireWriter.int64;
import static io.gpux.gateway.codec.WireWriter.message;
import static io.gpux.gateway.codec.WireWriter.string;
import static io.gpux.gateway.codec.WireWriter.uint32;

/**
 * The frames the egress sends for every event, written field by field straight into the outgoing
 * buffer without building protobuf messages: account events, trades, and the Response that answers a
 * command. The bytes are the ones the generated classes would write for the messages
 * {@link ProtoMapping} builds (4-byte big-endian length, then the Envelope), so clients parse them
 * with the generated classes as before. One instance per thread (the egress's): it keeps the market
 * symbols' UTF-8.
 */
public final class EventFrames
{
    private static final int MAX_CACHED_MARKET_ID = 1 << 16;
    private static final byte[] NONE = new byte[0];

    private final Directory directory;
    private byte[][] symbols = new byte[16][];

    public EventFrames(final Directory directory)
    {
        this.directory = directory;
    }

    /**
     * Frames a private event as the account event of {@code recipient}, its {@code seq}-th.
     *
     * @throws IllegalArgumentException for a public event (TRADE, BOOK).
     */
    public void accountEvent(final ByteBuf out, final Event e, final long recipient, final long seq)
    {
        final int kindField = kindField(e);
        final byte[] market = e.type == io.gpux.engine.event.EventType.LEASE_STARTED ? symbol(e.marketId) : NONE;
        final int kindSize = kind(null, e, recipient, market);
        final int eventSize = eventHead(null, e, seq) + message(null, kindField, kindSize);
        final int envelopeSize = message(null, Envelope.EVENT_FIELD_NUMBER, eventSize);
        final int end = start(out, envelopeSize);
        message(out, Envelope.EVENT_FIELD_NUMBER, eventSize);
        eventHead(out, e, seq);
        message(out, kindField, kindSize);
        kind(out, e, recipient, market);
        check(out, end);
    }

    /** Frames a TRADE event as the anonymous Trade market data subscribers get. */
    public void trade(final ByteBuf out, final Event e)
    {
        final byte[] market = symbol(e.marketId);
        final int tradeSize = trade(null, e, market);
        final int envelopeSize = message(null, Envelope.TRADE_FIELD_NUMBER, tradeSize);
        final int end = start(out, envelopeSize);
        message(out, Envelope.TRADE_FIELD_NUMBER, tradeSize);
        trade(out, e, market);
        check(out, end);
    }

    /** Frames the Response to a command: its reason (null: OK) and its place in the command journal. */
    public static void response(final ByteBuf out, final long requestId, final RejectReason reject, final long commandSeq)
    {
        final int reason = ProtoMapping.reason(reject).getNumber();
        final int responseSize = response(null, reason, commandSeq);
        final int envelopeSize = int64(null, Envelope.REQUEST_ID_FIELD_NUMBER, requestId)
            + message(null, Envelope.RESPONSE_FIELD_NUMBER, responseSize);
        final int end = start(out, envelopeSize);
        int64(out, Envelope.REQUEST_ID_FIELD_NUMBER, requestId);
        message(out, Envelope.RESPONSE_FIELD_NUMBER, responseSize);
        response(out, reason, commandSeq);
        check(out, end);
    }

    private static int response(final ByteBuf out, final int reason, final long commandSeq)
    {
        return int64(out, Response.REASON_FIELD_NUMBER, reason)
            + int64(out, Response.COMMAND_SEQ_FIELD_NUMBER, commandSeq);
    }

    /** Makes room for the frame and writes its length; returns where the frame ends. */
    private static int start(final ByteBuf out, final int envelopeSize)
    {
        out.ensureWritable(4 + envelopeSize);
        out.writeInt(envelopeSize);
        return out.writerIndex() + envelopeSize;
    }

    private static void check(final ByteBuf out, final int end)
    {
        if (out.writerIndex() != end)
        {
            throw new IllegalStateException("a frame's size and its bytes disagree: " + out.writerIndex() + " != " + end);
        }
    }

    private static int eventHead(final ByteBuf out, final Event e, final long seq)
    {
        return int64(out, AccountEvent.SEQ_FIELD_NUMBER, seq)
            + int64(out, AccountEvent.ENGINE_SEQ_FIELD_NUMBER, e.sequence)
            + int64(out, AccountEvent.TIME_MS_FIELD_NUMBER, e.timeMs)
            + int64(out, AccountEvent.COMMAND_SEQ_FIELD_NUMBER, e.commandSequence);
    }

    private static int kindField(final Event e)
    {
        return switch (e.type)
        {
            case ACCEPTED -> AccountEvent.ACCEPTED_FIELD_NUMBER;
            case REJECTED -> AccountEvent.REJECTED_FIELD_NUMBER;
            case CANCELLED -> AccountEvent.CANCELLED_FIELD_NUMBER;
            case FILL -> AccountEvent.FILL_FIELD_NUMBER;
            case LEASE_STARTED -> AccountEvent.LEASE_STARTED_FIELD_NUMBER;
            case PREEMPT_NOTICE -> AccountEvent.PREEMPT_NOTICE_FIELD_NUMBER;
            case LEASE_ENDED -> AccountEvent.LEASE_ENDED_FIELD_NUMBER;
            case SETTLED -> AccountEvent.SETTLED_FIELD_NUMBER;
            case BALANCE -> AccountEvent.BALANCE_FIELD_NUMBER;
            case MACHINE_ONLINE -> AccountEvent.MACHINE_ONLINE_FIELD_NUMBER;
            case MACHINE_OFFLINE -> AccountEvent.MACHINE_OFFLINE_FIELD_NUMBER;
            default -> throw new IllegalArgumentException("not a private event: " + e.type);
        };
    }

    /** The event's own message (the AccountEvent's oneof kind), as ProtoMapping.accountEvent fills it. */
    private static int kind(final ByteBuf out, final Event e, final long recipient, final byte[] market)
    {
        return switch (e.type)
        {
            case ACCEPTED -> int64(out, Accepted.ORDER_ID_FIELD_NUMBER, e.orderId);
            case REJECTED -> int64(out, Rejected.ORDER_ID_FIELD_NUMBER, e.orderId)
                + int64(out, Rejected.REASON_FIELD_NUMBER, ProtoMapping.reason(e.rejectReason).getNumber())
                + int64(out, Rejected.COMMAND_FIELD_NUMBER, ProtoMapping.commandKind(e.command).getNumber());
            case CANCELLED -> int64(out, Cancelled.ORDER_ID_FIELD_NUMBER, e.orderId)
                + int64(out, Cancelled.REASON_FIELD_NUMBER, ProtoMapping.cancelReason(e.cancelReason).getNumber())
                + uint32(out, Cancelled.REMAINING_FIELD_NUMBER, e.remaining);
            case FILL -> int64(out, Fill.ORDER_ID_FIELD_NUMBER, e.orderId)
                + int64(out, Fill.COUNTER_ORDER_ID_FIELD_NUMBER, e.counterOrderId)
                + int64(out, Fill.LEASE_ID_FIELD_NUMBER, e.leaseId)
                + uint32(out, Fill.GPUS_FIELD_NUMBER, e.gpus)
                + int64(out, Fill.PRICE_FIELD_NUMBER, e.price)
                + int64(out, Fill.PREEMPTS_LEASE_ID_FIELD_NUMBER, e.preemptsLeaseId);
            case LEASE_STARTED -> int64(out, LeaseStarted.LEASE_ID_FIELD_NUMBER, e.leaseId)
                + string(out, LeaseStarted.MARKET_FIELD_NUMBER, market)
                + int64(out, LeaseStarted.MACHINE_ID_FIELD_NUMBER, e.machineId)
                + uint32(out, LeaseStarted.GPUS_FIELD_NUMBER, e.gpus)
                + int64(out, LeaseStarted.PRICE_FIELD_NUMBER, e.price)
                + bool(out, LeaseStarted.RENTER_FIELD_NUMBER, recipient == e.renterId);
            case PREEMPT_NOTICE -> int64(out, PreemptNotice.LEASE_ID_FIELD_NUMBER, e.leaseId)
                + int64(out, PreemptNotice.REASON_FIELD_NUMBER, ProtoMapping.noticeReason(e.noticeReason).getNumber())
                + int64(out, PreemptNotice.EFFECTIVE_MS_FIELD_NUMBER, e.effectiveMs);
            case LEASE_ENDED -> int64(out, LeaseEnded.LEASE_ID_FIELD_NUMBER, e.leaseId)
                + int64(out, LeaseEnded.REASON_FIELD_NUMBER, ProtoMapping.endReason(e.endReason).getNumber())
                + int64(out, LeaseEnded.COST_FIELD_NUMBER, e.cost)
                + int64(out, LeaseEnded.FEE_FIELD_NUMBER, e.fee);
            case SETTLED -> int64(out, Settled.LEASE_ID_FIELD_NUMBER, e.leaseId)
                + int64(out, Settled.CHARGE_FIELD_NUMBER, e.charge)
                + int64(out, Settled.FEE_FIELD_NUMBER, e.fee)
                + uint32(out, Settled.PERIOD_FIELD_NUMBER, e.period)
                + int64(out, Settled.MS_FIELD_NUMBER, e.ms);
            case BALANCE -> int64(out, Balance.BALANCE_FIELD_NUMBER, e.balance)
                + int64(out, Balance.AVAILABLE_FIELD_NUMBER, e.available);
            case MACHINE_ONLINE -> int64(out, MachineOnline.MACHINE_ID_FIELD_NUMBER, e.machineId);
            case MACHINE_OFFLINE -> int64(out, MachineOffline.MACHINE_ID_FIELD_NUMBER, e.machineId);
            default -> throw new IllegalArgumentException("not a private event: " + e.type);
        };
    }

    private static int trade(final ByteBuf out, final Event e, final byte[] market)
    {
        return string(out, Trade.MARKET_FIELD_NUMBER, market)
            + uint32(out, Trade.GPUS_FIELD_NUMBER, e.gpus)
            + int64(out, Trade.PRICE_FIELD_NUMBER, e.price)
            + int64(out, Trade.TIME_MS_FIELD_NUMBER, e.timeMs)
            + int64(out, Trade.ENGINE_SEQ_FIELD_NUMBER, e.sequence);
    }

    /**
     * A market's symbol in UTF-8 (empty for a market the directory does not know), kept once known: the
     * directory never gives an id to another market while this process runs.
     */
    private byte[] symbol(final long marketId)
    {
        if (marketId <= 0 || marketId >= MAX_CACHED_MARKET_ID)
        {
            return directory.marketSymbol(marketId).getBytes(StandardCharsets.UTF_8);
        }
        final int id = (int)marketId;
        if (id >= symbols.length)
        {
            symbols = Arrays.copyOf(symbols, Math.max(id + 1, 2 * symbols.length));
        }
        byte[] symbol = symbols[id];
        if (symbol == null)
        {
            symbol = directory.marketSymbol(marketId).getBytes(StandardCharsets.UTF_8);
            if (symbol.length == 0)
            {
                return symbol;
            }
            symbols[id] = symbol;
        }
        return symbol;
    }
}
