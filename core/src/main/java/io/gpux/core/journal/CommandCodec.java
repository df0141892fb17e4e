package io.gpux.core.journal;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.command.TimeInForce;
import org.agrona.concurrent.UnsafeBuffer;

import static io.gpux.core.journal.RecordDescriptor.*;

/**
 * Commands to journal records and back (layout: {@link RecordDescriptor}). One instance per thread;
 * encoding allocates nothing.
 */
public final class CommandCodec
{
    /**
     * Mask bits in use. A new field takes the next bit: records without it decode as before, so the
     * record version stays (bits 30 and 31, KEY's key id and revoke flag, bit 32, COD_SESSION's closed flag,
     * bit 33, CONFIG's restart window, and bits 34 to 36, MARKET's preemption increment and fragment-first
     * placement and a bid's noPreempt, came so).
     */
    private static final int FIELD_COUNT = 37;

    private final byte[] bytes = new byte[MAX_RECORD_LENGTH];
    private final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
    private final FieldCodec fields = new FieldCodec();
    private int length;

    public byte[] bytes()
    {
        return bytes;
    }

    public UnsafeBuffer buffer()
    {
        return buffer;
    }

    public int length()
    {
        return length;
    }

    /** Encodes into {@link #bytes()}; returns the record's length. */
    public int encode(final Command c)
    {
        buffer.putShort(VERSION_OFFSET, VERSION);
        buffer.putByte(KIND_OFFSET, KIND_COMMAND);
        buffer.putByte(TYPE_OFFSET, (byte)c.type.ordinal());
        buffer.putLong(SEQUENCE_OFFSET, c.sequence);
        buffer.putLong(TIME_OFFSET, c.timeMs);
        buffer.putLong(COMMAND_SEQUENCE_OFFSET, 0);
        long mask = 0;
        fields.begin(buffer, FIELDS_OFFSET);
        mask |= put(0, c.marketId, Command.NONE);
        mask |= put(1, c.accountId, Command.NONE);
        mask |= put(2, c.machineId, Command.NONE);
        mask |= put(3, c.orderId, Command.NONE);
        mask |= put(4, c.leaseId, Command.NONE);
        if (c.name != null)
        {
            fields.putString(c.name);
            mask |= 1L << 5;
        }
        mask |= put(6, c.price, Command.ABSENT);
        mask |= put(7, c.gpus, Command.ABSENT_INT);
        mask |= put(8, c.tif.ordinal(), TimeInForce.GTC.ordinal());
        mask |= flag(9, c.postOnly);
        mask |= flag(10, c.gang);
        mask |= flag(11, c.reclaim);
        mask |= put(12, c.minReliabilityPpb, Command.ABSENT);
        mask |= put(13, c.regionId, Command.NONE);
        mask |= put(14, c.maxDurationMs, Command.ABSENT);
        mask |= put(15, c.tick, Command.ABSENT);
        mask |= put(16, c.preemption, Command.ABSENT_INT);
        mask |= put(17, c.graceMs, Command.ABSENT);
        mask |= put(18, c.minIncrement, Command.ABSENT);
        mask |= put(19, c.feeBps, Command.ABSENT);
        mask |= put(20, c.prepayMs, Command.ABSENT);
        mask |= put(21, c.maxGpusPerOrder, Command.ABSENT);
        mask |= put(22, c.heartbeatIntervalMs, Command.ABSENT);
        mask |= put(23, c.heartbeatTimeoutMs, Command.ABSENT);
        mask |= put(24, c.roles, 0);
        mask |= put(25, c.amount, Command.ABSENT);
        mask |= put(26, c.depth, Command.ABSENT);
        mask |= put(27, c.vramGb, Command.ABSENT);
        mask |= put(28, c.interconnectId, Command.NONE);
        mask |= flag(29, c.hasMarket);
        mask |= put(30, c.keyId, Command.NONE);
        mask |= flag(31, c.revoke);
        mask |= flag(32, c.sessionClosed);
        mask |= put(33, c.restartWindowMs, Command.ABSENT);
        mask |= put(34, c.preemptIncrementBps, Command.ABSENT);
        mask |= put(35, c.fragmentFirst ? 1 : 0, 0);
        mask |= put(36, c.noPreempt ? 1 : 0, 0);
        buffer.putLong(MASK_OFFSET, mask);
        length = fields.position;
        buffer.putInt(CRC_OFFSET, fields.crc(bytes, length));
        return length;
    }

    private long flag(final int bit, final boolean value)
    {
        return put(bit, value ? 1 : 0, 0);
    }

    /** Writes the field unless it holds its absent value ({@link Command}); returns its mask bit, or 0. */
    private long put(final int bit, final long value, final long absent)
    {
        if (value == absent)
        {
            return 0;
        }
        fields.putVarLong(value);
        return 1L << bit;
    }

    /**
     * Checks and decodes a command record of {@code recordLength} bytes held in {@link #bytes()}.
     *
     * @return null when it decoded, else why the record is not a valid command.
     */
    public String decode(final int recordLength, final Command c)
    {
        final String problem = fields.check(bytes, buffer, recordLength, KIND_COMMAND);
        if (problem != null)
        {
            return problem;
        }
        final int type = buffer.getByte(TYPE_OFFSET);
        if (type < 0 || type >= CommandType.COUNT)
        {
            return "unknown command type " + type;
        }
        try
        {
            c.reset(CommandType.of(type), buffer.getLong(TIME_OFFSET));
            c.sequence = buffer.getLong(SEQUENCE_OFFSET);
            final long mask = buffer.getLong(MASK_OFFSET);
            fields.begin(buffer, FIELDS_OFFSET);
            for (int bit = 0; bit < FIELD_COUNT; bit++)
            {
                if ((mask & (1L << bit)) == 0)
                {
                    continue;
                }
                if (bit == 5)
                {
                    c.name = fields.getString();
                    continue;
                }
                final long v = fields.getVarLong();
                switch (bit)
                {
                    case 0 -> c.marketId = v;
                    case 1 -> c.accountId = v;
                    case 2 -> c.machineId = v;
                    case 3 -> c.orderId = v;
                    case 4 -> c.leaseId = v;
                    case 6 -> c.price = v;
                    case 7 -> c.gpus = (int)v;
                    case 8 -> c.tif = TimeInForce.of((int)v);
                    case 9 -> c.postOnly = v != 0;
                    case 10 -> c.gang = v != 0;
                    case 11 -> c.reclaim = v != 0;
                    case 12 -> c.minReliabilityPpb = v;
                    case 13 -> c.regionId = v;
                    case 14 -> c.maxDurationMs = v;
                    case 15 -> c.tick = v;
                    case 16 -> c.preemption = (int)v;
                    case 17 -> c.graceMs = v;
                    case 18 -> c.minIncrement = v;
                    case 19 -> c.feeBps = v;
                    case 20 -> c.prepayMs = v;
                    case 21 -> c.maxGpusPerOrder = v;
                    case 22 -> c.heartbeatIntervalMs = v;
                    case 23 -> c.heartbeatTimeoutMs = v;
                    case 24 -> c.roles = (int)v;
                    case 25 -> c.amount = v;
                    case 26 -> c.depth = v;
                    case 27 -> c.vramGb = v;
                    case 28 -> c.interconnectId = v;
                    case 29 -> c.hasMarket = v != 0;
                    case 30 -> c.keyId = v;
                    case 31 -> c.revoke = v != 0;
                    case 32 -> c.sessionClosed = v != 0;
                    case 33 -> c.restartWindowMs = v;
                    case 34 -> c.preemptIncrementBps = v;
                    case 35 -> c.fragmentFirst = v != 0;
                    case 36 -> c.noPreempt = v != 0;
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
