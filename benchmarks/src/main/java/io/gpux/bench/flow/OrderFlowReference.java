package io.gpux.bench.flow;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * A naive price-time order book with exchange-core's semantics (an order filled completely is gone, trades at
 * the resting order's price, a move loses priority and may trade, a reduce keeps priority): the yardstick of
 * an {@link OrderFlow}. Generators ask it what is resting and whether an order would trade with its own user;
 * {@link #replay} checks a whole flow and counts what it trades. Slow and simple on purpose; never benchmarked.
 */
public final class OrderFlowReference
{
    /** A resting order. */
    public static final class Resting
    {
        public final long id;
        public final int uid;
        public final boolean bid;
        public long price;
        public int open;

        Resting(final long id, final int uid, final boolean bid, final long price, final int open)
        {
            this.id = id;
            this.uid = uid;
            this.bid = bid;
            this.price = price;
            this.open = open;
        }
    }

    private final TreeMap<Long, ArrayDeque<Resting>> bids = new TreeMap<>(Collections.reverseOrder());
    private final TreeMap<Long, ArrayDeque<Resting>> asks = new TreeMap<>();
    private final Map<Long, Resting> byId = new HashMap<>();
    private long trades;
    private long volume;

    /**
     * Replays a flow and checks that it is well formed.
     *
     * @throws IllegalStateException on a reference to an order not resting, a duplicate id, a self-trade, or a
     *                               book not empty at the end.
     */
    public static OrderFlowReference replay(final OrderFlow flow)
    {
        final OrderFlowReference ref = new OrderFlowReference();
        for (int i = 0; i < flow.size(); i++)
        {
            final byte t = flow.type[i];
            final int uid = flow.uid[i];
            final long id = flow.orderId[i];
            final String where = flow.name + ": command " + i + ": ";
            if (OrderFlow.isPlace(t))
            {
                if (ref.byId.containsKey(id))
                {
                    throw new IllegalStateException(where + "duplicate order id " + id);
                }
                if (ref.wouldTradeWithItself(uid, OrderFlow.isBid(t), flow.price[i], flow.size[i]))
                {
                    throw new IllegalStateException(where + "order " + id + " would trade with its own user " + uid);
                }
                ref.place(uid, OrderFlow.isBid(t), OrderFlow.isIoc(t), id, flow.price[i], flow.size[i]);
                continue;
            }
            final Resting o = ref.byId.get(id);
            if (o == null || o.uid != uid)
            {
                throw new IllegalStateException(where + "order " + id + " of user " + uid + " is not resting");
            }
            switch (t)
            {
                case OrderFlow.CANCEL -> ref.cancel(id);
                case OrderFlow.MOVE ->
                {
                    if (flow.price[i] == o.price)
                    {
                        throw new IllegalStateException(where + "a move to the same price");
                    }
                    if (ref.moveWouldTradeWithItself(o, flow.price[i]))
                    {
                        throw new IllegalStateException(where + "move of " + id + " would trade with its own user");
                    }
                    ref.move(id, flow.price[i]);
                }
                case OrderFlow.REDUCE -> ref.reduce(id, flow.size[i]);
                default -> throw new IllegalStateException(where + "unknown type " + t);
            }
        }
        if (!ref.byId.isEmpty())
        {
            throw new IllegalStateException(flow.name + ": " + ref.byId.size() + " orders resting at the end of the pass");
        }
        return ref;
    }

    public long trades()
    {
        return trades;
    }

    public long volume()
    {
        return volume;
    }

    public Resting get(final long id)
    {
        return byId.get(id);
    }

    public int restingCount()
    {
        return byId.size();
    }

    public Iterable<Resting> resting()
    {
        return byId.values();
    }

    public int levels(final boolean bid)
    {
        return (bid ? bids : asks).size();
    }

    /** Best bid or ask price, or {@code dflt} when that side is empty. */
    public long best(final boolean bid, final long dflt)
    {
        final TreeMap<Long, ArrayDeque<Resting>> side = bid ? bids : asks;
        return side.isEmpty() ? dflt : side.firstKey();
    }

    /** Places an order: trades against the other side, then the rest rests (GTC) or is dropped (IOC). */
    public int place(final int uid, final boolean bid, final boolean ioc, final long id, final long price, final int size)
    {
        final int left = match(bid, price, size);
        if (left > 0 && !ioc)
        {
            rest(new Resting(id, uid, bid, price, left));
        }
        return size - left;
    }

    public void cancel(final long id)
    {
        unrest(byId.get(id));
    }

    /** A resting order to a new price, at the back of its queue; it trades first if it crosses. */
    public void move(final long id, final long newPrice)
    {
        final Resting o = byId.get(id);
        unrest(o);
        o.price = newPrice;
        o.open = match(o.bid, newPrice, o.open);
        if (o.open > 0)
        {
            rest(o);
        }
    }

    /** Smaller by {@code by}, keeping its place; removed if nothing is left. */
    public void reduce(final long id, final int by)
    {
        final Resting o = byId.get(id);
        if (by >= o.open)
        {
            unrest(o);
        }
        else
        {
            o.open -= by;
        }
    }

    /** Whether an order of this user at this price and size would meet one of the user's own resting orders. */
    public boolean wouldTradeWithItself(final int uid, final boolean bid, final long price, final int size)
    {
        int left = size;
        for (final Map.Entry<Long, ArrayDeque<Resting>> level : (bid ? asks : bids).entrySet())
        {
            if (bid ? level.getKey() > price : level.getKey() < price)
            {
                return false;
            }
            for (final Resting o : level.getValue())
            {
                if (o.uid == uid)
                {
                    return true;
                }
                left -= o.open;
                if (left <= 0)
                {
                    return false;
                }
            }
        }
        return false;
    }

    public boolean moveWouldTradeWithItself(final Resting o, final long newPrice)
    {
        return wouldTradeWithItself(o.uid, o.bid, newPrice, o.open);
    }

    private int match(final boolean bid, final long price, final int size)
    {
        int left = size;
        final TreeMap<Long, ArrayDeque<Resting>> other = bid ? asks : bids;
        final Iterator<Map.Entry<Long, ArrayDeque<Resting>>> levels = other.entrySet().iterator();
        while (left > 0 && levels.hasNext())
        {
            final Map.Entry<Long, ArrayDeque<Resting>> level = levels.next();
            if (bid ? level.getKey() > price : level.getKey() < price)
            {
                break;
            }
            final ArrayDeque<Resting> queue = level.getValue();
            while (left > 0 && !queue.isEmpty())
            {
                final Resting maker = queue.peekFirst();
                final int qty = Math.min(left, maker.open);
                maker.open -= qty;
                left -= qty;
                trades++;
                volume += qty;
                if (maker.open == 0)
                {
                    queue.pollFirst();
                    byId.remove(maker.id);
                }
            }
            if (queue.isEmpty())
            {
                levels.remove();
            }
        }
        return left;
    }

    private void rest(final Resting o)
    {
        (o.bid ? bids : asks).computeIfAbsent(o.price, p -> new ArrayDeque<>()).addLast(o);
        byId.put(o.id, o);
    }

    private void unrest(final Resting o)
    {
        final TreeMap<Long, ArrayDeque<Resting>> side = o.bid ? bids : asks;
        final ArrayDeque<Resting> queue = side.get(o.price);
        queue.remove(o);
        if (queue.isEmpty())
        {
            side.remove(o.price);
        }
        byId.remove(o.id);
    }
}
