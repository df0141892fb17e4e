package io.gpux.bench.flow;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * A seeded synthetic order flow after exchange-core's own benchmark generator (one symbol, ~1,000 resting
 * orders, 1,000 users; 9 % GTC orders, 3 % IOC orders, 6 % cancels, 82 % moves), with plain-book semantics:
 * unlike {@code SyntheticWorkload} (gpux's own synthetic, whose leases hand GPUs back to the asks) an order
 * filled here is gone. Prices random-walk around a centre; 4 % of GTC orders and about 10 % of moves cross
 * the spread and trade; an order that would meet its own user's order is given to another user or kept from
 * crossing. The book is kept between 90 % and 110 % of its target size (GTC orders become cancels above it).
 * The pass ends by cancelling every order still resting.
 */
public final class SyntheticOrderFlow
{
    public static final long SEED = 20_240_601L;
    public static final int COMMANDS = 250_000;
    public static final int USERS = 1_000;
    public static final int TARGET_ORDERS = 1_000;
    static final long CENTER = 100_000;
    static final long T0 = 1_000;

    private final SplittableRandom rnd;
    private final OrderFlowReference ref = new OrderFlowReference();
    private final OrderFlow.Builder out;
    private long[] open = new long[4096];
    private int openCount;
    private long nextOrderId = 1;
    private long center = CENTER;
    private long t = T0;

    private SyntheticOrderFlow(final long seed, final String name)
    {
        rnd = new SplittableRandom(seed);
        out = new OrderFlow.Builder(name, USERS);
    }

    /** The default synthetic flow (fixed seed, {@value #COMMANDS} commands). */
    public static OrderFlow generate()
    {
        return generate(SEED, COMMANDS);
    }

    public static OrderFlow generate(final long seed, final int commands)
    {
        return new SyntheticOrderFlow(seed, "synthetic").run(commands);
    }

    private OrderFlow run(final int commands)
    {
        long step = 0;
        while (out.size() < commands)
        {
            step++;
            t = T0 + step;
            if (step % 1000 == 0)
            {
                center += rnd.nextInt(7) - 3;
            }
            if (ref.restingCount() < TARGET_ORDERS * 9 / 10)
            {
                gtc();
                continue;
            }
            final int r = rnd.nextInt(100);
            if (r < 9 && ref.restingCount() > TARGET_ORDERS * 11 / 10)
            {
                // keep the book near its target size, as exchange-core's generator does
                cancel();
            }
            else if (r < 9)
            {
                gtc();
            }
            else if (r < 12)
            {
                ioc();
            }
            else if (r < 18)
            {
                cancel();
            }
            else
            {
                move();
            }
        }
        final String book = String.format("%d resting orders on %d bid + %d ask levels before the end-of-pass cancels",
            ref.restingCount(), ref.levels(true), ref.levels(false));
        while (openCount > 0)
        {
            final long id = open[--openCount];
            final OrderFlowReference.Resting o = ref.get(id);
            if (o != null)
            {
                out.cancel(t, o.uid, id);
                ref.cancel(id);
            }
        }
        return out.build(t - T0 + 1_000, "seed " + SEED + ", after exchange-core's generator; " + book);
    }

    private int user()
    {
        return 1 + rnd.nextInt(USERS);
    }

    private long bestAsk()
    {
        return ref.best(false, center + 1);
    }

    private long bestBid()
    {
        return ref.best(true, center - 1);
    }

    /** A user whose own orders the order would not meet (a few tries), or 0. */
    private int userFor(final boolean bid, final long price, final int size)
    {
        for (int tries = 0; tries < 8; tries++)
        {
            final int u = user();
            if (!ref.wouldTradeWithItself(u, bid, price, size))
            {
                return u;
            }
        }
        return 0;
    }

    private void gtc()
    {
        final boolean bid = rnd.nextBoolean();
        final int away = (int)Math.abs(rnd.nextDouble() * rnd.nextDouble() * 600);
        long price = bid ? center - 1 - away : center + 1 + away;
        if (rnd.nextInt(100) < 4)
        {
            price = bid ? bestAsk() + rnd.nextInt(3) : bestBid() - rnd.nextInt(3);
        }
        price = Math.max(1, price);
        final int size = 1 + rnd.nextInt(32);
        final int u = userFor(bid, price, size);
        if (u == 0)
        {
            return;
        }
        final long id = nextOrderId++;
        out.place(t, u, bid, false, id, price, size);
        ref.place(u, bid, false, id, price, size);
        if (ref.get(id) != null)
        {
            if (openCount == open.length)
            {
                open = Arrays.copyOf(open, openCount * 2);
            }
            open[openCount++] = id;
        }
    }

    private void ioc()
    {
        final boolean bid = rnd.nextBoolean();
        final long price = Math.max(1, bid ? bestAsk() + rnd.nextInt(20) : bestBid() - rnd.nextInt(20));
        final int size = 1 + rnd.nextInt(16);
        final int u = userFor(bid, price, size);
        if (u == 0)
        {
            return;
        }
        final long id = nextOrderId++;
        out.place(t, u, bid, true, id, price, size);
        ref.place(u, bid, true, id, price, size);
    }

    /** A random resting order (dropping filled ones from the list as they turn up), or null. */
    private OrderFlowReference.Resting pick()
    {
        while (openCount > 0)
        {
            final int i = rnd.nextInt(openCount);
            final OrderFlowReference.Resting o = ref.get(open[i]);
            if (o != null)
            {
                return o;
            }
            open[i] = open[--openCount];
        }
        return null;
    }

    private void cancel()
    {
        final OrderFlowReference.Resting o = pick();
        if (o != null)
        {
            out.cancel(t, o.uid, o.id);
            ref.cancel(o.id);
        }
    }

    private void move()
    {
        final OrderFlowReference.Resting o = pick();
        if (o == null)
        {
            return;
        }
        int delta = rnd.nextInt(21) - 10;
        if (delta == 0)
        {
            delta = 1;
        }
        long price = o.price + delta;
        final boolean crosses = o.bid ? price >= bestAsk() : price <= bestBid();
        if (crosses && (rnd.nextInt(100) < 90 || ref.moveWouldTradeWithItself(o, price)))
        {
            price = o.price - delta;
        }
        price = Math.max(1, price);
        if (price == o.price || ref.moveWouldTradeWithItself(o, price))
        {
            return;
        }
        out.move(t, o.uid, o.id, price);
        ref.move(o.id, price);
    }
}
