package io.gpux.engine.data;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The resting orders of a {@link LobsterReplay} as gpux holds them: placed, reduced and cancelled through
 * gpux, and followed through gpux's own fills, so the replay always knows which orders gpux has at a price
 * and in which time priority.
 *
 * <p>Accounts: {@code sellers} (owner of one huge machine) rests every sell order, {@code buyers} every buy
 * order; {@code taker} (a renter) and {@code taker-seller} (owner of its own machine) send the IOC orders that
 * execute them, so self-trade prevention never gets in the way.
 */
final class LobsterOrders
{
    /** A resting gpux order. */
    static final class Ord
    {
        final String name;
        final boolean bid;
        final long price;
        /** Stands for unknown Nasdaq orders (seeded at the open, or added by a resync). */
        final boolean synthetic;
        long remaining;
        boolean open = true;

        Ord(final String name, final boolean bid, final long price, final long remaining, final boolean synthetic)
        {
            this.name = name;
            this.bid = bid;
            this.price = price;
            this.remaining = remaining;
            this.synthetic = synthetic;
        }
    }

    /** What an IOC took from one resting order, as its {@code FILL} named it ({@code counter}). */
    record Fill(Ord resting, long gpus)
    {
    }

    private final String market;
    private final GpuxSession gpux = new GpuxSession();
    private final Map<String, Ord> orders = new HashMap<>();
    /** Per side, price to the open orders at that price in gpux's time priority. */
    private final TreeMap<Long, List<Ord>> bids = new TreeMap<>();
    private final TreeMap<Long, List<Ord>> asks = new TreeMap<>();
    private final StringBuilder events = new StringBuilder(1 << 12);
    private final StringBuilder cmd = new StringBuilder(128);
    private int takerSeq;

    LobsterOrders(final String market)
    {
        this.market = market;
        gpux.market(market);
        gpux.account("sellers", "OWNER");
        gpux.account("buyers", "RENTER");
        gpux.account("taker", "RENTER");
        gpux.account("taker-seller", "OWNER");
        gpux.machine("sellers", market);
        gpux.machine("taker-seller", market);
    }

    GpuxSession gpux()
    {
        return gpux;
    }

    /** @return the events printed by the last command. */
    String lastEvents()
    {
        return events.toString();
    }

    /** @return the order placed under this name, open or closed, or null. */
    Ord get(final String name)
    {
        return orders.get(name);
    }

    /** @return a copy of the open orders at a price, in gpux's time priority (empty when none). */
    List<Ord> level(final boolean bid, final long price)
    {
        final List<Ord> level = side(bid).get(price);
        return level == null ? List.of() : new ArrayList<>(level);
    }

    /** @return the GPUs open at a price. */
    long total(final boolean bid, final long price)
    {
        long total = 0;
        for (final Ord o : level(bid, price))
        {
            total += o.remaining;
        }
        return total;
    }

    /** Places a GTC {@code postOnly} order. @return whether gpux accepted it. */
    boolean place(final String name, final boolean bid, final long price, final long size, final boolean synthetic)
    {
        cmd.setLength(0);
        if (bid)
        {
            cmd.append("BID id=").append(name).append(" account=buyers market=").append(market);
        }
        else
        {
            cmd.append("ASK id=").append(name).append(" account=sellers machine=m-sellers-").append(market);
        }
        cmd.append(" gpus=").append(size).append(" price=").append(GpuxSession.price(price)).append(" postOnly=true");
        gpux.runInto(cmd.toString(), events);
        if (!firstEvent().equals("ACCEPTED"))
        {
            return false;
        }
        final Ord o = new Ord(name, bid, price, size, synthetic);
        orders.put(name, o);
        side(bid).computeIfAbsent(price, p -> new ArrayList<>()).add(o);
        return true;
    }

    /** {@code REPLACE gpus=remaining}: a smaller open quantity keeps the order's time priority. */
    void reduce(final Ord o, final long remaining)
    {
        gpux.runInto("REPLACE id=" + o.name + " account=" + account(o) + " gpus=" + remaining, events);
        if (!firstEvent().equals("ACCEPTED"))
        {
            throw new AssertionError("REPLACE of " + o.name + ": " + events);
        }
        o.remaining = remaining;
    }

    void close(final Ord o)
    {
        gpux.runInto("CANCEL id=" + o.name + " account=" + account(o), events);
        if (!firstEvent().equals("CANCELLED"))
        {
            throw new AssertionError("CANCEL of " + o.name + ": " + events);
        }
        remove(o);
    }

    /** Takes up to {@code need} GPUs off an order (reduce, or cancel when nothing would be left). @return how many. */
    long take(final Ord o, final long need)
    {
        if (o.remaining <= need)
        {
            final long taken = o.remaining;
            close(o);
            return taken;
        }
        reduce(o, o.remaining - need);
        return need;
    }

    /**
     * Executes resting orders of one side with an IOC from the other at the given price and size, and applies
     * its fills. A resting ask that is fully executed is cancelled (gpux keeps a fully leased GTC ask open,
     * rulebook 13.9; Nasdaq's order is gone); its leases are never released, which would give the GPUs back
     * to it (rulebook section 5). @return the IOC's fills, in the order gpux printed them.
     */
    List<Fill> execute(final boolean restingBid, final long price, final long size)
    {
        final String id = "x" + ++takerSeq;
        cmd.setLength(0);
        if (restingBid)
        {
            cmd.append("ASK id=").append(id).append(" account=taker-seller machine=m-taker-seller-").append(market);
        }
        else
        {
            cmd.append("BID id=").append(id).append(" account=taker market=").append(market);
        }
        cmd.append(" gpus=").append(size).append(" price=").append(GpuxSession.price(price)).append(" tif=IOC");
        gpux.runInto(cmd.toString(), events);
        final List<Fill> fills = new ArrayList<>(2);
        for (final String e : GpuxSession.splitLines(events))
        {
            if (GpuxSession.verb(e).equals("FILL") && GpuxSession.value(e, "order").equals(id))
            {
                final Ord resting = orders.get(GpuxSession.value(e, "counter"));
                if (resting == null)
                {
                    throw new AssertionError("IOC filled against an order the replay never placed: " + e);
                }
                final long gpus = Long.parseLong(GpuxSession.value(e, "gpus"));
                resting.remaining -= gpus;
                fills.add(new Fill(resting, gpus));
            }
        }
        final String printed = events.toString();
        for (final Fill f : fills)
        {
            if (f.resting().remaining == 0 && f.resting().open)
            {
                if (f.resting().bid)
                {
                    remove(f.resting()); // gpux closes a fully filled bid itself
                }
                else
                {
                    close(f.resting());
                }
            }
        }
        events.setLength(0);
        events.append(printed);
        return fills;
    }

    private void remove(final Ord o)
    {
        o.open = false;
        o.remaining = 0;
        final TreeMap<Long, List<Ord>> side = side(o.bid);
        final List<Ord> level = side.get(o.price);
        level.remove(o);
        if (level.isEmpty())
        {
            side.remove(o.price);
        }
    }

    private static String account(final Ord o)
    {
        return o.bid ? "buyers" : "sellers";
    }

    private TreeMap<Long, List<Ord>> side(final boolean bid)
    {
        return bid ? bids : asks;
    }

    private String firstEvent()
    {
        if (events.length() == 0)
        {
            return "";
        }
        final int nl = events.indexOf("\n");
        return GpuxSession.verb(nl < 0 ? events.toString() : events.substring(0, nl));
    }
}
