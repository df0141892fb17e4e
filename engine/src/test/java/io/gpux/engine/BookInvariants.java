package io.gpux.engine;

import io.gpux.engine.book.BookSide;
import io.gpux.engine.book.Order;
import io.gpux.engine.book.PriceLevel;
import io.gpux.engine.market.Market;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import static io.gpux.engine.Invariants.couldMatch;
import static io.gpux.engine.Invariants.orders;
import static io.gpux.engine.Invariants.require;

/**
 * The books' rules: each side's levels in price order, none empty, each level's orders open, of its
 * side, market and price, with GPUs, in time priority (rulebook sections 5 and 13.14) and its GPU count
 * their sum; and invariant 2 (section 12): no resting bid and resting ask that could match each other
 * (constraints, self-trade, gang size: 13.15, 13.16) cross in a market that is not halted.
 */
final class BookInvariants
{
    private final MatchingEngine engine;

    BookInvariants(final MatchingEngine engine)
    {
        this.engine = engine;
    }

    /** Walks every book; returns each booked order with the price of its level. */
    Map<Order, Long> checkBooks()
    {
        final Map<Order, Long> inBook = new IdentityHashMap<>();
        for (final Market m : engine.markets.values())
        {
            walkSide(m, m.bids, true, inBook);
            walkSide(m, m.asks, false, inBook);
        }
        return inBook;
    }

    private void walkSide(final Market m, final BookSide side, final boolean bids, final Map<Order, Long> inBook)
    {
        long prevPrice = 0;
        for (int rank = 0; rank < side.levelCount(); rank++)
        {
            final PriceLevel level = side.level(rank);
            final String where = m.name + (bids ? " bids " : " asks ") + "level " + level.price();
            if (rank > 0)
            {
                require(bids ? level.price() < prevPrice : level.price() > prevPrice, where + " out of order after " +
                    prevPrice);
            }
            prevPrice = level.price();
            require(level.head() != null, where + " is empty");
            long gpus = 0;
            long prevPriority = Long.MIN_VALUE;
            for (Order o = level.head(); o != null; o = o.nextInLevel())
            {
                final String ow = where + " order uid " + o.uid;
                require(o.open, ow + " is closed but in the book");
                require(inBook.put(o, level.price()) == null, ow + " is in the book twice");
                require(o.inBook(), ow + " is in a level but says it is not in the book");
                require(o.bid == bids, ow + " is on the wrong side");
                require(o.market == m, ow + " belongs to market " + (o.market == null ? null : o.market.name));
                require(o.price == level.price(), ow + " has price " + o.price);
                require(o.openGpus > 0, ow + " has " + o.openGpus + " open GPUs");
                require(o.priority > prevPriority, ow + " out of time priority");
                prevPriority = o.priority;
                gpus += o.openGpus;
            }
            require(level.gpus() == gpus, where + " says " + level.gpus() + " GPUs, its orders have " + gpus);
        }
    }

    /** Invariant 2: no resting bid and resting ask that could match each other cross (markets not halted). */
    void checkNotCrossed()
    {
        for (final Market m : engine.markets.values())
        {
            if (m.halted)
            {
                continue;
            }
            final List<Order> bids = orders(m.bids);
            final List<Order> asks = orders(m.asks);
            for (final Order bid : bids)
            {
                for (final Order ask : asks)
                {
                    if (ask.price > bid.price)
                    {
                        break;
                    }
                    if (couldMatch(bid, ask))
                    {
                        throw new AssertionError("crossed book in " + m.name + ": bid " + bid.clientOrderId + " of " +
                            bid.account.name + " (" + bid.openGpus + " @ " + bid.price + (bid.gang ? " gang" : "") +
                            ") and ask " + ask.clientOrderId + " of " + ask.account.name + " on " + ask.machine.name +
                            " (" + ask.openGpus + " @ " + ask.price + ") could match");
                    }
                }
            }
        }
    }
}
