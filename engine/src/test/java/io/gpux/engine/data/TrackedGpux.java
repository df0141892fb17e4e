package io.gpux.engine.data;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A {@link GpuxSession} that places orders for named participants and keeps a ledger of their orders from
 * gpux's own events ({@code ACCEPTED}, {@code FILL}, {@code CANCELLED}), so that vectors which check per-order
 * state (open orders, filled quantity, per-order book rows) can be compared with what gpux did.
 *
 * <p>Every participant is an account with role {@code MARKET_MAKER} (vectors let anyone buy and sell), a large
 * deposit, and one online machine per market it sells in.
 */
final class TrackedGpux
{
    /** One order as gpux reported it. {@code open} is false once cancelled (a bid also once fully filled). */
    static final class Entry
    {
        final String account;
        final String id;
        final boolean bid;
        final String market;
        long price;
        long size;
        long filled;
        boolean open = true;
        long priority;

        Entry(final String account, final String id, final boolean bid, final String market, final long price, final long size)
        {
            this.account = account;
            this.id = id;
            this.bid = bid;
            this.market = market;
            this.price = price;
            this.size = size;
        }

        /** @return GPUs still offered or wanted: what gpux's book shows for this order. */
        long remaining()
        {
            return open ? size - filled : 0;
        }
    }

    /** A match as printed: the incoming order's {@code FILL}, the resting order's, and their price. */
    record Match(Entry incoming, Entry resting, long gpus, long price)
    {
        Entry buyer()
        {
            return incoming.bid ? incoming : resting;
        }

        Entry seller()
        {
            return incoming.bid ? resting : incoming;
        }
    }

    final GpuxSession gpux = new GpuxSession();
    private final Set<String> accounts = new HashSet<>();
    private final Set<String> markets = new HashSet<>();
    private final Map<String, Entry> orders = new LinkedHashMap<>();
    private long prioritySeq;
    /** Events of the current run of actions (cleared by {@link #startActions()}). */
    final List<String> recent = new ArrayList<>();

    void startActions()
    {
        recent.clear();
    }

    void account(final String account)
    {
        if (accounts.add(account))
        {
            gpux.account(account, "MARKET_MAKER");
        }
    }

    void market(final String market)
    {
        if (markets.add(market))
        {
            gpux.market(market);
        }
    }

    /**
     * Places a limit order (or, with {@code tif} IOC/FOK, an immediate one) and applies its events to the
     * ledger. @return the events it printed.
     */
    List<String> place(final String account, final String id, final boolean bid, final String market,
        final long gpus, final long price, final String tif)
    {
        account(account);
        market(market);
        final String command = (bid ? "BID id=" + id + " account=" + account + " market=" + market :
            "ASK id=" + id + " account=" + account + " machine=" + gpux.machine(account, market)) +
            " gpus=" + gpus + " price=" + GpuxSession.price(price) + " tif=" + tif;
        final Entry entry = new Entry(account, id, bid, market, price, gpus);
        final List<String> events = run(command);
        if (events.isEmpty() || !GpuxSession.verb(events.get(0)).equals("ACCEPTED"))
        {
            throw new AssertionError(command + " was not accepted: " + events);
        }
        entry.priority = ++prioritySeq;
        orders.put(key(account, id), entry);
        apply(events);
        if (!tif.equals("GTC"))
        {
            entry.open = false;
        }
        return events;
    }

    /** {@code REPLACE} with a new price: gpux takes a new time priority when the price changes. */
    List<String> replacePrice(final String account, final String id, final long price)
    {
        final Entry entry = entry(account, id);
        final List<String> events = run("REPLACE id=" + id + " account=" + account + " price=" + GpuxSession.price(price));
        if (events.isEmpty() || !GpuxSession.verb(events.get(0)).equals("ACCEPTED"))
        {
            throw new AssertionError("REPLACE of " + id + " was not accepted: " + events);
        }
        if (entry.price != price)
        {
            entry.price = price;
            entry.priority = ++prioritySeq;
        }
        apply(events);
        return events;
    }

    List<String> cancel(final String account, final String id)
    {
        final List<String> events = run("CANCEL id=" + id + " account=" + account);
        apply(events);
        return events;
    }

    private List<String> run(final String command)
    {
        gpux.time(gpux.time() + 1);
        final List<String> events = gpux.run(command);
        recent.addAll(events);
        return events;
    }

    private void apply(final List<String> events)
    {
        for (final String e : events)
        {
            switch (GpuxSession.verb(e))
            {
                case "FILL" ->
                {
                    final Entry entry = entry(GpuxSession.value(e, "account"), GpuxSession.value(e, "order"));
                    entry.filled += Long.parseLong(GpuxSession.value(e, "gpus"));
                    if (entry.bid && entry.filled == entry.size)
                    {
                        entry.open = false;
                    }
                }
                case "CANCELLED" -> entry(GpuxSession.value(e, "account"), GpuxSession.value(e, "order")).open = false;
                default ->
                {
                }
            }
        }
    }

    /** @return the matches in the given events, in the order printed. */
    List<Match> matches(final List<String> events)
    {
        final List<Match> result = new ArrayList<>();
        for (int i = 0; i < events.size(); i++)
        {
            final String e = events.get(i);
            if (GpuxSession.verb(e).equals("FILL"))
            {
                final String other = events.get(++i);
                result.add(new Match(entry(GpuxSession.value(e, "account"), GpuxSession.value(e, "order")),
                    entry(GpuxSession.value(other, "account"), GpuxSession.value(other, "order")),
                    Long.parseLong(GpuxSession.value(e, "gpus")), GpuxSession.ticks(GpuxSession.value(e, "price"))));
            }
        }
        return result;
    }

    Entry entry(final String account, final String id)
    {
        final Entry entry = orders.get(key(account, id));
        if (entry == null)
        {
            throw new AssertionError("no order " + id + " of " + account + " in the ledger");
        }
        return entry;
    }

    /** @return the order with this id, whatever its account (the vectors' ids are unique). */
    Entry entry(final String id)
    {
        return orders.values().stream().filter(o -> o.id.equals(id)).reduce((a, b) -> b)
            .orElseThrow(() -> new AssertionError("no order " + id + " in the ledger"));
    }

    /** @return the account's orders with GPUs still open, in acceptance order. */
    List<Entry> active(final String account)
    {
        return orders.values().stream().filter(o -> o.account.equals(account) && o.remaining() > 0).toList();
    }

    /** @return one side's resting orders with GPUs open, in price-time priority. */
    List<Entry> side(final String market, final boolean bids)
    {
        final Comparator<Entry> byPrice = Comparator.comparingLong(o -> bids ? -o.price : o.price);
        return orders.values().stream().filter(o -> o.market.equals(market) && o.bid == bids && o.remaining() > 0)
            .sorted(byPrice.thenComparingLong(o -> o.priority)).toList();
    }

    private static String key(final String account, final String id)
    {
        return account + "|" + id;
    }
}
