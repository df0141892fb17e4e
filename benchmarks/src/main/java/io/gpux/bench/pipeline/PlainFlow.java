package io.gpux.bench.pipeline;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.command.Roles;
import io.gpux.engine.command.TimeInForce;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A seeded plain order flow for pipeline benchmarks, precomputed: about 48 % adds around a mid price,
 * 44 % cancels of resting orders, 5 % IOC takers that trade (their leases expire after a second, so
 * the state stays bounded), 3 % replaces. Every command prints at least one event.
 */
public final class PlainFlow
{
    public static final long MARKET = 1;
    public static final long SELLER = 1;
    public static final long BUYER = 2;
    public static final long TAKER = 3;
    public static final long MACHINE = 1;

    private PlainFlow()
    {
    }

    /** Registration: a market without preemption, a seller with one huge machine, two funded renters. */
    public static List<Command> setup()
    {
        final List<Command> out = new ArrayList<>();
        Command c = new Command().reset(CommandType.MARKET, 0);
        c.marketId = MARKET;
        c.name = "BENCH-GPU";
        c.preemption = 0;
        c.maxGpusPerOrder = 1_000_000;
        out.add(c);
        c = new Command().reset(CommandType.CONFIG, 0);
        c.heartbeatTimeoutMs = 0;
        out.add(c);
        out.add(account(SELLER, "seller", Roles.OWNER));
        out.add(account(BUYER, "buyer", Roles.RENTER));
        out.add(account(TAKER, "taker", Roles.RENTER));
        out.add(deposit(BUYER));
        out.add(deposit(TAKER));
        c = new Command().reset(CommandType.MACHINE, 0);
        c.machineId = MACHINE;
        c.name = "big";
        c.accountId = SELLER;
        c.marketId = MARKET;
        c.gpus = Integer.MAX_VALUE;
        out.add(c);
        c = new Command().reset(CommandType.HEARTBEAT, 0);
        c.machineId = MACHINE;
        out.add(c);
        return out;
    }

    private static Command account(final long id, final String name, final int roles)
    {
        final Command c = new Command().reset(CommandType.ACCOUNT, 0);
        c.accountId = id;
        c.name = name;
        c.roles = roles;
        return c;
    }

    private static Command deposit(final long account)
    {
        final Command c = new Command().reset(CommandType.DEPOSIT, 0);
        c.accountId = account;
        c.amount = 1_000_000_000_000L * 1_000_000L;
        return c;
    }

    /** {@code n} flow commands after the setup. */
    public static Command[] flow(final long seed, final int n)
    {
        return flow(seed, n, 1);
    }

    /** {@code n} flow commands whose new orders are numbered from {@code firstOrderId}. */
    public static Command[] flow(final long seed, final int n, final long firstOrderId)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final Command[] out = new Command[n];
        // a book of a few thousand resting orders, like the visible depth of a busy market
        final long[] liveIds = new long[4096];
        final long[] liveAccounts = new long[4096];
        int live = 0;
        long nextOrder = firstOrderId;
        final long mid = 20_000;
        for (int i = 0; i < n; i++)
        {
            final int dice = random.nextInt(100);
            final Command c;
            if ((dice < 48 || live < 100) && live < liveIds.length)
            {
                final boolean ask = random.nextBoolean();
                c = new Command().reset(ask ? CommandType.ASK : CommandType.BID, 0);
                c.orderId = nextOrder++;
                c.accountId = ask ? SELLER : BUYER;
                if (ask)
                {
                    c.machineId = MACHINE;
                }
                else
                {
                    c.marketId = MARKET;
                }
                c.gpus = 1 + random.nextInt(8);
                c.price = ask ? mid + 1 + random.nextInt(50) : mid - 1 - random.nextInt(50);
                liveIds[live] = c.orderId;
                liveAccounts[live] = c.accountId;
                live++;
            }
            else if (dice < 92 || live == liveIds.length)
            {
                final int k = random.nextInt(live);
                c = new Command().reset(CommandType.CANCEL, 0);
                c.orderId = liveIds[k];
                c.accountId = liveAccounts[k];
                live--;
                liveIds[k] = liveIds[live];
                liveAccounts[k] = liveAccounts[live];
            }
            else if (dice < 97)
            {
                c = new Command().reset(CommandType.BID, 0);
                c.orderId = nextOrder++;
                c.accountId = TAKER;
                c.marketId = MARKET;
                c.gpus = 1 + random.nextInt(4);
                c.price = mid + 10 + random.nextInt(40);
                c.tif = TimeInForce.IOC;
                c.maxDurationMs = 1_000;
            }
            else
            {
                final int k = random.nextInt(live);
                c = new Command().reset(CommandType.REPLACE, 0);
                c.orderId = liveIds[k];
                c.accountId = liveAccounts[k];
                c.gpus = 1 + random.nextInt(8);
            }
            out[i] = c;
        }
        return out;
    }
}
