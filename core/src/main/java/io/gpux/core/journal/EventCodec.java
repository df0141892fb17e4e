package io.gpux.core.journal;

import io.gpux.engine.command.CommandType;
import io.gpux.engine.event.CancelReason;
import io.gpux.engine.event.EndReason;
import io.gpux.engine.event.Event;
import io.gpux.engine.event.EventType;
import io.gpux.engine.event.NoticeReason;
import io.gpux.engine.event.RejectReason;
import org.agrona.concurrent.UnsafeBuffer;

import static io.gpux.core.journal.RecordDescriptor.*;

/**
 * Events to journal records and back (layout: {@link RecordDescriptor}). Equal events encode to equal
 * bytes, which is how recovery compares regenerated events with the event journal. Encoding
 * allocates nothing.
 */
public final class EventCodec
{
    private static final int BOOK_BIT = 26;
    /** The recipients' event numbers and back-links follow the book levels. */
    private static final int FIELD_COUNT = 31;
    private static final int BOOK_LEVEL_BYTES = 20;
    private static final EventType[] TYPES = EventType.values();
    private static final RejectReason[] REJECTS = RejectReason.values();
    private static final CancelReason[] CANCELS = CancelReason.values();
    private static final EndReason[] ENDS = EndReason.values();
    private static final NoticeReason[] NOTICES = NoticeReason.values();

    private static final java.lang.invoke.VarHandle SEQUENCE =
        java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    private final byte[] bytes = new byte[MAX_RECORD_LENGTH];
    private final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
    private final FieldCodec fields = new FieldCodec();
    private int length;

    public byte[] bytes()
    {
        return bytes;
    }

    public int length()
    {
        return length;
    }

    public long sequenceOf()
    {
        return buffer.getLong(SEQUENCE_OFFSET);
    }

    /** The engine sequence of the event record at {@code offset} in {@code bytes} (a {@link Journal.RecordKey}). */
    public static long sequenceOf(final byte[] bytes, final int offset, final int length)
    {
        return (long)SEQUENCE.get(bytes, offset + SEQUENCE_OFFSET);
    }

    public int encode(final Event e)
    {
        buffer.putShort(VERSION_OFFSET, VERSION);
        buffer.putByte(KIND_OFFSET, KIND_EVENT);
        buffer.putByte(TYPE_OFFSET, (byte)e.type.ordinal());
        buffer.putLong(SEQUENCE_OFFSET, e.sequence);
        buffer.putLong(TIME_OFFSET, e.timeMs);
        buffer.putLong(COMMAND_SEQUENCE_OFFSET, e.commandSequence);
        fields.begin(buffer, FIELDS_OFFSET);
        long mask = 0;
        mask |= put(0, e.orderId);
        mask |= put(1, e.accountId);
        mask |= put(2, e.counterOrderId);
        mask |= put(3, e.leaseId);
        mask |= put(4, e.preemptsLeaseId);
        mask |= put(5, e.marketId);
        mask |= put(6, e.machineId);
        mask |= put(7, e.renterId);
        mask |= put(8, e.ownerId);
        mask |= put(9, e.gpus);
        mask |= put(10, e.price);
        mask |= put(11, e.remaining);
        mask |= put(12, e.effectiveMs);
        mask |= put(13, e.cost);
        mask |= put(14, e.fee);
        mask |= put(15, e.charge);
        mask |= put(16, e.period);
        mask |= put(17, e.ms);
        mask |= put(18, e.balance);
        mask |= put(19, e.available);
        mask |= put(20, e.rejectReason == null ? 0 : e.rejectReason.ordinal() + 1);
        mask |= put(21, e.cancelReason == null ? 0 : e.cancelReason.ordinal() + 1);
        mask |= put(22, e.endReason == null ? 0 : e.endReason.ordinal() + 1);
        mask |= put(23, e.noticeReason == null ? 0 : e.noticeReason.ordinal() + 1);
        mask |= put(24, e.command == null ? 0 : e.command.ordinal() + 1);
        mask |= put(25, e.namesMarket ? 1 : 0);
        if (e.type == EventType.BOOK)
        {
            final int room = (MAX_RECORD_LENGTH - fields.position - 16) / (2 * BOOK_LEVEL_BYTES);
            final int bids = Math.min(e.bidLevels, room);
            final int asks = Math.min(e.askLevels, room);
            fields.putVarLong(bids);
            fields.putVarLong(asks);
            for (int i = 0; i < bids; i++)
            {
                fields.putVarLong(e.bidPrices[i]);
                fields.putVarLong(e.bidGpus[i]);
            }
            for (int i = 0; i < asks; i++)
            {
                fields.putVarLong(e.askPrices[i]);
                fields.putVarLong(e.askGpus[i]);
            }
            mask |= 1L << BOOK_BIT;
        }
        mask |= put(27, e.accountSeq0);
        mask |= put(28, e.previous0);
        mask |= put(29, e.accountSeq1);
        mask |= put(30, e.previous1);
        buffer.putLong(MASK_OFFSET, mask);
        length = fields.position;
        buffer.putInt(CRC_OFFSET, fields.crc(bytes, length));
        return length;
    }

    private long put(final int bit, final long value)
    {
        if (value == 0)
        {
            return 0;
        }
        fields.putVarLong(value);
        return 1L << bit;
    }

    /**
     * Checks and decodes an event record of {@code recordLength} bytes held in {@link #bytes()}.
     *
     * @return null when it decoded, else the problem.
     */
    public String decode(final int recordLength, final Event e)
    {
        final String problem = fields.check(bytes, buffer, recordLength, KIND_EVENT);
        if (problem != null)
        {
            return problem;
        }
        try
        {
            e.clear();
            e.type = TYPES[buffer.getByte(TYPE_OFFSET)];
            e.sequence = buffer.getLong(SEQUENCE_OFFSET);
            e.timeMs = buffer.getLong(TIME_OFFSET);
            e.commandSequence = buffer.getLong(COMMAND_SEQUENCE_OFFSET);
            final long mask = buffer.getLong(MASK_OFFSET);
            fields.begin(buffer, FIELDS_OFFSET);
            for (int bit = 0; bit < FIELD_COUNT; bit++)
            {
                if ((mask & (1L << bit)) == 0)
                {
                    continue;
                }
                if (bit == BOOK_BIT)
                {
                    final int bids = (int)fields.getVarLong();
                    final int asks = (int)fields.getVarLong();
                    e.ensureBookCapacity(Math.max(bids, asks));
                    e.bidLevels = bids;
                    e.askLevels = asks;
                    for (int i = 0; i < bids; i++)
                    {
                        e.bidPrices[i] = fields.getVarLong();
                        e.bidGpus[i] = fields.getVarLong();
                    }
                    for (int i = 0; i < asks; i++)
                    {
                        e.askPrices[i] = fields.getVarLong();
                        e.askGpus[i] = fields.getVarLong();
                    }
                    continue;
                }
                final long v = fields.getVarLong();
                switch (bit)
                {
                    case 0 -> e.orderId = v;
                    case 1 -> e.accountId = v;
                    case 2 -> e.counterOrderId = v;
                    case 3 -> e.leaseId = v;
                    case 4 -> e.preemptsLeaseId = v;
                    case 5 -> e.marketId = v;
                    case 6 -> e.machineId = v;
                    case 7 -> e.renterId = v;
                    case 8 -> e.ownerId = v;
                    case 9 -> e.gpus = (int)v;
                    case 10 -> e.price = v;
                    case 11 -> e.remaining = (int)v;
                    case 12 -> e.effectiveMs = v;
                    case 13 -> e.cost = v;
                    case 14 -> e.fee = v;
                    case 15 -> e.charge = v;
                    case 16 -> e.period = (int)v;
                    case 17 -> e.ms = v;
                    case 18 -> e.balance = v;
                    case 19 -> e.available = v;
                    case 20 -> e.rejectReason = REJECTS[(int)v - 1];
                    case 21 -> e.cancelReason = CANCELS[(int)v - 1];
                    case 22 -> e.endReason = ENDS[(int)v - 1];
                    case 23 -> e.noticeReason = NOTICES[(int)v - 1];
                    case 24 -> e.command = CommandType.of((int)v - 1);
                    case 25 -> e.namesMarket = v != 0;
                    case 27 -> e.accountSeq0 = v;
                    case 28 -> e.previous0 = v;
                    case 29 -> e.accountSeq1 = v;
                    case 30 -> e.previous1 = v;
                    default -> throw new IllegalArgumentException("unknown field " + bit);
                }
            }
            if (fields.position != recordLength)
            {
                return "record length " + recordLength + " but fields end at " + fields.position;
            }
            return null;
        }
        catch (final RuntimeException ex)
        {
            return "undecodable: " + ex.getMessage();
        }
    }
}
