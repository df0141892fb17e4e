package io.gpux.engine;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.command.TimeInForce;
import io.gpux.engine.replay.Symbols;

/**
 * Reads a run of well-formed commands out of bytes, for a coverage-guided fuzzer ({@link EngineFuzzTest}) and a
 * property over random bytes ({@link FuzzCommandProperties}) alike: the fuzzer steers the choices byte by byte,
 * so every choice is a small decision read from the next byte or bytes, and a run ends when the bytes do.
 *
 * <p>Well-formed means what the engine can be given: every {@link CommandType}; ids of the markets, accounts,
 * machines, orders, leases and keys {@link FuzzRun#HEADER} registered, of those the run's own registrations may
 * add (markets with any parameters the gateway passes on), and arbitrary ones;
 * numbers anywhere in the ranges the gateway lets through (GatewayHandler and HotRequest: an order's or a
 * machine's gpus are a uint32 of at most {@code Integer.MAX_VALUE}; prices, market parameters, configuration and
 * deposits any int64; order, machine, lease and key ids any uint64; a minimum reliability of at most one million
 * ppm, as ppb; a maximum duration above zero; market symbols and account roles as the gateway checks them);
 * command times never going back, as the sequencer stamps them, in steps from none to more than a year.
 */
final class FuzzCommands
{
    private static final CommandType[] TYPES = CommandType.values();
    private static final TimeInForce[] TIFS = TimeInForce.values();
    private static final long[] EXTREME_LONGS = {
        Long.MIN_VALUE, Long.MIN_VALUE + 1, Long.MAX_VALUE, Long.MAX_VALUE - 1, 0, -1, 1, 2, Integer.MAX_VALUE,
        Integer.MIN_VALUE, 1L << 32, 1L << 40, 1L << 53, 1L << 61, 1L << 62, -(1L << 62), 999_999_999_999L,
        1_000_000_000_000L, 1_000_000_000_001L, 3_600_000, 86_400_000, 7L * 86_400_000, 7L * 86_400_000 + 1,
        366L * 86_400_000, 366L * 86_400_000 + 1, 30L * 86_400_000, 30L * 86_400_000 + 1, 500, 501};
    private static final int[] EXTREME_GPUS = {0, 1, 2, Integer.MAX_VALUE, Integer.MAX_VALUE - 1, 1 << 16, 1 << 20,
        1 << 30};
    /** Market symbols the gateway lets through: the header's, fresh ones, the shortest and the longest. */
    private static final String[] SYMBOLS = {FuzzRun.MARKETS[0], FuzzRun.MARKETS[1], "X1", "Y-2.Z_3", "AB",
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"};

    private final byte[] data;
    private final Symbols symbols;
    private int position;
    private long time;
    private long nextOrder = 1;

    FuzzCommands(final byte[] data, final Symbols symbols)
    {
        this.data = data;
        this.symbols = symbols;
        time = u8() % 2 == 0 ? 0 : 1_700_000_000_000L;
    }

    /** Whether bytes are left for another command. */
    boolean hasNext()
    {
        return position < data.length;
    }

    /** Fills {@code c} with the next command. */
    void next(final Command c)
    {
        final CommandType type = TYPES[u8() % TYPES.length];
        time = nextTime();
        c.reset(type, time);
        switch (type)
        {
            case MARKET ->
            {
                c.name = SYMBOLS[u8() % SYMBOLS.length];
                c.marketId = u8() % 4 == 0 ? anyLong() : symbols.markets.id(c.name);
                c.tick = optionalLong(10_000);
                c.preemption = u8() % 3 - 1;
                c.graceMs = optionalLong(60_000);
                c.minIncrement = optionalLong(10_000);
                c.feeBps = optionalLong(u8());
                c.prepayMs = optionalLong(3_600_000);
                c.maxGpusPerOrder = optionalLong(1 + u8() % 16);
            }
            case CONFIG ->
            {
                c.heartbeatIntervalMs = optionalLong(5_000);
                c.heartbeatTimeoutMs = optionalLong(15_000);
                c.restartWindowMs = optionalLong(60_000);
            }
            case ACCOUNT ->
            {
                c.name = accountName(u8() % (FuzzRun.ACCOUNTS.length + 2));
                c.accountId = u8() % 4 == 0 ? anyLong() : symbols.accounts.id(c.name);
                c.roles = 1 + u8() % 15;
            }
            case DEPOSIT ->
            {
                c.accountId = account();
                c.amount = u8() % 2 == 0 ? (1 + u8()) * 1_000_000L : anyLong();
            }
            case MACHINE ->
            {
                c.name = machineName(u8() % (FuzzRun.MACHINES.length + 2));
                c.machineId = u8() % 4 == 0 ? anyLong() : symbols.machines.id(c.name);
                c.accountId = account();
                c.marketId = market();
                c.gpus = gpus();
                c.regionId = u8() % 2 == 0 ? Command.NONE : u8() % 2 == 0 ? symbols.regions.id("eu") : anyLong();
                c.vramGb = u8() % 2 == 0 ? Command.ABSENT : 1 + (u32() & 0xFFFF_FFFEL);
                c.interconnectId = u8() % 2 == 0 ? Command.NONE : anyLong();
            }
            case HEARTBEAT -> c.machineId = machine();
            case ASK ->
            {
                c.accountId = account();
                c.orderId = newOrder();
                c.machineId = machine();
                c.gpus = gpus();
                c.price = price();
                c.tif = TIFS[u8() % TIFS.length];
                c.postOnly = u8() % 4 == 0;
            }
            case BID ->
            {
                c.accountId = account();
                c.orderId = newOrder();
                c.marketId = market();
                c.gpus = gpus();
                c.price = price();
                c.tif = TIFS[u8() % TIFS.length];
                c.postOnly = u8() % 4 == 0;
                c.gang = u8() % 3 == 0;
                c.minReliabilityPpb = u8() % 2 == 0 ? Command.ABSENT : 1000L * Math.min(1_000_000, 1 + u32() % 1_000_001);
                c.regionId = u8() % 3 == 0 ? symbols.regions.id("eu") : Command.NONE;
                c.maxDurationMs = u8() % 2 == 0 ? Command.ABSENT : positive(60_000);
            }
            case CANCEL ->
            {
                c.accountId = account();
                c.orderId = order();
                c.reclaim = u8() % 3 == 0;
            }
            case REPLACE ->
            {
                c.accountId = account();
                c.orderId = order();
                final int what = 1 + u8() % 3;
                if ((what & 1) != 0)
                {
                    c.price = price();
                }
                if ((what & 2) != 0)
                {
                    c.gpus = gpus();
                }
            }
            case MASS_CANCEL ->
            {
                c.accountId = account();
                c.hasMarket = u8() % 2 == 0;
                c.marketId = c.hasMarket ? market() : 0;
            }
            case RELEASE ->
            {
                c.accountId = account();
                c.leaseId = u8() % 4 == 0 ? anyLong() : 1 + u8() % 12;
            }
            case HALT, RESUME, BOOK ->
            {
                c.marketId = market();
                c.depth = type == CommandType.BOOK && u8() % 2 == 0 ? anyLong() : Command.ABSENT;
            }
            case KEY ->
            {
                c.accountId = account();
                c.keyId = u8() % 4 == 0 ? anyLong() : 1 + u8() % 6;
                c.revoke = u8() % 3 == 0;
            }
            case COD_SESSION ->
            {
                c.accountId = account();
                c.sessionClosed = u8() % 2 == 0;
            }
            case TICK, RESTART ->
            {
            }
        }
    }

    private long nextTime()
    {
        final long step = switch (u8() % 8)
        {
            case 0 -> 0;
            case 1, 2, 3 -> u16();
            case 4 -> u8() * 60_000L;
            case 5 -> u16() * 1_000L;
            case 6 -> u16() * 60_000L;
            default -> u16() * 600_000L;
        };
        return time + step;
    }

    private long account()
    {
        final int k = u8() % (FuzzRun.ACCOUNTS.length + 3);
        return k < FuzzRun.ACCOUNTS.length + 2 ? symbols.accounts.id(accountName(k)) : anyLong();
    }

    private long market()
    {
        final int k = u8() % (SYMBOLS.length + 2);
        return k < SYMBOLS.length + 1 ? symbols.markets.id(SYMBOLS[k % SYMBOLS.length]) : anyLong();
    }

    private long machine()
    {
        final int k = u8() % (FuzzRun.MACHINES.length + 3);
        return k < FuzzRun.MACHINES.length + 2 ? symbols.machines.id(machineName(k)) : anyLong();
    }

    /** The header's accounts, then two that only an ACCOUNT command of the run can register. */
    private static String accountName(final int k)
    {
        return k < FuzzRun.ACCOUNTS.length ? FuzzRun.ACCOUNTS[k] : "acct" + k;
    }

    /** The header's machines, then two that only a MACHINE command of the run can register. */
    private static String machineName(final int k)
    {
        return k < FuzzRun.MACHINES.length ? FuzzRun.MACHINES[k] : "gpu" + k;
    }

    /** An order id of the recent ones (open or not), or any. */
    private long order()
    {
        final int k = u8() % 9;
        return k < 8 ? symbols.orders.id("o" + Math.max(1, nextOrder - 1 - k)) : anyLong();
    }

    /** A fresh order id, a reused one, or any. */
    private long newOrder()
    {
        return switch (u8() % 8)
        {
            case 0 -> order();
            case 1 -> anyLong();
            default -> symbols.orders.id("o" + nextOrder++);
        };
    }

    private int gpus()
    {
        return switch (u8() % 4)
        {
            case 0 -> EXTREME_GPUS[u8() % EXTREME_GPUS.length];
            case 1 -> (int)(u32() & Integer.MAX_VALUE);
            default -> 1 + u8() % 8;
        };
    }

    private long price()
    {
        return u8() % 3 == 0 ? anyLong() : 10_000L * (1 + u8() % 30);
    }

    /** ABSENT (not given), an ordinary value, or any. */
    private long optionalLong(final long ordinary)
    {
        return switch (u8() % 4)
        {
            case 0 -> Command.ABSENT;
            case 1 -> anyLong();
            default -> ordinary;
        };
    }

    /** A number above zero: ordinary or as large as a long goes. */
    private long positive(final long ordinary)
    {
        final long any = anyLong();
        return any > 0 && u8() % 2 == 0 ? any : ordinary;
    }

    private long anyLong()
    {
        return switch (u8() % 4)
        {
            case 0 -> EXTREME_LONGS[u8() % EXTREME_LONGS.length];
            case 1 -> u64();
            case 2 -> -u16();
            default -> u16();
        };
    }

    /** The next byte, unsigned; 0 once the bytes are used up. */
    private int u8()
    {
        return position < data.length ? data[position++] & 0xFF : 0;
    }

    private long u16()
    {
        return (long)u8() << 8 | u8();
    }

    private long u32()
    {
        return u16() << 16 | u16();
    }

    private long u64()
    {
        return u32() << 32 | u32();
    }
}
