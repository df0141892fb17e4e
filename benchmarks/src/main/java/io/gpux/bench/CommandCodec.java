package io.gpux.bench;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.command.TimeInForce;

import java.util.Arrays;

/**
 * Packs precomputed commands into a {@code long[]} and decodes them into one reused {@link Command}
 * flyweight, the way a ring-buffer translator or journal reader fills it in production. 150,000
 * {@code Command} objects (~230 bytes each) would stream ~35 MB through the caches per pass and evict the
 * engine's own state; the packed stream is 72 bytes a command, read sequentially.
 *
 * <p>Layout of a command: a header word (type, time in force, flags, which rare fields follow), the time,
 * then always the 7 fields order flow uses (market, account, machine, order, lease, price, gpus; their
 * defaults where unset), then the rare fields present (minReliability, region, maxDurationMs, amount, depth).
 * Decoding is thus mostly branch-free stores; it is part of what the benchmarks measure (~5-10 ns a
 * command). Registration commands (names, market parameters) stay in {@link Workload#setup} as objects.
 */
final class CommandCodec
{
    private static final CommandType[] TYPES = CommandType.values();
    private static final TimeInForce[] TIFS = TimeInForce.values();

    private static final long POST_ONLY = 1L << 8;
    private static final long GANG = 1L << 9;
    private static final long RECLAIM = 1L << 10;
    private static final long HAS_MARKET = 1L << 11;
    private static final int TIF_SHIFT = 12;
    /** Set on a RELEASE: its lease id moves on with each repetition of the pass. */
    private static final int RELEASE_SHIFT = 14;
    private static final int RARE_SHIFT = 16;

    private static final int MIN_RELIABILITY = 1;
    private static final int REGION = 1 << 1;
    private static final int MAX_DURATION = 1 << 2;
    private static final int AMOUNT = 1 << 3;
    private static final int DEPTH = 1 << 4;

    private long[] buf = new long[1 << 16];
    private int size;

    private CommandCodec()
    {
    }

    /** Packs commands; throws if one carries a field the codec does not pack. */
    static long[] encode(final Command[] commands)
    {
        final CommandCodec codec = new CommandCodec();
        for (final Command c : commands)
        {
            codec.add(c);
        }
        return Arrays.copyOf(codec.buf, codec.size);
    }

    private void add(final Command c)
    {
        final Command d = new Command().reset(c.type, c.timeMs);
        if (c.name != null || c.tick != d.tick || c.preemption != d.preemption || c.graceMs != d.graceMs ||
            c.minIncrement != d.minIncrement || c.feeBps != d.feeBps || c.prepayMs != d.prepayMs ||
            c.maxGpusPerOrder != d.maxGpusPerOrder || c.heartbeatIntervalMs != d.heartbeatIntervalMs ||
            c.heartbeatTimeoutMs != d.heartbeatTimeoutMs || c.restartWindowMs != d.restartWindowMs || c.roles != d.roles ||
            c.vramGb != d.vramGb || c.interconnectId != d.interconnectId || c.keyId != d.keyId || c.revoke != d.revoke)
        {
            throw new IllegalArgumentException("cannot pack a " + c.type + " with registration/config/key fields");
        }
        final int header = size;
        push(0);
        push(c.timeMs);
        push(c.marketId);
        push(c.accountId);
        push(c.machineId);
        push(c.orderId);
        push(c.leaseId);
        push(c.price);
        push(c.gpus);
        int rare = 0;
        rare |= rare(MIN_RELIABILITY, c.minReliabilityPpb, d.minReliabilityPpb);
        rare |= rare(REGION, c.regionId, d.regionId);
        rare |= rare(MAX_DURATION, c.maxDurationMs, d.maxDurationMs);
        rare |= rare(AMOUNT, c.amount, d.amount);
        rare |= rare(DEPTH, c.depth, d.depth);
        buf[header] = c.type.ordinal() | (c.postOnly ? POST_ONLY : 0) | (c.gang ? GANG : 0) | (c.reclaim ? RECLAIM : 0) |
            (c.hasMarket ? HAS_MARKET : 0) | ((long)c.tif.ordinal() << TIF_SHIFT) |
            (c.type == CommandType.RELEASE ? 1L << RELEASE_SHIFT : 0) | ((long)rare << RARE_SHIFT);
    }

    private int rare(final int bit, final long value, final long dflt)
    {
        if (value == dflt)
        {
            return 0;
        }
        push(value);
        return bit;
    }

    private void push(final long v)
    {
        if (size == buf.length)
        {
            buf = Arrays.copyOf(buf, size * 2);
        }
        buf[size++] = v;
    }

    /**
     * Decodes packed commands into one flyweight, leaving it exactly as {@link Command#reset} plus the packed
     * fields would: the 7 common fields are always written; a rare field is written when present and put
     * back to its default when the previous command had it and this one does not.
     */
    static final class Decoder
    {
        private static final Command DEFAULTS = new Command().reset(CommandType.TICK, 0);

        private final Command c;
        private int lastRare;

        /** Takes over a flyweight (whatever it holds now is reset once). */
        Decoder(final Command flyweight)
        {
            this.c = flyweight;
            flyweight.reset(CommandType.TICK, 0);
        }

        /**
         * Decodes the command at pos, its time moved on by timeOffset and a RELEASE's lease id by leaseOffset.
         *
         * @return the position of the next command.
         */
        int decode(final long[] buf, final int pos, final long timeOffset, final long leaseOffset)
        {
            final Command c = this.c;
            final long h = buf[pos];
            c.type = TYPES[(int)(h & 0xFF)];
            c.tif = TIFS[(int)(h >>> TIF_SHIFT) & 3];
            c.postOnly = (h & POST_ONLY) != 0;
            c.gang = (h & GANG) != 0;
            c.reclaim = (h & RECLAIM) != 0;
            c.hasMarket = (h & HAS_MARKET) != 0;
            c.timeMs = buf[pos + 1] + timeOffset;
            c.marketId = buf[pos + 2];
            c.accountId = buf[pos + 3];
            c.machineId = buf[pos + 4];
            c.orderId = buf[pos + 5];
            c.leaseId = buf[pos + 6] + (leaseOffset & -((h >>> RELEASE_SHIFT) & 1));
            c.price = buf[pos + 7];
            c.gpus = (int)buf[pos + 8];
            final int rare = (int)(h >>> RARE_SHIFT);
            if ((rare | lastRare) == 0)
            {
                return pos + 9;
            }
            return decodeRare(buf, pos + 9, rare);
        }

        private int decodeRare(final long[] buf, int pos, final int rare)
        {
            final Command c = this.c;
            final Command d = DEFAULTS;
            lastRare = rare;
            c.minReliabilityPpb = (rare & MIN_RELIABILITY) != 0 ? buf[pos++] : d.minReliabilityPpb;
            c.regionId = (rare & REGION) != 0 ? buf[pos++] : d.regionId;
            c.maxDurationMs = (rare & MAX_DURATION) != 0 ? buf[pos++] : d.maxDurationMs;
            c.amount = (rare & AMOUNT) != 0 ? buf[pos++] : d.amount;
            c.depth = (rare & DEPTH) != 0 ? buf[pos++] : d.depth;
            return pos;
        }
    }
}
