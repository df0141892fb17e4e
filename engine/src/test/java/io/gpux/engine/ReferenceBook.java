package io.gpux.engine;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An obviously-correct model of one market's plain order flow, for differential testing: lists and
 * linear scans, no indexes. It reads the same scenario lines as the engine (ASK, BID, CANCEL, REPLACE,
 * MASS_CANCEL, RELEASE, BOOK, TICK) and returns the lines the engine must print.
 *
 * <p>Scope: preemption off, machines that never go offline and always have spare GPUs, renters whose
 * funds never run out, no constraints (region, reliability, gang, maximum duration), time kept within
 * the first prepay period (one settlement per lease, at its release). The rules modelled: price-time
 * priority; the trade price is the price of the order with the older time priority; self-trade
 * prevention (a bid never matches an ask of its own account); GTC/IOC/FOK and postOnly; a replace keeps
 * its priority only when the price is unchanged and the open quantity does not grow; every match
 * creates a lease, which starts at once; a released lease's GPUs go back to the ask they came from, if
 * it is still open, with its old priority, and are matched at once as if the ask had just arrived.
 */
final class ReferenceBook
{
    static final int MAX_GPUS = 1024;
    static final int FEE_BPS = 250;

    static final class Ord
    {
        String id;
        String account;
        String machine;
        boolean bid;
        long price;
        int open;
        long priority;
        long acceptSeq;
        String tif;
        boolean postOnly;
        boolean isOpen = true;
    }

    static final class RLease
    {
        long id;
        String renter;
        String owner;
        String machine;
        Ord ask;
        int gpus;
        long price;
        long start;
    }

    private final String market;
    /** machine -> owner account. */
    private final Map<String, String> machineOwner;
    /** account -> roles: "RENTER", "OWNER" or "MARKET_MAKER". */
    private final Map<String, String> roles;

    /** Open orders, in acceptance order. */
    final List<Ord> open = new ArrayList<>();
    /** Live leases by id. */
    final TreeMap<Long, RLease> leases = new TreeMap<>();
    private long seq;
    private long nextLease = 1;
    private long now;
    private List<String> out;

    ReferenceBook(final String market, final Map<String, String> machineOwner, final Map<String, String> roles)
    {
        this.market = market;
        this.machineOwner = machineOwner;
        this.roles = roles;
    }

    /** Applies one scenario line; returns the lines the engine must print for it. */
    List<String> apply(final String line)
    {
        out = new ArrayList<>();
        final String[] tokens = line.trim().split("\\s+");
        now = Long.parseLong(tokens[0]);
        final String verb = tokens[1];
        final Map<String, String> kv = new HashMap<>();
        for (int i = 2; i < tokens.length; i++)
        {
            final int eq = tokens[i].indexOf('=');
            kv.put(tokens[i].substring(0, eq), tokens[i].substring(eq + 1));
        }
        switch (verb)
        {
            case "ASK" -> ask(kv);
            case "BID" -> bid(kv);
            case "CANCEL" -> cancel(kv);
            case "REPLACE" -> replace(kv);
            case "MASS_CANCEL" -> massCancel(kv);
            case "RELEASE" -> release(kv);
            case "BOOK" -> book(kv);
            case "TICK" ->
            {
            }
            default -> throw new IllegalArgumentException("not modelled: " + line);
        }
        return out;
    }

    // -------------------------------------------------------------------------------------- commands

    private void ask(final Map<String, String> kv)
    {
        final String id = kv.get("id");
        final String account = kv.get("account");
        final String machine = kv.get("machine");
        final int gpus = Integer.parseInt(kv.get("gpus"));
        final long price = ticks(kv.get("price"));
        final String tif = kv.getOrDefault("tif", "GTC");
        final boolean postOnly = "true".equals(kv.get("postOnly"));
        final String role = roles.get(account);
        String reason = null;
        if (!"OWNER".equals(role) && !"MARKET_MAKER".equals(role))
        {
            reason = "NOT_AUTHORIZED";
        }
        else if (!machineOwner.containsKey(machine))
        {
            reason = "UNKNOWN_MACHINE";
        }
        else if (!machineOwner.get(machine).equals(account))
        {
            reason = "NOT_OWNER";
        }
        else if (find(account, id) != null)
        {
            reason = "DUPLICATE_ORDER_ID";
        }
        else if (price <= 0)
        {
            reason = "INVALID_PRICE";
        }
        else if (gpus < 1 || gpus > MAX_GPUS)
        {
            reason = "INVALID_QUANTITY";
        }
        else if (postOnly && bidsFor(account, price) > 0)
        {
            reason = "POST_ONLY_WOULD_MATCH";
        }
        if (reason != null)
        {
            emit("REJECTED order=" + id + " account=" + account + " reason=" + reason);
            return;
        }
        final Ord o = new Ord();
        o.id = id;
        o.account = account;
        o.machine = machine;
        o.bid = false;
        o.price = price;
        o.open = gpus;
        o.priority = ++seq;
        o.acceptSeq = o.priority;
        o.tif = tif;
        o.postOnly = postOnly;
        open.add(o);
        emit("ACCEPTED order=" + id + " account=" + account);
        if (tif.equals("FOK") && bidsFor(account, price) < gpus)
        {
            emit("CANCELLED order=" + id + " account=" + account + " reason=FOK remaining=" + gpus);
            close(o);
            return;
        }
        matchIncomingAsk(o);
        if (!tif.equals("GTC"))
        {
            if (o.open > 0)
            {
                emit("CANCELLED order=" + id + " account=" + account + " reason=IOC remaining=" + o.open);
            }
            close(o);
        }
    }

    private void bid(final Map<String, String> kv)
    {
        final String id = kv.get("id");
        final String account = kv.get("account");
        final int gpus = Integer.parseInt(kv.get("gpus"));
        final long price = ticks(kv.get("price"));
        final String tif = kv.getOrDefault("tif", "GTC");
        final boolean postOnly = "true".equals(kv.get("postOnly"));
        final String role = roles.get(account);
        String reason = null;
        if (!"RENTER".equals(role) && !"MARKET_MAKER".equals(role))
        {
            reason = "NOT_AUTHORIZED";
        }
        else if (!market.equals(kv.get("market")))
        {
            reason = "UNKNOWN_MARKET";
        }
        else if (find(account, id) != null)
        {
            reason = "DUPLICATE_ORDER_ID";
        }
        else if (price <= 0)
        {
            reason = "INVALID_PRICE";
        }
        else if (gpus < 1 || gpus > MAX_GPUS)
        {
            reason = "INVALID_QUANTITY";
        }
        else if (postOnly && asksFor(account, price) > 0)
        {
            reason = "POST_ONLY_WOULD_MATCH";
        }
        if (reason != null)
        {
            emit("REJECTED order=" + id + " account=" + account + " reason=" + reason);
            return;
        }
        final Ord o = new Ord();
        o.id = id;
        o.account = account;
        o.bid = true;
        o.price = price;
        o.open = gpus;
        o.priority = ++seq;
        o.acceptSeq = o.priority;
        o.tif = tif;
        o.postOnly = postOnly;
        open.add(o);
        emit("ACCEPTED order=" + id + " account=" + account);
        if (tif.equals("FOK") && asksFor(account, price) < gpus)
        {
            emit("CANCELLED order=" + id + " account=" + account + " reason=FOK remaining=" + gpus);
            close(o);
            return;
        }
        matchIncomingBid(o);
        if (o.isOpen && !tif.equals("GTC"))
        {
            emit("CANCELLED order=" + id + " account=" + account + " reason=IOC remaining=" + o.open);
            close(o);
        }
    }

    private void cancel(final Map<String, String> kv)
    {
        final String id = kv.get("id");
        final String account = kv.get("account");
        final Ord o = find(account, id);
        if (o == null)
        {
            emit("REJECTED order=" + id + " account=" + account + " reason=UNKNOWN_ORDER command=CANCEL");
            return;
        }
        emit("CANCELLED order=" + id + " account=" + account + " reason=USER remaining=" + o.open);
        close(o);
    }

    private void replace(final Map<String, String> kv)
    {
        final String id = kv.get("id");
        final String account = kv.get("account");
        final Ord o = find(account, id);
        String reason = null;
        final long price = kv.containsKey("price") ? ticks(kv.get("price")) : o == null ? 0 : o.price;
        final int gpus = kv.containsKey("gpus") ? Integer.parseInt(kv.get("gpus")) : o == null ? 0 : o.open;
        if (o == null)
        {
            reason = "UNKNOWN_ORDER";
        }
        else if (price <= 0)
        {
            reason = "INVALID_PRICE";
        }
        else if (kv.containsKey("gpus") && (gpus < 1 || gpus > MAX_GPUS))
        {
            reason = "INVALID_QUANTITY";
        }
        else if (o.postOnly && gpus > 0 && (o.bid ? asksFor(account, price) : bidsFor(account, price)) > 0)
        {
            // 13.12: it would fill at least one GPU (a fully leased ask replaced without gpus fills none)
            reason = "POST_ONLY_WOULD_MATCH";
        }
        if (reason != null)
        {
            emit("REJECTED order=" + id + " account=" + account + " reason=" + reason + " command=REPLACE");
            return;
        }
        final boolean keepsPriority = price == o.price && gpus <= o.open;
        o.price = price;
        o.open = gpus;
        if (!keepsPriority)
        {
            o.priority = ++seq;
        }
        emit("ACCEPTED order=" + id + " account=" + account);
        if (o.bid)
        {
            matchIncomingBid(o);
        }
        else
        {
            matchIncomingAsk(o);
        }
    }

    private void massCancel(final Map<String, String> kv)
    {
        final String account = kv.get("account");
        for (final Ord o : new ArrayList<>(open))
        {
            if (o.account.equals(account))
            {
                emit("CANCELLED order=" + o.id + " account=" + account + " reason=MASS_CANCEL remaining=" + o.open);
                close(o);
            }
        }
    }

    private void release(final Map<String, String> kv)
    {
        final String name = kv.get("lease");
        final String account = kv.get("account");
        final RLease l = name.startsWith("L") ? leases.get(Long.parseLong(name.substring(1))) : null;
        if (l == null)
        {
            emit("REJECTED lease=" + name + " account=" + account + " reason=UNKNOWN_LEASE command=RELEASE");
            return;
        }
        if (!l.renter.equals(account))
        {
            emit("REJECTED lease=" + name + " account=" + account + " reason=NOT_AUTHORIZED command=RELEASE");
            return;
        }
        final long ms = now - l.start;
        final long charge = cost(l.gpus, l.price, ms);
        final long fee = charge * FEE_BPS / 10_000;
        if (ms >= 1)
        {
            emit("SETTLED lease=L" + l.id + " charge=" + money(charge) + " fee=" + money(fee) + " period=1 ms=" + ms);
        }
        emit("LEASE_ENDED lease=L" + l.id + " reason=RELEASED cost=" + money(charge) + " fee=" + money(fee));
        leases.remove(l.id);
        if (l.ask.isOpen)
        {
            l.ask.open += l.gpus;
            matchIncomingAsk(l.ask);
        }
    }

    private void book(final Map<String, String> kv)
    {
        final int depth = kv.containsKey("depth") ? Integer.parseInt(kv.get("depth")) : 10;
        final TreeMap<Long, Long> bids = new TreeMap<>((a, b) -> Long.compare(b, a));
        final TreeMap<Long, Long> asks = new TreeMap<>();
        for (final Ord o : open)
        {
            if (o.open > 0)
            {
                (o.bid ? bids : asks).merge(o.price, (long)o.open, Long::sum);
            }
        }
        emit("BOOK market=" + market + " bids=" + levels(bids, depth) + " asks=" + levels(asks, depth));
    }

    // -------------------------------------------------------------------------------------- matching

    /** Matches an incoming bid against the asks, best (lowest price, then oldest) eligible first. */
    private void matchIncomingBid(final Ord bid)
    {
        while (bid.open > 0)
        {
            Ord best = null;
            for (final Ord a : open)
            {
                if (!a.bid && a.open > 0 && a.price <= bid.price && !a.account.equals(bid.account) &&
                    (best == null || a.price < best.price || (a.price == best.price && a.priority < best.priority)))
                {
                    best = a;
                }
            }
            if (best == null)
            {
                return;
            }
            trade(bid, best, true);
        }
    }

    /** Matches an incoming ask against the bids, best (highest price, then oldest) eligible first. */
    private void matchIncomingAsk(final Ord ask)
    {
        while (ask.open > 0)
        {
            Ord best = null;
            for (final Ord b : open)
            {
                if (b.bid && b.open > 0 && b.price >= ask.price && !b.account.equals(ask.account) &&
                    (best == null || b.price > best.price || (b.price == best.price && b.priority < best.priority)))
                {
                    best = b;
                }
            }
            if (best == null)
            {
                return;
            }
            trade(best, ask, false);
        }
    }

    private void trade(final Ord bid, final Ord ask, final boolean bidIncoming)
    {
        final int gpus = Math.min(bid.open, ask.open);
        final long price = ask.priority < bid.priority ? ask.price : bid.price;
        final RLease l = new RLease();
        l.id = nextLease++;
        l.renter = bid.account;
        l.owner = ask.account;
        l.machine = ask.machine;
        l.ask = ask;
        l.gpus = gpus;
        l.price = price;
        l.start = now;
        leases.put(l.id, l);
        bid.open -= gpus;
        ask.open -= gpus;
        final String bidFill = "FILL order=" + bid.id + " account=" + bid.account + " counter=" + ask.id + " lease=L" +
            l.id + " gpus=" + gpus + " price=" + price(price);
        final String askFill = "FILL order=" + ask.id + " account=" + ask.account + " counter=" + bid.id + " lease=L" +
            l.id + " gpus=" + gpus + " price=" + price(price);
        emit(bidIncoming ? bidFill : askFill);
        emit(bidIncoming ? askFill : bidFill);
        emit("TRADE market=" + market + " gpus=" + gpus + " price=" + price(price));
        emit("LEASE_STARTED lease=L" + l.id + " renter=" + l.renter + " owner=" + l.owner + " machine=" + l.machine +
            " market=" + market + " gpus=" + gpus + " price=" + price(price));
        if (bid.open == 0)
        {
            close(bid);
        }
    }

    // --------------------------------------------------------------------------------------- helpers

    /** GPUs of open asks that a bid of this account at this price could take. */
    private long asksFor(final String account, final long price)
    {
        long n = 0;
        for (final Ord a : open)
        {
            if (!a.bid && a.price <= price && !a.account.equals(account))
            {
                n += a.open;
            }
        }
        return n;
    }

    /** GPUs of open bids that an ask of this account at this price could fill. */
    private long bidsFor(final String account, final long price)
    {
        long n = 0;
        for (final Ord b : open)
        {
            if (b.bid && b.price >= price && !b.account.equals(account))
            {
                n += b.open;
            }
        }
        return n;
    }

    Ord find(final String account, final String id)
    {
        for (final Ord o : open)
        {
            if (o.account.equals(account) && o.id.equals(id))
            {
                return o;
            }
        }
        return null;
    }

    private void close(final Ord o)
    {
        o.isOpen = false;
        open.remove(o);
    }

    private void emit(final String body)
    {
        out.add(now + " " + body);
    }

    private static String levels(final TreeMap<Long, Long> side, final int depth)
    {
        if (side.isEmpty())
        {
            return "-";
        }
        final StringBuilder sb = new StringBuilder();
        int n = 0;
        for (final Map.Entry<Long, Long> e : side.entrySet())
        {
            if (n++ == depth)
            {
                break;
            }
            if (sb.length() > 0)
            {
                sb.append(',');
            }
            sb.append(price(e.getKey())).append(':').append(e.getValue());
        }
        return sb.toString();
    }

    static long ticks(final String price)
    {
        return new java.math.BigDecimal(price).movePointRight(4).longValueExact();
    }

    static String price(final long ticks)
    {
        return String.format("%d.%04d", ticks / 10_000, ticks % 10_000);
    }

    static String money(final long micros)
    {
        return String.format("%d.%06d", micros / 1_000_000, micros % 1_000_000);
    }

    static long cost(final int gpus, final long price, final long ms)
    {
        return BigInteger.valueOf(gpus).multiply(BigInteger.valueOf(price)).multiply(BigInteger.valueOf(100))
            .multiply(BigInteger.valueOf(Math.max(0, ms))).divide(BigInteger.valueOf(3_600_000)).longValueExact();
    }
}
