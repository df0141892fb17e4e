package io.gpux.engine;

import io.gpux.engine.book.Order;
import io.gpux.engine.event.EndReason;
import io.gpux.engine.event.Event;
import io.gpux.engine.event.NoticeReason;
import io.gpux.engine.lease.Lease;
import io.gpux.engine.lease.LeaseIndex;
import io.gpux.engine.market.Market;
import io.gpux.engine.timer.Timer;

import java.math.BigInteger;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static io.gpux.engine.Invariants.cost;
import static io.gpux.engine.Invariants.holdMs;
import static io.gpux.engine.Invariants.require;

/**
 * The leases' rules, from their events and from the state. Events: lease ids in creation order (13.24),
 * a start only after the fill that created the lease, settlement arithmetic (sections 1, 9, 13.6: cost
 * formula, fee, period, {@code LEASE_ENDED} totals, billing from start to end or, offline, up to the
 * last heartbeat as 13.27 says; expiry as section 4 says), notices (6.3, 9, 13.17, 13.26: at most one a
 * lease, effective after {@code graceMs}, {@code INSUFFICIENT_FUNDS} only at a settled period end) and
 * lease ends (invariant 5 of section 12: a noticed lease ends at or before its effective time, exactly
 * then unless it ended earlier for another reason, 13.21). State: each live lease's parties, sources,
 * victims and successor (6, 13.18), its notice, expiry and period timers, its hold (13.25, 13.26),
 * the preemptible-lease index in victim order (6.2, 13.17), and the events' view of the live leases.
 */
final class LeaseInvariants
{
    private final MatchingEngine engine;
    private final EventLedger ledger;
    private long maxLeaseId;

    /** What the events said about each lease. */
    private static final class LeaseTrack
    {
        long id;
        boolean started;
        long startMs;
        int gpus;
        long price;
        long settledMs;
        long cost;
        long fee;
        NoticeReason notice;
        long effectiveMs;
        long noticedAt;
    }

    /** Leases that a FILL created and no LEASE_ENDED ended yet. */
    private final TreeMap<Long, LeaseTrack> live = new TreeMap<>();
    private final Set<Long> ended = new HashSet<>();

    private long notices;
    private long noticesEndedEarly;
    private long settlements;

    LeaseInvariants(final MatchingEngine engine, final EventLedger ledger)
    {
        this.engine = engine;
        this.ledger = ledger;
    }

    long notices()
    {
        return notices;
    }

    long noticesEndedEarly()
    {
        return noticesEndedEarly;
    }

    long settlements()
    {
        return settlements;
    }

    /** A FILL names a live lease, or creates one with the next id. */
    void onFill(final Event e)
    {
        final long id = e.leaseId;
        require(!ended.contains(id), "FILL names lease L" + id + " that has ended");
        if (!live.containsKey(id))
        {
            require(id > maxLeaseId, "new lease L" + id + " after L" + maxLeaseId + ": lease ids go in creation order");
            maxLeaseId = id;
            final LeaseTrack t = new LeaseTrack();
            t.id = id;
            live.put(id, t);
        }
    }

    void onLeaseStarted(final Event e)
    {
        final LeaseTrack t = live.get(e.leaseId);
        require(t != null, "LEASE_STARTED of L" + e.leaseId + " that no FILL created (or that ended)");
        require(!t.started, "L" + e.leaseId + " started twice");
        require(e.renterId != e.ownerId, "L" + e.leaseId + ": renter is the owner (self-trade)");
        t.started = true;
        t.startMs = e.timeMs;
        t.gpus = e.gpus;
        t.price = e.price;
        if (t.notice != null)
        {
            // a pending lease under a reclaim notice may start no later than its effective time (it then ends)
            require(t.effectiveMs >= e.timeMs, "L" + e.leaseId + " started at " + e.timeMs +
                " after its notice's effective time " + t.effectiveMs);
        }
    }

    void onSettled(final Event e)
    {
        settlements++;
        final LeaseTrack t = live.get(e.leaseId);
        require(t != null && t.started, "SETTLED of L" + e.leaseId + " that is not running");
        require(e.ms >= 1, "SETTLED of L" + e.leaseId + " for " + e.ms + " ms");
        final Lease lease = engine.lease(e.leaseId);
        require(lease != null, "SETTLED of L" + e.leaseId + " unknown to the engine");
        final long before = t.settledMs;
        final long after = before + e.ms;
        require(after <= e.timeMs - t.startMs, "L" + e.leaseId + " billed " + after + " ms of its life at " +
            e.timeMs + ", started " + t.startMs);
        final long charge = cost(t.gpus, t.price, after) - cost(t.gpus, t.price, before);
        require(e.charge == charge, "SETTLED L" + e.leaseId + " charge " + e.charge + ", expected cost(" + after +
            ") - cost(" + before + ") = " + charge);
        final long fee = BigInteger.valueOf(charge).multiply(BigInteger.valueOf(lease.market.feeBps))
            .divide(BigInteger.valueOf(10_000)).longValueExact();
        require(e.fee == fee, "SETTLED L" + e.leaseId + " fee " + e.fee + ", expected " + fee);
        final long period = before / lease.market.prepayMs + 1;
        require(e.period == period, "SETTLED L" + e.leaseId + " period " + e.period + ", expected " + period);
        t.settledMs = after;
        t.cost += charge;
        t.fee += fee;
        ledger.settle(e.renterId, e.ownerId, charge, fee);
    }

    void onNotice(final Event e)
    {
        notices++;
        final LeaseTrack t = live.get(e.leaseId);
        require(t != null, "PREEMPT_NOTICE of L" + e.leaseId + " that is not live");
        require(t.notice == null, "L" + e.leaseId + " got a second notice (" + e.noticeReason + " after " +
            t.notice + "): a lease gets at most one notice");
        require(e.effectiveMs >= e.timeMs, "notice of L" + e.leaseId + " effective " + e.effectiveMs + " before " +
            e.timeMs);
        if (e.noticeReason == NoticeReason.OUTBID)
        {
            require(t.started, "OUTBID notice to L" + e.leaseId + " that has not started (13.17)");
        }
        final Lease lease = engine.lease(e.leaseId);
        require(lease != null, "PREEMPT_NOTICE of L" + e.leaseId + " unknown to the engine");
        require(e.effectiveMs == e.timeMs + lease.market.graceMs, "notice of L" + e.leaseId + " effective " +
            e.effectiveMs + ", expected now + graceMs = " + (e.timeMs + lease.market.graceMs));
        if (e.noticeReason == NoticeReason.INSUFFICIENT_FUNDS)
        {
            // 9, 13.26: only at a period end, after settling it
            require(t.started && (e.timeMs - t.startMs) % lease.market.prepayMs == 0 && e.timeMs > t.startMs &&
                t.settledMs == e.timeMs - t.startMs, "INSUFFICIENT_FUNDS notice to L" + e.leaseId + " at " + e.timeMs +
                ", not at a settled period end (started " + t.startMs + ")");
        }
        t.notice = e.noticeReason;
        t.effectiveMs = e.effectiveMs;
        t.noticedAt = e.timeMs;
    }

    void onLeaseEnded(final Event e)
    {
        final LeaseTrack t = live.remove(e.leaseId);
        require(t != null, "LEASE_ENDED of L" + e.leaseId + " that is not live" +
            (ended.contains(e.leaseId) ? " (ended twice)" : ""));
        ended.add(e.leaseId);
        require(e.cost == t.cost && e.fee == t.fee, "LEASE_ENDED L" + e.leaseId + " cost " + e.cost + " fee " + e.fee +
            ", but its SETTLED lines sum to " + t.cost + " and " + t.fee);
        final Lease lease = engine.lease(e.leaseId);
        require(lease != null, "LEASE_ENDED of L" + e.leaseId + " unknown to the engine");
        if (!t.started)
        {
            require(e.cost == 0, "L" + e.leaseId + " never started but cost " + e.cost);
        }
        else if (e.endReason == EndReason.MACHINE_OFFLINE)
        {
            // 13.27: billed up to its last heartbeat or its last settlement, whichever is later
            final long upToHeartbeat = Math.min(e.timeMs, lease.machine.lastHeartbeat) - t.startMs;
            require(t.settledMs == upToHeartbeat || (t.settledMs > upToHeartbeat && t.settledMs % lease.market.prepayMs == 0),
                "L" + e.leaseId + " ended MACHINE_OFFLINE at " + e.timeMs + " billed " + t.settledMs + " ms; last heartbeat " +
                lease.machine.lastHeartbeat + ", started " + t.startMs);
        }
        else
        {
            // billing runs from start to end
            require(t.settledMs == e.timeMs - t.startMs, "L" + e.leaseId + " ended " + e.endReason + " at " + e.timeMs +
                " billed " + t.settledMs + " ms, but ran " + (e.timeMs - t.startMs));
        }
        if (e.endReason == EndReason.EXPIRED)
        {
            require(t.started && lease.maxDurationMs > 0 && e.timeMs == t.startMs + lease.maxDurationMs, "L" + e.leaseId +
                " EXPIRED at " + e.timeMs + ", started " + t.startMs + ", maxDurationMs " + lease.maxDurationMs);
        }
        if (t.notice != null)
        {
            // invariant 5: the lease ends at or before the effective time ...
            require(e.timeMs <= t.effectiveMs, "L" + e.leaseId + " noticed (" + t.notice + ") effective " +
                t.effectiveMs + " but ended at " + e.timeMs + " (" + e.endReason + ")");
            final EndReason byNotice = t.notice.endReason();
            if (e.timeMs < t.effectiveMs)
            {
                noticesEndedEarly++;
                // ... and exactly then unless it ended earlier for another reason
                final boolean early = e.endReason == EndReason.RELEASED || e.endReason == EndReason.EXPIRED ||
                    e.endReason == EndReason.MACHINE_OFFLINE ||
                    (e.endReason == EndReason.PREEMPTED && t.notice == NoticeReason.OUTBID);
                require(early, "L" + e.leaseId + " noticed (" + t.notice + ") effective " + t.effectiveMs +
                    " ended early at " + e.timeMs + " with reason " + e.endReason);
                if (t.notice == NoticeReason.OUTBID && t.started)
                {
                    require(e.endReason != EndReason.RELEASED, "L" + e.leaseId +
                        ": a released OUTBID victim is reported PREEMPTED (13.21), not RELEASED");
                }
            }
            else
            {
                final boolean onTime = e.endReason == byNotice || e.endReason == EndReason.EXPIRED ||
                    e.endReason == EndReason.MACHINE_OFFLINE;
                require(onTime, "L" + e.leaseId + " noticed (" + t.notice + ") ended at its effective time " +
                    e.timeMs + " with reason " + e.endReason);
            }
        }
        else
        {
            require(e.endReason != EndReason.PREEMPTED && e.endReason != EndReason.OWNER_RECLAIMED &&
                e.endReason != EndReason.INSUFFICIENT_FUNDS, "L" + e.leaseId + " ended " + e.endReason +
                " without a notice");
        }
    }

    void checkLeases(final long now)
    {
        for (final Map.Entry<Long, Lease> entry : engine.leases.entrySet())
        {
            final Lease l = entry.getValue();
            final String lw = "L" + l.id;
            require(entry.getKey() == l.id, lw + " filed under id " + entry.getKey());
            require(l.state == Lease.PENDING || l.state == Lease.ACTIVE, lw + " is live in state " + l.state);
            require(l.renter != null && l.owner == l.machine.owner && l.market == l.machine.market, lw + ": parties");
            require(l.renter != l.owner, lw + ": renter is the owner (self-trade)");
            require(l.gpus > 0 && l.price > 0, lw + ": gpus " + l.gpus + " price " + l.price);
            require(l.machine.online, lw + " is live on offline machine " + l.machine.name);
            require(l.hold >= 0, lw + ": negative hold");
            int sourceGpus = 0;
            int waiting = 0;
            final Map<Lease, Integer> fromVictim = new IdentityHashMap<>();
            for (int i = 0; i < l.sourceCount; i++)
            {
                require(l.sourceGpus[i] > 0, lw + ": source " + i + " of " + l.sourceGpus[i] + " GPUs");
                sourceGpus += l.sourceGpus[i];
                final Order ask = l.sourceAsk[i];
                if (ask != null && ask.open && ask.uid == l.sourceAskUid[i])
                {
                    require(ask.machine == l.machine, lw + ": source ask on another machine");
                    require(ask.clientOrderId == l.sourceAskOrderId[i], lw + ": source ask id changed");
                }
                final Lease v = l.sourceVictim[i];
                if (v != null)
                {
                    waiting++;
                    fromVictim.merge(v, l.sourceGpus[i], Integer::sum);
                }
            }
            require(sourceGpus == l.gpus, lw + ": sources give " + sourceGpus + " GPUs, lease has " + l.gpus);
            require(waiting == l.waitingSources, lw + ": waitingSources " + l.waitingSources + ", " + waiting +
                " sources wait");
            if (l.state == Lease.ACTIVE)
            {
                require(waiting == 0, lw + " is running but still waits for a victim");
                require(l.startMs <= now, lw + " started in the future");
            }
            else
            {
                require(waiting > 0, lw + " is pending on online machine " + l.machine.name +
                    " but waits for no victim");
                require(l.settledMs == 0 && l.totalCost == 0, lw + " is pending but billed");
            }
            for (final Map.Entry<Lease, Integer> vg : fromVictim.entrySet())
            {
                final Lease v = vg.getKey();
                final String vw = lw + "'s victim L" + v.id;
                require(engine.leases.get(v.id) == v, vw + " is not live");
                require(v.state == Lease.ACTIVE, vw + " is not running");
                require(v.notice == NoticeReason.OUTBID, vw + " has notice " + v.notice);
                require(v.successor == l, vw + " names another successor");
                require(v.successorGpus == vg.getValue(), vw + ": successorGpus " + v.successorGpus + ", " + lw +
                    " takes " + vg.getValue());
                require(v.machine == l.machine, vw + " is on another machine");
                require(v.price <= l.market.preemptLimit(l.price),
                    vw + " at " + v.price + " was preempted by a bid at " + l.price);
                require(v.renter != l.renter && v.owner != l.renter, vw + ": the bidder preempted its own lease");
            }
            if (l.successor != null)
            {
                require(l.notice == NoticeReason.OUTBID, lw + " has a successor but notice " + l.notice);
                require(engine.leases.get(l.successor.id) == l.successor && l.successor.state == Lease.PENDING,
                    lw + "'s successor L" + l.successor.id + " is not pending");
                require(l.successorGpus > 0 && l.successorGpus <= l.gpus, lw + ": successorGpus " + l.successorGpus);
            }

            // notice, expiry and period timers
            if (l.notice != null)
            {
                require(l.effectiveMs > now, lw + ": notice effective " + l.effectiveMs + " has passed at " + now);
                require(timerOk(l.noticeTimer, Timer.LEASE_NOTICE, l, l.effectiveMs), lw + ": bad notice timer");
            }
            else
            {
                require(l.noticeTimer == null, lw + ": notice timer without a notice");
            }
            final Market market = l.market;
            if (l.state == Lease.ACTIVE)
            {
                if (l.maxDurationMs > 0)
                {
                    require(l.startMs + l.maxDurationMs > now, lw + " outlived its maximum duration");
                    require(timerOk(l.expiryTimer, Timer.LEASE_EXPIRY, l, l.startMs + l.maxDurationMs),
                        lw + ": bad expiry timer");
                }
                else
                {
                    require(l.expiryTimer == null, lw + ": expiry timer without a maximum duration");
                }
                require(l.settledMs % market.prepayMs == 0, lw + ": settled " + l.settledMs + " ms, not a whole period");
                require(timerOk(l.periodTimer, Timer.LEASE_PERIOD, l, l.startMs + l.settledMs + market.prepayMs),
                    lw + ": bad period timer (settled " + l.settledMs + ")");
                require(l.startMs + l.settledMs + market.prepayMs > now, lw + ": a period end has passed unsettled");
                // funds: the hold covers every charge the lease can still incur
                long horizon = l.notice != null ? l.effectiveMs - l.startMs : l.settledMs + market.prepayMs + market.graceMs;
                if (l.maxDurationMs > 0)
                {
                    horizon = Math.min(horizon, l.maxDurationMs);
                }
                final long required = cost(l.gpus, l.price, horizon) - cost(l.gpus, l.price, l.settledMs);
                if (l.notice == null)
                {
                    require(l.hold == required, lw + ": hold " + l.hold + ", expected the next period and grace: " +
                        required);
                }
                else
                {
                    require(l.hold >= required, lw + ": hold " + l.hold + " does not cover the charges up to its " +
                        "effective time: " + required);
                }
            }
            else
            {
                require(l.expiryTimer == null && l.periodTimer == null, lw + " is pending but has expiry/period timers");
                final long hold = cost(l.gpus, l.price, holdMs(market, l.maxDurationMs));
                require(l.hold == hold, lw + " (pending): hold " + l.hold + ", expected " + hold);
            }
        }
    }

    private static boolean timerOk(final Timer t, final int kind, final Object target, final long due)
    {
        return t != null && t.scheduled() && t.kind == kind && t.target == target && t.dueMs == due;
    }

    void checkLeaseIndex()
    {
        int indexed = 0;
        for (final Market m : engine.markets.values())
        {
            final LeaseIndex index = m.preemptible;
            long prevPrice = Long.MIN_VALUE;
            for (int i = 0; i < index.levelCount(); i++)
            {
                require(index.priceAt(i) > prevPrice, m.name + ": preemptible index out of price order");
                prevPrice = index.priceAt(i);
                Lease prev = null;
                require(index.firstAt(i) != null, m.name + ": empty preemptible level");
                for (Lease l = index.firstAt(i); l != null; l = l.nextInIndex())
                {
                    indexed++;
                    final String lw = m.name + " preemptible L" + l.id;
                    require(engine.leases.get(l.id) == l, lw + " is not live");
                    require(l.market == m && l.price == index.priceAt(i), lw + ": wrong market or price level");
                    require(l.state == Lease.ACTIVE && l.notice == null, lw + " is not a running lease without notice");
                    if (prev != null)
                    {
                        require(prev.startMs > l.startMs || (prev.startMs == l.startMs && prev.id > l.id),
                            lw + " out of victim order after L" + prev.id);
                    }
                    prev = l;
                }
            }
        }
        int shouldBe = 0;
        for (final Lease l : engine.leases.values())
        {
            final boolean should = l.state == Lease.ACTIVE && l.notice == null;
            require(l.preemptible() == should, "L" + l.id + ": preemptible() " + l.preemptible() + ", expected " + should);
            if (should)
            {
                shouldBe++;
            }
        }
        require(indexed == shouldBe, indexed + " leases in the preemptible index, expected " + shouldBe);
    }

    /** The events' view of the live leases agrees with the engine's. */
    void checkEventView(final long now)
    {
        final TreeSet<Long> engineIds = new TreeSet<>();
        for (final Lease l : engine.leases.values())
        {
            engineIds.add(l.id);
        }
        require(engineIds.equals(live.keySet()), "live leases: engine " + engineIds + ", events " + live.keySet());
        for (final LeaseTrack t : live.values())
        {
            final Lease l = engine.leases.get(t.id);
            require(t.started == (l.state == Lease.ACTIVE), "L" + t.id + ": started per events " + t.started +
                ", state " + l.state);
            if (t.started)
            {
                require(l.startMs == t.startMs && l.gpus == t.gpus && l.price == t.price && l.settledMs == t.settledMs &&
                    l.totalCost == t.cost && l.totalFee == t.fee, "L" + t.id + " differs from what its events said");
            }
            require(l.notice == t.notice && (t.notice == null || l.effectiveMs == t.effectiveMs),
                "L" + t.id + ": notice " + l.notice + " but events said " + t.notice);
            if (t.notice != null)
            {
                // invariant 5: not ended yet, so the effective time is still ahead
                require(t.effectiveMs > now, "L" + t.id + " noticed effective " + t.effectiveMs + " still runs at " + now);
            }
        }
    }
}
