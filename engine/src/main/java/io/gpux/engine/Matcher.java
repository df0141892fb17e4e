package io.gpux.engine;

import io.gpux.engine.book.BookSide;
import io.gpux.engine.book.Order;
import io.gpux.engine.book.PriceLevel;
import io.gpux.engine.command.Command;
import io.gpux.engine.lease.Lease;
import io.gpux.engine.machine.Machine;
import io.gpux.engine.market.Market;

import java.util.Arrays;

/**
 * Plain matching (rulebook section 5): price-time priority, skipping orders whose constraints the
 * other side does not meet, trading at the price of the order with the older priority. The plain
 * path (no constraints) touches each matched order once and never scans the book.
 */
final class Matcher
{
    private final MatchingEngine engine;
    private Order[] scratch = new Order[64];

    Matcher(final MatchingEngine engine)
    {
        this.engine = engine;
    }

    /** Whether a bid's constraints and self-trade prevention allow a machine's GPUs to fill it. */
    static boolean eligible(final Order bid, final Machine machine)
    {
        if (bid.account == machine.owner)
        {
            return false;
        }
        if (bid.regionId != Command.NONE && bid.regionId != machine.regionId)
        {
            return false;
        }
        return bid.minReliabilityPpb < 0 || machine.reliabilityAtLeast(bid.minReliabilityPpb);
    }

    /** Matches an incoming bid against open asks priced at or below it. */
    void matchBid(final Order bid)
    {
        final BookSide asks = bid.market.asks;
        final boolean fragmentFirst = bid.market.fragmentFirst;
        // levels emptied by the trades stay in place: the walk goes on from where it is
        PriceLevel level = asks.best();
        while (level != null && bid.openGpus > 0 && level.price() <= bid.price)
        {
            if (fragmentFirst)
            {
                matchLevelFragmentFirst(bid, level);
            }
            else
            {
                matchLevelInTimeOrder(bid, level);
            }
            if (bid.openGpus == 0)
            {
                break;
            }
            level = asks.worse(level);
        }
    }

    /** Fills a bid from one price level, oldest ask first. */
    private void matchLevelInTimeOrder(final Order bid, final PriceLevel level)
    {
        Order ask = level.head();
        while (ask != null && bid.openGpus > 0)
        {
            final Order next = ask.nextInLevel();
            if (eligible(bid, ask.machine) && (!bid.gang || ask.openGpus >= bid.openGpus))
            {
                trade(bid, ask, bid.gang ? bid.openGpus : Math.min(ask.openGpus, bid.openGpus), true);
            }
            ask = next;
        }
    }

    /**
     * Fills a bid from one price level, each time from the eligible ask whose machine has the fewest free
     * GPUs (the oldest among equals), so that whole machines stay free for gang bids.
     */
    private void matchLevelFragmentFirst(final Order bid, final PriceLevel level)
    {
        while (bid.openGpus > 0)
        {
            Order best = null;
            for (Order ask = level.head(); ask != null; ask = ask.nextInLevel())
            {
                if (eligible(bid, ask.machine) && (!bid.gang || ask.openGpus >= bid.openGpus) &&
                    (best == null || ask.machine.offered < best.machine.offered))
                {
                    best = ask;
                }
            }
            if (best == null)
            {
                return;
            }
            trade(bid, best, bid.gang ? bid.openGpus : Math.min(best.openGpus, bid.openGpus), true);
        }
    }

    /** Matches an ask (new, replaced, or with GPUs back) against resting bids priced at or above it. */
    void matchAsk(final Order ask)
    {
        final Machine machine = ask.machine;
        final Market market = ask.market;
        if (!machine.online || market.halted || ask.openGpus == 0)
        {
            return;
        }
        final BookSide bids = market.bids;
        PriceLevel level = bids.best();
        while (level != null && ask.openGpus > 0 && level.price() >= ask.price)
        {
            Order bid = level.head();
            while (bid != null && ask.openGpus > 0)
            {
                final Order next = bid.nextInLevel();
                if (eligible(bid, machine) && (!bid.gang || ask.openGpus >= bid.openGpus))
                {
                    trade(bid, ask, bid.gang ? bid.openGpus : Math.min(ask.openGpus, bid.openGpus), false);
                }
                bid = next;
            }
            if (ask.openGpus == 0)
            {
                break;
            }
            level = bids.worse(level);
        }
    }

    private void trade(final Order bid, final Order ask, final int gpus, final boolean bidIncoming)
    {
        final long price = ask.priority < bid.priority ? ask.price : bid.price;
        final Lease lease = engine.leaseLifecycle.create(bid.account, ask.machine, gpus, price, bid.maxDurationMs);
        lease.addSource(ask, ask.uid, ask.clientOrderId, gpus, null);
        takeFromAsk(ask, gpus);
        reduceBid(bid, gpus);
        engine.funds.takeLeaseHold(lease);
        final Emitter out = engine.out;
        if (bidIncoming)
        {
            out.fill(bid.clientOrderId, bid.account.id, ask.clientOrderId, lease, gpus, price, 0);
            out.fill(ask.clientOrderId, ask.account.id, bid.clientOrderId, lease, gpus, price, 0);
        }
        else
        {
            out.fill(ask.clientOrderId, ask.account.id, bid.clientOrderId, lease, gpus, price, 0);
            out.fill(bid.clientOrderId, bid.account.id, ask.clientOrderId, lease, gpus, price, 0);
        }
        out.trade(ask.market.id, gpus, price);
        engine.leaseLifecycle.start(lease);
        if (!bidIncoming && bid.openGpus == 0)
        {
            engine.orderEntry.close(bid);
        }
    }

    /** Moves GPUs of an ask into a lease. */
    void takeFromAsk(final Order ask, final int gpus)
    {
        if (ask.inBook())
        {
            ask.market.asks.openGpusChanged(ask, -gpus);
        }
        ask.openGpus -= gpus;
        ask.machine.offered -= gpus;
        engine.touch(ask.machine);
        ask.machine.leased += gpus;
        if (ask.openGpus == 0 && ask.inBook())
        {
            ask.market.asks.remove(ask);
        }
    }

    /** Fills GPUs of a bid; its hold shrinks to its unfilled GPUs. */
    void reduceBid(final Order bid, final int gpus)
    {
        if (bid.inBook())
        {
            bid.market.bids.openGpusChanged(bid, -gpus);
        }
        bid.openGpus -= gpus;
        if (bid.openGpus == 0 && bid.inBook())
        {
            bid.market.bids.remove(bid);
        }
        engine.funds.resizeBidHold(bid);
    }

    /**
     * GPUs of a lease come back to the ask they were leased from: if it is still the same open order they
     * are offered again with its original priority and matched at once, otherwise they go idle.
     */
    void returnToAsk(final Machine machine, final Order ask, final long askUid, final int gpus)
    {
        machine.leased -= gpus;
        if (ask == null || ask.uid != askUid || !ask.open)
        {
            return;
        }
        ask.openGpus += gpus;
        machine.offered += gpus;
        engine.touch(machine);
        if (ask.inBook())
        {
            ask.market.asks.openGpusChanged(ask, gpus);
        }
        else if (machine.online)
        {
            ask.market.asks.insertByPriority(ask);
        }
        matchAsk(ask);
    }

    /** Matches every ask of a machine with open GPUs, in price-time order. */
    void rematchMachine(final Machine machine)
    {
        int n = 0;
        for (Order ask = machine.firstAsk; ask != null; ask = ask.machineNext)
        {
            if (ask.openGpus > 0)
            {
                if (n == scratch.length)
                {
                    scratch = Arrays.copyOf(scratch, n * 2);
                }
                scratch[n++] = ask;
            }
        }
        rematchInPriceTimeOrder(n);
    }

    /** Matches every ask of a market's book, in price-time order, as incoming asks (RESUME). */
    void rematchMarket(final Market market)
    {
        final BookSide asks = market.asks;
        int n = 0;
        for (PriceLevel level = asks.best(); level != null; level = asks.worse(level))
        {
            for (Order ask = level.head(); ask != null; ask = ask.nextInLevel())
            {
                if (n == scratch.length)
                {
                    scratch = Arrays.copyOf(scratch, n * 2);
                }
                scratch[n++] = ask;
            }
        }
        rematchInPriceTimeOrder(n);
    }

    private long[] scratchUids = new long[64];

    /** Matches the first n asks of the scratch array in price-time order, each as an incoming ask. */
    private void rematchInPriceTimeOrder(final int n)
    {
        final Order[] asks = scratch;
        for (int i = 1; i < n; i++)
        {
            final Order ask = asks[i];
            int j = i - 1;
            while (j >= 0 && (asks[j].price > ask.price || asks[j].price == ask.price && asks[j].priority > ask.priority))
            {
                asks[j + 1] = asks[j];
                j--;
            }
            asks[j + 1] = ask;
        }
        if (scratchUids.length < n)
        {
            scratchUids = new long[scratch.length];
        }
        for (int i = 0; i < n; i++)
        {
            scratchUids[i] = asks[i].uid;
        }
        // matching may recycle an order that is later in the list: the uid tells
        for (int i = 0; i < n; i++)
        {
            final Order ask = asks[i];
            asks[i] = null;
            if (ask.open && ask.uid == scratchUids[i])
            {
                matchAsk(ask);
            }
        }
    }

    /** Would a bid at this price and size fill at least one GPU from an open ask now? */
    boolean bidWouldMatch(final Order bid, final long price, final int gpus)
    {
        return plainAvailable(bid, price, gpus, 1) > 0;
    }

    /**
     * GPUs that plain matching could fill now for a bid, counting up to {@code enough}.
     */
    int plainAvailable(final Order bid, final long price, final int gpus, final int enough)
    {
        final BookSide asks = bid.market.asks;
        long found = 0; // asks of machines of up to Integer.MAX_VALUE GPUs each: their sum may not fit an int
        for (PriceLevel level = asks.best(); level != null; level = asks.worse(level))
        {
            if (level.price() > price)
            {
                break;
            }
            for (Order ask = level.head(); ask != null; ask = ask.nextInLevel())
            {
                if (eligible(bid, ask.machine))
                {
                    if (bid.gang)
                    {
                        if (ask.openGpus >= gpus)
                        {
                            return gpus;
                        }
                    }
                    else
                    {
                        found += ask.openGpus;
                        if (found >= enough)
                        {
                            return (int)Math.min(found, gpus);
                        }
                    }
                }
            }
        }
        return (int)Math.min(found, gpus);
    }

    /**
     * Dry run of an ask at this price and size against resting bids: how many of its GPUs would fill
     * now (greedy, as matching would).
     */
    int askFillable(final Order ask, final long price, final int gpus, final int enough)
    {
        final Machine machine = ask.machine;
        if (!machine.online || ask.market.halted)
        {
            return 0;
        }
        final BookSide bids = ask.market.bids;
        int left = gpus;
        for (PriceLevel level = bids.best(); level != null && left > 0; level = bids.worse(level))
        {
            if (level.price() < price)
            {
                break;
            }
            for (Order bid = level.head(); bid != null && left > 0; bid = bid.nextInLevel())
            {
                if (bid.uid == ask.uid || !eligible(bid, machine))
                {
                    continue;
                }
                if (bid.gang)
                {
                    if (left >= bid.openGpus)
                    {
                        left -= bid.openGpus;
                    }
                }
                else
                {
                    left -= Math.min(left, bid.openGpus);
                }
                if (gpus - left >= enough)
                {
                    return gpus - left;
                }
            }
        }
        return gpus - left;
    }
}
