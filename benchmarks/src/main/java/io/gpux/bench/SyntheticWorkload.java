package io.gpux.bench;

import io.gpux.engine.book.BookSide;
import io.gpux.engine.book.Order;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.command.Roles;
import io.gpux.engine.command.TimeInForce;
import io.gpux.engine.event.Event;
import io.gpux.engine.event.EventType;
import io.gpux.engine.market.Market;

import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * A synthetic plain order stream in the style of exchange-core's benchmark generator (one symbol,
 * ~1,000 active orders on ~750 price slots, 1,000 accounts; 9 % GTC orders, 3 % IOC orders, 6 % cancels,
 * 82 % moves): here a move is a REPLACE to a new price with the same open GPUs. Every account is a
 * MARKET_MAKER with its own machine, so any of them can bid or ask; self-trades are passed over.
 * Leases are RELEASEd 20 to 220 commands after they start (their GPUs go back to the ask they came from,
 * if it is still open). A pass ramps the book up from empty, runs the mix and ends with a MASS_CANCEL of
 * every account with open orders, the last RELEASEs and top-up deposits.
 */
final class SyntheticWorkload
{
    static final int ACCOUNTS = 1_000;
    static final int TARGET_ORDERS = 1_000;
    static final int PASS_COMMANDS = 250_000;
    static final long MARKET = 1;
    static final long BALANCE = 1_000_000_000_000_000L;
    static final long CENTER = 100_000;

    private static Workload cached;

    static synchronized Workload get()
    {
        if (cached == null)
        {
            cached = new SyntheticWorkload().generate();
        }
        return cached;
    }

    private final WorkloadBuilder b = new WorkloadBuilder();
    private final SplittableRandom rnd = new SplittableRandom(20_240_601L);
    private long[] openIds = new long[4096];
    private long[] openAccounts = new long[4096];
    private int openCount;
    private long nextOrderId = 1;
    /** Live leases: id -> renter. */
    private final TreeMap<Long, Long> live = new TreeMap<>();
    /** Planned releases: {dueStep, leaseId}. */
    private final PriorityQueue<long[]> releases = new PriorityQueue<>((x, y) -> Long.compare(x[0], y[0]));
    private long step;
    private long center = CENTER;
    private Market market;

    private void onEvent(final Event e)
    {
        if (e.type == EventType.LEASE_STARTED)
        {
            live.put(e.leaseId, e.renterId);
            releases.add(new long[]{step + 20 + rnd.nextInt(200), e.leaseId});
        }
        else if (e.type == EventType.LEASE_ENDED)
        {
            live.remove(e.leaseId);
        }
        else if (e.type == EventType.REJECTED)
        {
            throw new IllegalStateException("synthetic workload: unexpected reject " + e.rejectReason + " of " + e.command);
        }
    }

    private Workload generate()
    {
        b.listener(this::onEvent);
        b.heartbeatTimeout(0, 0);
        b.market(0, MARKET, "SYNTH", false, Command.ABSENT, 0, Command.ABSENT, Command.ABSENT);
        for (long a = 1; a <= ACCOUNTS; a++)
        {
            b.account(0, a, "MM" + a, Roles.MARKET_MAKER);
            b.deposit(0, a, BALANCE);
            b.machine(0, a, "RIG" + a, a, MARKET, 1_000_000_000, Command.NONE);
            b.heartbeat(0, a);
        }
        market = b.engine.market(MARKET);

        b.beginPass();
        final long t0 = 1_000;
        while (b.passSize() < PASS_COMMANDS)
        {
            step++;
            final long t = t0 + step;
            if (step % 1000 == 0)
            {
                center += rnd.nextInt(7) - 3;
            }
            while (!releases.isEmpty() && releases.peek()[0] <= step)
            {
                final long lease = releases.poll()[1];
                final Long renter = live.get(lease);
                if (renter != null)
                {
                    b.release(t, renter, lease);
                }
            }
            if (openCount < TARGET_ORDERS * 9 / 10)
            {
                gtc(t);
                continue;
            }
            final int r = rnd.nextInt(100);
            if (r < 9)
            {
                gtc(t);
            }
            else if (r < 12)
            {
                ioc(t);
            }
            else if (r < 18)
            {
                cancel(t);
            }
            else
            {
                move(t);
            }
        }
        final long end = b.now;
        int open = 0;
        for (long a = 1; a <= ACCOUNTS; a++)
        {
            open += b.engine.account(a).openOrders.size();
        }
        final String book = String.format("%d open orders on %d bid + %d ask levels before the end-of-pass cleanup",
            open, market.bids.levelCount(), market.asks.levelCount());
        for (long a = 1; a <= ACCOUNTS; a++)
        {
            if (b.engine.account(a).firstOpen != null)
            {
                b.massCancel(end, a);
            }
        }
        for (final Long lease : live.keySet().toArray(new Long[0]))
        {
            final Long renter = live.get(lease);
            if (renter != null)
            {
                b.release(end, renter, lease);
            }
        }
        for (long a = 1; a <= ACCOUNTS; a++)
        {
            b.topUp(end, a, BALANCE);
        }
        final long trades = b.passEvents(EventType.TRADE);
        return b.build("synthetic", end - t0 + 1, String.format("%d trades in %d commands; %s", trades, b.passSize(), book));
    }

    private long bestAsk()
    {
        final BookSide asks = market.asks;
        return asks.levelCount() == 0 ? center + 1 : asks.best().price();
    }

    private long bestBid()
    {
        final BookSide bids = market.bids;
        return bids.levelCount() == 0 ? center - 1 : bids.best().price();
    }

    private long account()
    {
        return 1 + rnd.nextInt(ACCOUNTS);
    }

    private Command order(final long t, final boolean buy, final long account, final long price, final int gpus, final TimeInForce tif)
    {
        final Command c = b.command(buy ? CommandType.BID : CommandType.ASK, t);
        c.accountId = account;
        c.orderId = nextOrderId++;
        c.price = Math.max(1, price);
        c.gpus = gpus;
        c.tif = tif;
        if (buy)
        {
            c.marketId = MARKET;
            c.hasMarket = true;
        }
        else
        {
            c.machineId = account;
        }
        b.apply(c);
        return c;
    }

    private void gtc(final long t)
    {
        final boolean buy = rnd.nextBoolean();
        final int away = (int)Math.abs(rnd.nextDouble() * rnd.nextDouble() * 600);
        long price = buy ? center - 1 - away : center + 1 + away;
        if (rnd.nextInt(100) < 4)
        {
            price = buy ? bestAsk() + rnd.nextInt(3) : bestBid() - rnd.nextInt(3);
        }
        final long account = account();
        final Command c = order(t, buy, account, price, 1 + rnd.nextInt(32), TimeInForce.GTC);
        if (b.engine.account(account).openOrders.get(c.orderId) != null)
        {
            if (openCount == openIds.length)
            {
                openIds = java.util.Arrays.copyOf(openIds, openCount * 2);
                openAccounts = java.util.Arrays.copyOf(openAccounts, openCount * 2);
            }
            openIds[openCount] = c.orderId;
            openAccounts[openCount] = account;
            openCount++;
        }
    }

    private void ioc(final long t)
    {
        final boolean buy = rnd.nextBoolean();
        final long price = buy ? bestAsk() + rnd.nextInt(20) : bestBid() - rnd.nextInt(20);
        order(t, buy, account(), price, 1 + rnd.nextInt(16), TimeInForce.IOC);
    }

    /** A random open order (dropping filled ones from the list as they turn up), or -1. */
    private int pick()
    {
        while (openCount > 0)
        {
            final int i = rnd.nextInt(openCount);
            final Order o = b.engine.account(openAccounts[i]).openOrders.get(openIds[i]);
            if (o != null)
            {
                return i;
            }
            drop(i);
        }
        return -1;
    }

    private void drop(final int i)
    {
        openCount--;
        openIds[i] = openIds[openCount];
        openAccounts[i] = openAccounts[openCount];
    }

    private void cancel(final long t)
    {
        final int i = pick();
        if (i >= 0)
        {
            b.cancel(t, openAccounts[i], openIds[i]);
            drop(i);
        }
    }

    private void move(final long t)
    {
        final int i = pick();
        if (i < 0)
        {
            return;
        }
        final Order o = b.engine.account(openAccounts[i]).openOrders.get(openIds[i]);
        if (o.openGpus == 0)
        {
            // a fully leased ask: its owner withdraws it
            b.cancel(t, openAccounts[i], openIds[i]);
            drop(i);
            return;
        }
        int delta = rnd.nextInt(21) - 10;
        if (delta == 0)
        {
            delta = 1;
        }
        long price = o.price + delta;
        final boolean crosses = o.bid ? price >= bestAsk() : price <= bestBid();
        if (crosses && rnd.nextInt(100) < 90)
        {
            price = o.price - delta;
        }
        final Command c = b.command(CommandType.REPLACE, t);
        c.accountId = openAccounts[i];
        c.orderId = openIds[i];
        c.price = Math.max(1, price);
        b.apply(c);
    }
}
