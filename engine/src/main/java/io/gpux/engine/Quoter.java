package io.gpux.engine;

import io.gpux.engine.book.BookSide;
import io.gpux.engine.book.Order;
import io.gpux.engine.book.PriceLevel;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.TimeInForce;
import io.gpux.engine.event.RejectReason;
import io.gpux.engine.funds.Account;
import io.gpux.engine.lease.Lease;
import io.gpux.engine.lease.LeaseIndex;
import io.gpux.engine.machine.Machine;
import io.gpux.engine.market.Market;

/**
 * Dry runs of bids: the checks of {@link OrderEntry}, the walk of {@link Matcher#matchBid} and the
 * victim choice of {@link Preemptor}, reading the state and changing nothing (no order is acquired,
 * no priority or lease id is taken, no event is emitted).
 */
final class Quoter
{
    private final MatchingEngine engine;
    private final Order bid = new Order();

    Quoter(final MatchingEngine engine)
    {
        this.engine = engine;
    }

    void quote(final Command cmd, final Quote q)
    {
        q.clear();
        final long orderId = cmd.orderId;
        cmd.orderId = Long.MIN_VALUE;
        final RejectReason reason = engine.orderEntry.checkBid(cmd);
        cmd.orderId = orderId;
        if (reason != null)
        {
            q.reject = reason;
            return;
        }
        final Account account = engine.orderEntry.checkedAccount;
        final Market market = engine.orderEntry.checkedMarket;
        OrderEntry.fillBid(bid, cmd, account, market);
        try
        {
            quote(account, market, q);
        }
        finally
        {
            bid.account = null;
            bid.market = null;
        }
    }

    private void quote(final Account account, final Market market, final Quote q)
    {
        final int gpus = bid.openGpus;
        q.hold = Funds.bidHold(market, gpus, bid.price, bid.maxDurationMs);
        if (q.hold > account.available())
        {
            q.reject = RejectReason.INSUFFICIENT_FUNDS;
            return;
        }
        if (bid.postOnly && engine.matcher.bidWouldMatch(bid, bid.price, gpus))
        {
            q.reject = RejectReason.POST_ONLY_WOULD_MATCH;
            return;
        }
        if (bid.tif == TimeInForce.FOK && !engine.orderEntry.bidCanFillAll(bid, bid.price, gpus))
        {
            q.fokCancelled = true;
            return;
        }
        int need = fillFromAsks(market, gpus, q);
        if (need > 0 && OrderEntry.mayPreempt(bid))
        {
            q.effectiveMs = engine.lastCommandTime() + market.graceMs;
            need = bid.gang ? preemptGang(market, need, q) : preempt(market, need, q);
        }
        q.restingGpus = bid.tif == TimeInForce.GTC ? need : 0;
    }

    /** As {@link Matcher#matchBid}: lowest price first, then oldest; a gang bid takes one ask whole. */
    private int fillFromAsks(final Market market, final int gpus, final Quote q)
    {
        final BookSide asks = market.asks;
        int need = gpus;
        for (PriceLevel level = asks.best(); level != null && need > 0; level = asks.worse(level))
        {
            if (level.price() > bid.price)
            {
                break;
            }
            for (Order ask = level.head(); ask != null && need > 0; ask = ask.nextInLevel())
            {
                if (Matcher.eligible(bid, ask.machine) && (!bid.gang || ask.openGpus >= need))
                {
                    final int take = Math.min(need, ask.openGpus);
                    q.addFill(ask.machine.id, take, ask.price);
                    need -= take;
                }
            }
        }
        return need;
    }

    /** As {@link Preemptor#preempt}: victims lowest price first, then most recently started, whole. */
    private int preempt(final Market market, final int gpus, final Quote q)
    {
        final long limit = market.preemptLimit(bid.price);
        final LeaseIndex index = market.preemptible;
        int need = gpus;
        for (int i = 0; i < index.levelCount() && index.priceAt(i) <= limit && need > 0; i++)
        {
            for (Lease lease = index.firstAt(i); lease != null && need > 0; lease = lease.nextInIndex())
            {
                if (Preemptor.victimEligible(bid, lease))
                {
                    final int take = Math.min(lease.gpus, need);
                    q.addPreemption(lease.id, lease.machine.id, take, lease.price);
                    need -= take;
                }
            }
        }
        return need;
    }

    /**
     * As {@link Preemptor#preemptGang}: the whole bid on the one machine that needs the fewest
     * preempted GPUs, its free ask GPUs first (reported as fills at the bid's price), then victims.
     */
    private int preemptGang(final Market market, final int gpus, final Quote q)
    {
        final Preemptor preemptor = engine.preemptor;
        final Machine machine = preemptor.chooseGangMachine(bid, bid.price, gpus);
        if (machine == null)
        {
            preemptor.clearVictims();
            return gpus;
        }
        try
        {
            int left = gpus;
            final int free = Math.min(left, Preemptor.freeGpus(machine, bid.price));
            if (free > 0)
            {
                q.addFill(machine.id, free, bid.price);
                left -= free;
            }
            for (int v = 0; v < preemptor.victimCount() && left > 0; v++)
            {
                final Lease victim = preemptor.victim(v);
                final int take = Math.min(left, victim.gpus);
                q.addPreemption(victim.id, machine.id, take, victim.price);
                left -= take;
            }
            return left;
        }
        finally
        {
            preemptor.clearVictims();
        }
    }
}
