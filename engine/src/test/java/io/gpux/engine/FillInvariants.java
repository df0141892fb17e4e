package io.gpux.engine;

import io.gpux.engine.book.Order;
import io.gpux.engine.event.Event;
import io.gpux.engine.event.NoticeReason;
import io.gpux.engine.lease.Lease;
import io.gpux.engine.lease.LeaseIndex;
import io.gpux.engine.machine.Machine;
import io.gpux.engine.market.Market;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.gpux.engine.Invariants.eligible;
import static io.gpux.engine.Invariants.orders;
import static io.gpux.engine.Invariants.require;

/**
 * The fills' rules, checked at the first {@code FILL} of each pair from the state right after the match:
 * invariant 4 of rulebook section 12 with sections 5 and 13.14, 13.15 (a plain match trades at the price
 * of the order with the older priority, within both limits, between eligible orders, and passes over no
 * better eligible order), preemption (6.2, 6.3, 13.17: pay-as-bid, victims in victim order) and the
 * machine a gang preemption chooses (6.2, 13.19).
 */
final class FillInvariants
{
    private final MatchingEngine engine;
    /** FILL lines come in pairs, the incoming order's first. */
    private boolean secondOfPair;
    private long plainFills;
    private long preemptionFills;
    private final Set<Long> gangLeasesChecked = new HashSet<>();
    private long gangPreemptions;

    FillInvariants(final MatchingEngine engine)
    {
        this.engine = engine;
    }

    long plainFills()
    {
        return plainFills;
    }

    long preemptionFills()
    {
        return preemptionFills;
    }

    long gangPreemptions()
    {
        return gangPreemptions;
    }

    void onFill(final Event e)
    {
        require(e.gpus > 0 && e.price > 0, "FILL with gpus " + e.gpus + " price " + e.price);
        secondOfPair = !secondOfPair;
        if (secondOfPair)
        {
            checkFillPriority(e);
        }
    }

    /**
     * Invariant 4 and 13.14 for a plain match (not a preemption, nor the free GPUs of a gang preemption),
     * checked when its first FILL is printed: the trade is at the price of the order with the older
     * priority, within both limits, between eligible orders; and no better eligible order of the resting
     * side was passed over (it would have been matched first, and fully, before this one).
     */
    private void checkFillPriority(final Event e)
    {
        if (e.preemptsLeaseId != 0)
        {
            checkPreemptionFill(e);
            return;
        }
        final Lease lease = engine.lease(e.leaseId);
        require(lease != null, "FILL of unknown lease L" + e.leaseId);
        for (int i = 0; i < lease.sourceCount; i++)
        {
            if (lease.sourceVictim[i] != null)
            {
                checkGangChoice(e, lease); // free GPUs of a gang preemption: pay-as-bid
                return;
            }
        }
        plainFills++;
        final boolean bidIncoming = e.accountId == lease.renter.id;
        final Order bid = lease.renter.openOrders.get(bidIncoming ? e.orderId : e.counterOrderId);
        final Order ask = lease.owner.openOrders.get(bidIncoming ? e.counterOrderId : e.orderId);
        final String what = "FILL L" + e.leaseId + " (" + (bidIncoming ? "bid" : "ask") + " incoming)";
        require(bid != null && bid.bid && ask != null && !ask.bid, what + ": its orders are not open");
        require(ask.machine == lease.machine, what + ": lease on another machine than the ask's");
        final long expected = ask.priority < bid.priority ? ask.price : bid.price;
        require(e.price == expected && lease.price == expected, what + " at " + e.price + ", but the older order's " +
            "price is " + expected + " (bid " + bid.price + "/prio " + bid.priority + ", ask " + ask.price + "/prio " +
            ask.priority + ")");
        require(ask.price <= bid.price, what + ": ask price " + ask.price + " above bid price " + bid.price);
        require(bid.account != ask.account && eligible(bid, ask.machine), what + ": the ask's machine does not " +
            "satisfy the bid (constraints or self-trade)");
        require(!ask.market.halted, what + " in a halted market");
        require(ask.machine.online, what + " on an offline machine");
        if (bid.gang)
        {
            require(e.gpus == lease.gpus && bid.openGpus == 0, what + ": a gang bid split");
        }
        if (bidIncoming)
        {
            // every eligible ask better than this one must have been used up: at one price the older first, or,
            // in a fragment-first market, the one whose machine had the fewest free GPUs (the older among equals)
            final long chosenFree = ask.machine.offered + e.gpus; // its machine's free GPUs before this fill
            for (final Order other : orders(ask.market.asks))
            {
                if (other == ask || other.price > ask.price || (other.price == ask.price && !before(other, ask, chosenFree)))
                {
                    continue;
                }
                if (other.openGpus > 0 && other.account != bid.account && eligible(bid, other.machine) &&
                    (!bid.gang || other.openGpus >= lease.gpus))
                {
                    throw new AssertionError(what + ": bid " + bid.clientOrderId + " of " + bid.account.name +
                        " filled from ask " + ask.clientOrderId + " (" + ask.price + ") while better eligible ask " +
                        other.clientOrderId + " of " + other.account.name + " (" + other.openGpus + " @ " + other.price +
                        ") has GPUs");
                }
            }
        }
        else
        {
            final int askOpenBefore = ask.openGpus + e.gpus;
            for (final Order other : orders(bid.market.bids))
            {
                if (other == bid || other.price < bid.price || (other.price == bid.price && other.priority > bid.priority))
                {
                    continue;
                }
                if (other.account != ask.account && eligible(other, ask.machine) &&
                    (!other.gang || other.openGpus <= askOpenBefore))
                {
                    throw new AssertionError(what + ": ask " + ask.clientOrderId + " of " + ask.account.name +
                        " filled bid " + bid.clientOrderId + " (" + bid.price + ") while better eligible bid " +
                        other.clientOrderId + " of " + other.account.name + " (" + other.openGpus + " @ " + other.price +
                        (other.gang ? " gang" : "") + ") waits");
                }
            }
        }
    }

    /**
     * A preemption (6.2, 6.3, 13.17): pay-as-bid, a victim priced at least minIncrement below the bid,
     * started, of other accounts, on an eligible machine; for a plain bid, no eligible preemptible lease
     * ahead of this victim in victim order (lowest price, most recently started, highest id) was passed over.
     */
    private void checkPreemptionFill(final Event e)
    {
        preemptionFills++;
        final Lease successor = engine.lease(e.leaseId);
        final Lease victim = engine.lease(e.preemptsLeaseId);
        final String what = "FILL L" + e.leaseId + " preempting L" + e.preemptsLeaseId;
        require(successor != null && victim != null, what + ": leases not live");
        final Order bid = successor.renter.openOrders.get(e.orderId);
        require(e.accountId == successor.renter.id && bid != null && bid.bid, what + ": the first FILL is not the " +
            "open bid's");
        final Market market = bid.market;
        require(market.preemption, what + " in a market with preemption off");
        require(!bid.postOnly, what + ": a postOnly bid preempted");
        require(!bid.noPreempt, what + ": a noPreempt bid preempted");
        require(e.price == bid.price && successor.price == bid.price, what + ": not at the bid's price " + bid.price);
        require(victim.state == Lease.ACTIVE && victim.notice == NoticeReason.OUTBID, what + ": victim not running " +
            "under an OUTBID notice");
        require(victim.price <= market.preemptLimit(bid.price), what + ": victim at " + victim.price + ", bid at " +
            bid.price + ", minIncrement " + market.minIncrement + ", preemptIncrementBps " + market.preemptIncrementBps);
        require(victim.renter != bid.account && victim.owner != bid.account && eligible(bid, victim.machine),
            what + ": victim not eligible for the bid");
        require(victim.machine == successor.machine, what + ": on another machine");
        if (bid.gang)
        {
            checkGangChoice(e, successor);
            return;
        }
        final LeaseIndex index = market.preemptible;
        for (int i = 0; i < index.levelCount() && index.priceAt(i) <= victim.price; i++)
        {
            for (Lease l = index.firstAt(i); l != null; l = l.nextInIndex())
            {
                final boolean ahead = l.price < victim.price || l.startMs > victim.startMs ||
                    (l.startMs == victim.startMs && l.id > victim.id);
                if (ahead && l.renter != bid.account && l.owner != bid.account && eligible(bid, l.machine))
                {
                    throw new AssertionError(what + ": eligible L" + l.id + " (" + l.price + ", started " + l.startMs +
                        ") comes first in victim order but was passed over for L" + victim.id + " (" + victim.price +
                        ", started " + victim.startMs + ")");
                }
            }
        }
    }

    /** Whether {@code other}, at the price of {@code chosen}, comes before it in the level's fill order. */
    private static boolean before(final Order other, final Order chosen, final long chosenFree)
    {
        if (!chosen.market.fragmentFirst)
        {
            return other.priority < chosen.priority;
        }
        final long otherFree = other.machine == chosen.machine ? chosenFree : other.machine.offered;
        return otherFree < chosenFree || otherFree == chosenFree && other.priority < chosen.priority;
    }

    /**
     * 6.2 and 13.19, recomputed at the first FILL of a gang preemption from the state before it (the
     * victims just noticed are put back among the preemptible leases, the free GPUs just taken back on
     * their asks): each machine with an eligible victim counts the free GPUs of its asks priced at or
     * below the bid, then takes its eligible victims in victim order until covered; machines needing no
     * victim are not candidates; the fewest preempted GPUs wins, then the lowest sum of victim price x
     * GPUs, then the lowest machine id in string order. The lease must be on that machine, with those
     * victims, in that order.
     */
    private void checkGangChoice(final Event e, final Lease lease)
    {
        if (!gangLeasesChecked.add(lease.id))
        {
            return;
        }
        gangPreemptions++;
        final Order bid = lease.renter.openOrders.get(e.orderId);
        final String what = "gang preemption L" + lease.id;
        require(bid != null && bid.bid && bid.gang && e.accountId == lease.renter.id, what + ": the first FILL is not " +
            "the open gang bid's");
        final Market market = bid.market;
        final long limit = market.preemptLimit(bid.price);
        final List<Lease> victims = new ArrayList<>();
        final Map<Long, Integer> freeTaken = new HashMap<>();
        for (int i = 0; i < lease.sourceCount; i++)
        {
            final Lease v = lease.sourceVictim[i];
            if (v == null)
            {
                freeTaken.merge(lease.sourceAskUid[i], lease.sourceGpus[i], Integer::sum);
            }
            else if (!victims.contains(v))
            {
                victims.add(v);
            }
        }
        final List<Lease> preemptible = new ArrayList<>(victims);
        for (int i = 0; i < market.preemptible.levelCount(); i++)
        {
            for (Lease l = market.preemptible.firstAt(i); l != null; l = l.nextInIndex())
            {
                preemptible.add(l);
            }
        }
        preemptible.sort((a, b) -> a.price != b.price ? Long.compare(a.price, b.price) :
            a.startMs != b.startMs ? Long.compare(b.startMs, a.startMs) : Long.compare(b.id, a.id));
        Machine best = null;
        List<Lease> bestVictims = null;
        long bestGpus = 0;
        long bestCost = 0;
        for (final Machine m : engine.machines.values())
        {
            if (m.market != market)
            {
                continue;
            }
            int free = 0;
            for (Order ask = m.firstAsk; ask != null; ask = ask.machineNext)
            {
                if (ask.price <= bid.price)
                {
                    free += ask.openGpus + freeTaken.getOrDefault(ask.uid, 0);
                }
            }
            final List<Lease> mine = new ArrayList<>();
            int covered = free;
            long gpus = 0;
            long cost = 0;
            for (final Lease l : preemptible)
            {
                if (covered >= lease.gpus)
                {
                    break;
                }
                if (l.machine == m && l.price <= limit && l.renter != bid.account && l.owner != bid.account &&
                    eligible(bid, m))
                {
                    mine.add(l);
                    covered += l.gpus;
                    gpus += l.gpus;
                    cost += l.gpus * l.price;
                }
            }
            if (mine.isEmpty() || covered < lease.gpus)
            {
                continue;
            }
            if (best == null || gpus < bestGpus || (gpus == bestGpus && (cost < bestCost ||
                (cost == bestCost && m.name.compareTo(best.name) < 0))))
            {
                best = m;
                bestVictims = mine;
                bestGpus = gpus;
                bestCost = cost;
            }
        }
        require(best != null, what + ": no machine could have covered the gang bid");
        require(best == lease.machine && bestVictims.equals(victims), what + " chose " + lease.machine.name +
            " preempting " + ids(victims) + ", but 13.19 picks " + best.name + " preempting " + ids(bestVictims));
    }

    private static String ids(final List<Lease> leases)
    {
        final StringBuilder sb = new StringBuilder("[");
        for (final Lease l : leases)
        {
            sb.append(sb.length() > 1 ? " L" : "L").append(l.id);
        }
        return sb.append(']').toString();
    }
}
