package io.gpux.engine;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.command.TimeInForce;
import io.gpux.engine.replay.CommandPrinter;
import io.gpux.engine.replay.ScenarioReplayer;
import io.gpux.engine.replay.Symbols;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * The engine never throws on a well-formed command: random commands of every type, built field by field
 * (not through the scenario parser or the gateway, which check values first), whose numbers are drawn
 * from the extremes ({@code Long.MIN_VALUE}, {@code Long.MAX_VALUE}, 0, -1, {@link Command#ABSENT}, huge
 * and tiny values) as often as from ordinary ones, and whose ids name real markets, accounts, machines,
 * orders and leases as often as unknown ones. After every command the {@link InvariantChecker} must hold.
 * A failure prints the commands up to the failing one in the scenario format. Ten times the tries under
 * {@code -Pstress} ({@link StressTries}).
 */
@AddLifecycleHook(StressTries.class)
class ExtremeCommandProperties
{
    private static final String[] ACCOUNTS = {"own1", "own2", "mm", "r1", "r2", "adm"};
    private static final String[] MACHINES = {"m1", "m2", "m3"};
    /** The owner of each machine. */
    private static final String[] OWNERS = {"own1", "mm", "own2"};
    private static final String[] RENTERS = {"r1", "r2", "mm"};
    private static final String[] MARKETS = {"H100", "L4"};
    private static final CommandType[] TYPES = CommandType.values();
    private static final long[] EXTREME_LONGS = {
        Long.MIN_VALUE, Long.MIN_VALUE + 1, Long.MAX_VALUE, Long.MAX_VALUE - 1, 0, -1, 1, 2, Integer.MAX_VALUE,
        Integer.MIN_VALUE, (long)Integer.MAX_VALUE + 1, 1L << 40, 1L << 53, 1L << 62, -(1L << 62), 10_000, 1_000_000,
        1_000_000_000, 3_600_000, 86_400_000, 1_000_000_000_000_000L};
    private static final int[] EXTREME_INTS = {Integer.MIN_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE - 1, 0, -1, 1, 2,
        3, 4, 8, 16, 1 << 20, 1 << 30};

    @Property(tries = 40)
    void theEngineNeverThrowsAndItsInvariantsHold(@ForAll final long seed, @ForAll @IntRange(min = 200, max = 1500) final int n)
    {
        final ScenarioReplayer replayer = new ScenarioReplayer(new StringBuilder());
        final MatchingEngine engine = replayer.engine();
        final InvariantChecker checker = new InvariantChecker(engine);
        engine.sink(checker.tee(null));
        final Symbols symbols = replayer.symbols();
        final CommandPrinter printer = new CommandPrinter(symbols);
        final List<String> history = new ArrayList<>();
        final String[] header = {
            "0 CONFIG heartbeatTimeoutMs=60000",
            "0 MARKET id=H100 graceMs=1000 prepayMs=60000",
            "0 MARKET id=L4 preemption=off maxGpusPerOrder=8 feeBps=100",
            "0 ACCOUNT id=own1 roles=OWNER",
            "0 ACCOUNT id=own2 roles=OWNER",
            "0 ACCOUNT id=mm roles=MARKET_MAKER",
            "0 ACCOUNT id=r1 roles=RENTER",
            "0 ACCOUNT id=r2 roles=RENTER",
            "0 ACCOUNT id=adm roles=ADMIN",
            "0 DEPOSIT account=r1 amount=1000000",
            "0 DEPOSIT account=r2 amount=50",
            "0 DEPOSIT account=mm amount=1000",
            "0 MACHINE id=m1 owner=own1 market=H100 gpus=8",
            "0 MACHINE id=m2 owner=mm market=H100 gpus=4",
            "0 MACHINE id=m3 owner=own2 market=L4 gpus=2",
            "0 HEARTBEAT machine=m1",
            "0 HEARTBEAT machine=m2",
            "0 HEARTBEAT machine=m3",
        };
        try
        {
            for (final String line : header)
            {
                history.add(line);
                if (line.contains("DEPOSIT"))
                {
                    final String account = line.replaceAll(".*account=(\\w+).*", "$1");
                    final long units = Long.parseLong(line.replaceAll(".*amount=(\\d+).*", "$1"));
                    checker.expectDeposit(symbols.accounts.id(account), units * 1_000_000L);
                }
                replayer.line(line);
            }
        }
        catch (final Exception ex)
        {
            throw new AssertionError("header: " + ex, ex);
        }
        final SplittableRandom random = new SplittableRandom(seed);
        final Gen gen = new Gen(random, symbols);
        final Command c = new Command();
        long time = 0;
        for (int i = 0; i < n; i++)
        {
            time = gen.time(time);
            gen.fill(c, time);
            history.add(FuzzRun.print(printer, c));
            try
            {
                FuzzRun.applyAndCheck(engine, checker, c);
            }
            catch (final RuntimeException | AssertionError ex)
            {
                fail("command " + (i + 1) + " of seed " + seed + " failed: " + ex + "\n" + String.join("\n", history), ex);
            }
        }
    }

    /** Draws commands: every type, extreme and ordinary values, known and unknown ids. */
    private static final class Gen
    {
        private final SplittableRandom random;
        private final Symbols symbols;
        private long nextOrder = 1;
        private final long[] recentOrders = new long[16];

        Gen(final SplittableRandom random, final Symbols symbols)
        {
            this.random = random;
            this.symbols = symbols;
            for (int i = 0; i < recentOrders.length; i++)
            {
                recentOrders[i] = symbols.orders.id("o" + i);
            }
        }

        /** The sequencer stamps times from the clock: they jump ahead, repeat or come a little late, never wild. */
        long time(final long now)
        {
            return switch (random.nextInt(8))
            {
                case 0 -> now;
                case 1 -> now + random.nextLong(3_600_000L * 48);
                case 2 -> now + random.nextLong(86_400_000L);
                case 3 -> now - random.nextLong(100_000);
                default -> now + random.nextLong(5_000);
            };
        }

        /**
         * An ordinary command of a random type (right roles, usual sizes and prices), then none, one or many
         * of its fields set to extremes.
         */
        void fill(final Command c, final long time)
        {
            final CommandType type = random.nextInt(4) == 0 ? TYPES[random.nextInt(TYPES.length)] :
                switch (random.nextInt(8))
                {
                    case 0, 1 -> CommandType.ASK;
                    case 2, 3, 4 -> CommandType.BID;
                    case 5 -> CommandType.CANCEL;
                    case 6 -> CommandType.REPLACE;
                    default -> CommandType.RELEASE;
                };
            c.reset(type, time);
            final int owner = random.nextInt(MACHINES.length);
            c.machineId = symbols.machines.id(MACHINES[owner]);
            // now and then a market registered by an earlier MARKET command, with whatever parameters it got
            c.marketId = symbols.markets.id(random.nextInt(6) == 0 ? "x" + random.nextInt(50) : owner == 2 ? "L4" : "H100");
            c.accountId = symbols.accounts.id(type == CommandType.ASK ? OWNERS[owner] :
                type == CommandType.BID || type == CommandType.RELEASE ? RENTERS[random.nextInt(RENTERS.length)] :
                ACCOUNTS[random.nextInt(ACCOUNTS.length)]);
            c.orderId = type.isOrderEntry() ? symbols.orders.id("n" + nextOrder++) : recentOrders[random.nextInt(recentOrders.length)];
            c.leaseId = 1 + random.nextInt(40);
            c.price = 10_000L * (1 + random.nextInt(30));
            c.gpus = 1 + random.nextInt(4);
            c.tif = random.nextInt(5) == 0 ? TimeInForce.values()[random.nextInt(TimeInForce.values().length)] : TimeInForce.GTC;
            c.postOnly = random.nextInt(8) == 0;
            c.gang = random.nextInt(5) == 0;
            c.reclaim = random.nextInt(5) == 0;
            c.maxDurationMs = random.nextInt(4) == 0 ? 60_000 : Command.ABSENT;
            c.amount = random.nextLong(1, 1_000_000_000L);
            c.depth = 5;
            c.keyId = 1 + random.nextInt(5);
            c.revoke = random.nextInt(4) == 0;
            c.roles = 1 << random.nextInt(4);
            c.hasMarket = random.nextBoolean();
            if (type == CommandType.MARKET || type == CommandType.ACCOUNT || type == CommandType.MACHINE)
            {
                // registrations: new names as often as taken ones
                final String name = random.nextBoolean() ? "x" + random.nextInt(50) : switch (type)
                {
                    case MARKET -> MARKETS[random.nextInt(MARKETS.length)];
                    case ACCOUNT -> ACCOUNTS[random.nextInt(ACCOUNTS.length)];
                    default -> MACHINES[random.nextInt(MACHINES.length)];
                };
                c.name = name;
                switch (type)
                {
                    case MARKET -> c.marketId = symbols.markets.id(name);
                    case ACCOUNT -> c.accountId = symbols.accounts.id(name);
                    default ->
                    {
                        c.machineId = symbols.machines.id(name);
                        c.accountId = symbols.accounts.id(OWNERS[owner]);
                        c.gpus = 1 + random.nextInt(8);
                    }
                }
            }
            final int extremes = switch (random.nextInt(10))
            {
                case 0, 1, 2, 3 -> 0;
                case 4, 5, 6 -> 1;
                default -> 2 + random.nextInt(12);
            };
            for (int i = 0; i < extremes; i++)
            {
                extreme(c);
            }
            if (type.isOrderEntry())
            {
                recentOrders[random.nextInt(recentOrders.length)] = c.orderId;
            }
        }

        private void extreme(final Command c)
        {
            switch (random.nextInt(26))
            {
                case 0 -> c.marketId = anyLong();
                case 1 -> c.accountId = anyLong();
                case 2 -> c.machineId = anyLong();
                case 3 -> c.orderId = anyLong();
                case 4 -> c.leaseId = anyLong();
                case 5 -> c.price = anyLong();
                case 6 -> c.gpus = anyInt();
                case 7 -> c.minReliabilityPpb = anyLong();
                case 8 -> c.regionId = random.nextBoolean() ? anyLong() : symbols.regions.id("eu");
                case 9 -> c.maxDurationMs = anyLong();
                case 10 -> c.tick = anyLong();
                case 11 -> c.preemption = anyInt();
                case 12 -> c.graceMs = anyLong();
                case 13 -> c.minIncrement = anyLong();
                case 14 -> c.feeBps = anyLong();
                case 15 -> c.prepayMs = anyLong();
                case 16 -> c.maxGpusPerOrder = anyLong();
                case 17 -> c.heartbeatIntervalMs = anyLong();
                case 18 -> c.heartbeatTimeoutMs = anyLong();
                case 19 -> c.roles = anyInt();
                case 20 -> c.amount = anyLong();
                case 21 -> c.depth = anyLong();
                case 22 -> c.vramGb = anyLong();
                case 23 -> c.interconnectId = anyLong();
                case 24 -> c.keyId = anyLong();
                default -> c.gpus = Integer.MIN_VALUE;
            }
        }

        private long anyLong()
        {
            return random.nextInt(4) == 0 ? random.nextLong() : EXTREME_LONGS[random.nextInt(EXTREME_LONGS.length)];
        }

        private int anyInt()
        {
            return random.nextInt(4) == 0 ? random.nextInt() : EXTREME_INTS[random.nextInt(EXTREME_INTS.length)];
        }
    }
}
