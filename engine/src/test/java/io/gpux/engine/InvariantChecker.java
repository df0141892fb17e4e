package io.gpux.engine;

import io.gpux.common.Money;
import io.gpux.engine.book.BookSide;
import io.gpux.engine.book.Order;
import io.gpux.engine.book.PriceLevel;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.TimeInForce;
import io.gpux.engine.event.EndReason;
import io.gpux.engine.event.Event;
import io.gpux.engine.event.EventSink;
import io.gpux.engine.event.EventType;
import io.gpux.engine.event.NoticeReason;
import io.gpux.engine.funds.Account;
import io.gpux.engine.lease.Lease;
import io.gpux.engine.lease.LeaseIndex;
import io.gpux.engine.machine.Machine;
import io.gpux.engine.machine.Reliability;
import io.gpux.engine.market.Market;
import io.gpux.engine.timer.Timer;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Checks the rulebook's invariants (section 12) and the engine's structural consistency, from the
 * engine's state after a command and from the events it emitted (fed through {@link #onEvent(Event)},
 * e.g. with {@link #tee(EventSink)}).
 *
 * <p>State checks ({@link #check()}): per-machine capacity (offered + held by leases &lt;= gpus, with
 * {@code Machine.offered}/{@code leased} recomputed from asks and leases), no crossed book among orders
 * that could match, money conservation against the deposits seen, per-account balances against a
 * ledger rebuilt from {@code SETTLED} events, holds ({@code held} = bids' holds + leases' holds, each
 * bid's hold exact, each lease's hold covering every charge it can still incur), and the consistency of
 * books, account order lists, machine ask and lease lists, the preemptible-lease index and timers.
 *
 * <p>Event checks: sequence numbers and times, each recipient account's event numbers (gap-free, each
 * linked back to the account's previous event, and the account's last number and event in its state), settlement arithmetic (cost formula, fee, period,
 * {@code LEASE_ENDED} totals), at most one notice per lease, and invariant 5 (a noticed lease ends at or
 * before its effective time, exactly then unless it ended earlier for another reason).
 *
 * <p>Every failure is an {@link AssertionError} naming what is wrong.
 */
public final class InvariantChecker
{
    private static final BigInteger MS_PER_HOUR = BigInteger.valueOf(3_600_000L);
    private static final BigInteger HUNDRED = BigInteger.valueOf(100);
    private static final long PPB_ONE = 1_000_000_000L;

    private final MatchingEngine engine;

    /** Money put in by accepted deposits. */
    private long deposits;
    /** Per account: deposits, less charges as renter, plus (charge - fee) as owner. */
    private final Map<Long, Long> ledger = new HashMap<>();
    private long feesFromEvents;
    /** Deposits announced by {@link #expectDeposit} and not yet confirmed by a BALANCE event. */
    private final Map<Long, Long> pendingDeposits = new HashMap<>();

    private long lastSequence;
    /** Per account: its last event number and that event's sequence, from the events. */
    private final Map<Long, long[]> accountEvents = new HashMap<>();
    private final long[] recipients = new long[2];
    private long lastEventTime = Long.MIN_VALUE;
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

    public InvariantChecker(final MatchingEngine engine)
    {
        this.engine = engine;
    }

    /** An event sink that feeds this checker, then the downstream sink. */
    public EventSink tee(final EventSink downstream)
    {
        return e ->
        {
            onEvent(e);
            if (downstream != null)
            {
                downstream.onEvent(e);
            }
        };
    }

    /** Announces the DEPOSIT about to be applied; its BALANCE event (if accepted) confirms it. */
    public void expectDeposit(final long accountId, final long amount)
    {
        pendingDeposits.put(accountId, amount);
    }

    public long notices()
    {
        return notices;
    }

    public long noticesEndedEarly()
    {
        return noticesEndedEarly;
    }

    public long settlements()
    {
        return settlements;
    }

    public long deposits()
    {
        return deposits;
    }

    // ------------------------------------------------------------------------------------------ events

    public void onEvent(final Event e)
    {
        require(e.sequence == lastSequence + 1, "event sequence " + e.sequence + " after " + lastSequence);
        lastSequence = e.sequence;
        require(e.timeMs >= lastEventTime, "event time " + e.timeMs + " after " + lastEventTime + " (" + e.type + ")");
        lastEventTime = e.timeMs;
        checkNumbers(e);
        switch (e.type)
        {
            case BALANCE -> onBalance(e);
            case FILL -> onFill(e);
            case LEASE_STARTED -> onLeaseStarted(e);
            case SETTLED -> onSettled(e);
            case PREEMPT_NOTICE -> onNotice(e);
            case LEASE_ENDED -> onLeaseEnded(e);
            case MACHINE_ONLINE, MACHINE_OFFLINE -> onMachine(e);
            default ->
            {
            }
        }
    }

    private void checkNumbers(final Event e)
    {
        final int n = io.gpux.engine.event.Recipients.of(e, recipients);
        for (int i = 0; i < n; i++)
        {
            final Account a = engine.account(recipients[i]);
            if (a == null)
            {
                require(e.accountSeq(i) == 0, e.type + " " + e.sequence + " numbered for account " + recipients[i] + " the engine does not hold");
                continue;
            }
            final long[] last = accountEvents.computeIfAbsent(a.id, k -> new long[2]);
            require(e.accountSeq(i) == last[0] + 1 && e.previous(i) == last[1], e.type + " " + e.sequence + " is account " +
                a.id + "'s event " + e.accountSeq(i) + " after " + e.previous(i) + ", not " + (last[0] + 1) + " after " + last[1]);
            last[0] = e.accountSeq(i);
            last[1] = e.sequence;
            require(a.lastSeq == last[0] && a.lastEventSequence == last[1], "account " + a.id + " holds event " + a.lastSeq +
                " at " + a.lastEventSequence + ", its events say " + last[0] + " at " + last[1]);
        }
    }

    private void onBalance(final Event e)
    {
        final Long amount = pendingDeposits.remove(e.accountId);
        require(amount != null, "BALANCE of account " + e.accountId + " without a deposit");
        deposits += amount;
        final long balance = ledger.merge(e.accountId, amount, Long::sum);
        require(e.balance == balance, "BALANCE of account " + e.accountId + ": balance " + e.balance +
            ", ledger says " + balance);
        final Account a = engine.account(e.accountId);
        require(e.available == a.balance - a.held, "BALANCE available " + e.available + " != balance - held");
    }

    private void onFill(final Event e)
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
        require(e.gpus > 0 && e.price > 0, "FILL with gpus " + e.gpus + " price " + e.price);
        secondOfPair = !secondOfPair;
        if (secondOfPair)
        {
            checkFillPriority(e);
        }
    }

    /** FILL lines come in pairs, the incoming order's first. */
    private boolean secondOfPair;
    private long plainFills;

    public long plainFills()
    {
        return plainFills;
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

    private void onLeaseStarted(final Event e)
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

    private void onSettled(final Event e)
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
        ledger.merge(e.renterId, -charge, Long::sum);
        ledger.merge(e.ownerId, charge - fee, Long::sum);
        feesFromEvents += fee;
    }

    private void onNotice(final Event e)
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

    private void onLeaseEnded(final Event e)
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

    private long preemptionFills;

    public long preemptionFills()
    {
        return preemptionFills;
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

    /** Exchange outages (L, T], as RESTART commands ended them (docs/market-rules.md section 14). */
    private final List<long[]> outages = new ArrayList<>();
    private long lastRestartSeen = Long.MIN_VALUE;
    private long lastCheckedTime = Long.MIN_VALUE;

    /** Per machine: times of its state changes, from MACHINE_ONLINE / MACHINE_OFFLINE (alternating). */
    private final Map<Long, List<long[]>> transitions = new HashMap<>();

    private void onMachine(final Event e)
    {
        final boolean online = e.type == EventType.MACHINE_ONLINE;
        final List<long[]> list = transitions.computeIfAbsent(e.machineId, k -> new ArrayList<>());
        final boolean wasOnline = !list.isEmpty() && list.get(list.size() - 1)[1] == 1;
        require(online != wasOnline, "machine " + e.machineId + ": " + e.type + " twice in a row");
        list.add(new long[]{e.timeMs, online ? 1 : 0});
    }

    /**
     * Sections 8 and 13.29, recomputed from the machine's MACHINE_ONLINE/OFFLINE history: online time over
     * online + offline time since the first heartbeat, within the current UTC day and the 89 before it, as
     * of the last recompute point (a state change, the 24-hour mark, a day boundary); at most 0.95 in the
     * first 24 hours; 1 with no history. Time offline inside an exchange outage counts neither way.
     *
     * @return {numerator, denominator}
     */
    private long[] expectedReliability(final Machine m, final long now)
    {
        final List<long[]> list = transitions.getOrDefault(m.id, List.of());
        final long day = Reliability.DAY_MS;
        long at = Long.MIN_VALUE;
        if (!list.isEmpty())
        {
            at = list.get(list.size() - 1)[0];
        }
        final long lastBoundary = Math.floorDiv(now, day) * day;
        if (lastBoundary > m.registeredAt)
        {
            at = Math.max(at, lastBoundary);
        }
        if (m.registeredAt + day <= now)
        {
            at = Math.max(at, m.registeredAt + day);
        }
        if (at == Long.MIN_VALUE)
        {
            return new long[]{19, 20};
        }
        final long windowStart = (Math.floorDiv(at, day) - 89) * day;
        long online = 0;
        long total = 0;
        for (int i = 0; i < list.size() && list.get(i)[0] < at; i++)
        {
            final long from = Math.max(list.get(i)[0], windowStart);
            final long to = i + 1 < list.size() ? Math.min(list.get(i + 1)[0], at) : at;
            if (to > from)
            {
                if (list.get(i)[1] == 1)
                {
                    online += to - from;
                    total += to - from;
                }
                else
                {
                    total += to - from - inOutages(from, to);
                }
            }
        }
        long num = total == 0 ? 1 : online;
        long den = total == 0 ? 1 : total;
        if (at - m.registeredAt < day && num * 20 > den * 19)
        {
            num = 19;
            den = 20;
        }
        return new long[]{num, den};
    }

    private long inOutages(final long from, final long to)
    {
        long overlap = 0;
        for (final long[] o : outages)
        {
            overlap += Math.max(0, Math.min(to, o[1]) - Math.max(from, o[0]));
        }
        return overlap;
    }

    private final Set<Long> gangLeasesChecked = new HashSet<>();
    private long gangPreemptions;

    public long gangPreemptions()
    {
        return gangPreemptions;
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

    // ------------------------------------------------------------------------------------------- state

    /** Checks everything that can be checked from the state after a command. */
    public void check()
    {
        final long now = engine.lastCommandTime;
        if (engine.restartedAtMs != lastRestartSeen)
        {
            // a RESTART: the outage runs from the command checked before it to its own time
            outages.add(new long[]{lastCheckedTime, engine.restartedAtMs});
            lastRestartSeen = engine.restartedAtMs;
        }
        lastCheckedTime = now;
        pendingDeposits.clear(); // a rejected DEPOSIT prints no BALANCE and adds nothing
        checkMoney();
        final Map<Order, Long> inBook = checkBooks();
        checkAccounts(inBook);
        checkMachines(now);
        checkLeases(now);
        checkLeaseIndex();
        checkAccountIndexes();
        checkTimers(now);
        checkEventView(now);
        checkNotCrossed();
    }

    private void checkMoney()
    {
        long balances = 0;
        for (final Account a : engine.accounts.values())
        {
            balances += a.balance;
            require(a.balance >= 0, a.name + ": negative balance " + a.balance);
            require(a.held >= 0, a.name + ": negative held " + a.held);
            require(a.held <= a.balance, a.name + ": held " + a.held + " > balance " + a.balance + " (available < 0)");
            final long expected = ledger.getOrDefault(a.id, 0L);
            require(a.balance == expected, a.name + ": balance " + a.balance + ", but deposits and SETTLED events give " +
                expected);
        }
        require(engine.exchangeFees == feesFromEvents, "exchange fees " + engine.exchangeFees +
            ", SETTLED fees sum to " + feesFromEvents);
        require(balances + engine.exchangeFees == deposits, "money not conserved: balances " + balances + " + fees " +
            engine.exchangeFees + " != deposits " + deposits);
        require(engine.totalMoney() == deposits, "totalMoney() " + engine.totalMoney() + " != deposits " + deposits);
    }

    /** Walks every book; returns each booked order with the price of its level. */
    private Map<Order, Long> checkBooks()
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

    private void checkAccounts(final Map<Order, Long> inBook)
    {
        int shouldBeInBook = 0;
        for (final Account a : engine.accounts.values())
        {
            int n = 0;
            long bidHolds = 0;
            long prevSeq = Long.MIN_VALUE;
            Order prev = null;
            for (Order o = a.firstOpen; o != null; o = o.accountNext)
            {
                final String ow = a.name + " order " + o.clientOrderId + " (uid " + o.uid + ")";
                n++;
                require(n <= a.openOrders.size() + 1, a.name + ": open-order list longer than its map (a cycle?)");
                require(o.open, ow + " is in the account's list but closed");
                require(o.account == a, ow + " belongs to another account");
                require(a.openOrders.get(o.clientOrderId) == o, ow + " is not reachable by its client order id");
                require(o.accountPrev == prev, ow + ": broken account list back link");
                require(o.acceptSeq > prevSeq, ow + ": account list out of acceptance order");
                require(o.priority >= o.acceptSeq, ow + ": priority older than its acceptance");
                require(o.tif == TimeInForce.GTC, ow + " is " + o.tif + " but still open (IOC/FOK close right after entry)");
                prevSeq = o.acceptSeq;
                prev = o;
                final boolean booked = o.inBook();
                require(booked == inBook.containsKey(o), ow + ": inBook() " + booked + " but book walk says " + !booked);
                if (o.bid)
                {
                    require(o.machine == null, ow + ": a bid with a machine");
                    require(o.openGpus > 0, ow + ": an open bid with " + o.openGpus + " open GPUs (a filled bid closes)");
                    require(booked, ow + ": an open bid is not in the book");
                    final long hold = cost(o.openGpus, o.price, holdMs(o.market, o.maxDurationMs));
                    require(o.hold == hold, ow + ": bid hold " + o.hold + ", expected " + hold + " for " + o.openGpus +
                        " GPUs at " + o.price);
                    bidHolds += o.hold;
                    shouldBeInBook++;
                }
                else
                {
                    final Machine m = o.machine;
                    require(m != null && m.owner == a, ow + ": an ask on a machine of another owner");
                    require(o.market == m.market, ow + ": ask market is not its machine's market");
                    require(o.openGpus >= 0, ow + ": negative open GPUs");
                    require(o.hold == 0, ow + ": an ask with a hold");
                    require(!o.gang, ow + ": a gang ask");
                    final boolean shouldBook = o.openGpus > 0 && m.online;
                    require(booked == shouldBook, ow + ": in book " + booked + ", but openGpus " + o.openGpus +
                        " machine online " + m.online);
                    if (shouldBook)
                    {
                        shouldBeInBook++;
                    }
                    boolean onMachine = false;
                    for (Order x = m.firstAsk; x != null; x = x.machineNext)
                    {
                        onMachine |= x == o;
                    }
                    require(onMachine, ow + ": not in its machine's ask list");
                }
            }
            require(a.lastOpen == prev, a.name + ": lastOpen is not the end of its list");
            require(n == a.openOrders.size(), a.name + ": " + n + " orders in its list, " + a.openOrders.size() +
                " in its map");
            long leaseHolds = 0;
            for (final Lease l : engine.leases.values())
            {
                if (l.renter == a)
                {
                    leaseHolds += l.hold;
                }
            }
            require(a.held == bidHolds + leaseHolds, a.name + ": held " + a.held + " != bid holds " + bidHolds +
                " + lease holds " + leaseHolds);
        }
        require(inBook.size() == shouldBeInBook, "books hold " + inBook.size() + " orders, " + shouldBeInBook +
            " open orders should be in them");
    }

    private void checkMachines(final long now)
    {
        int leasesOnMachines = 0;
        for (final Machine m : engine.machines.values())
        {
            int offered = 0;
            long prevSeq = Long.MIN_VALUE;
            Order prev = null;
            for (Order o = m.firstAsk; o != null; o = o.machineNext)
            {
                require(o.open && !o.bid && o.machine == m, m.name + ": ask list holds a closed order or a stranger");
                require(o.account.openOrders.get(o.clientOrderId) == o, m.name + ": ask " + o.clientOrderId +
                    " not reachable from its account");
                require(o.machinePrev == prev, m.name + ": broken ask list back link");
                require(o.acceptSeq > prevSeq, m.name + ": ask list out of acceptance order");
                prevSeq = o.acceptSeq;
                prev = o;
                offered += o.openGpus;
            }
            require(m.lastAsk == prev, m.name + ": lastAsk is not the end of its list");
            int held = 0;
            long prevId = 0;
            Lease prevLease = null;
            for (Lease l = m.firstLease; l != null; l = l.machineNext)
            {
                leasesOnMachines++;
                require(engine.leases.get(l.id) == l, m.name + ": lease L" + l.id + " on the machine is not live");
                require(l.machine == m, m.name + ": lease L" + l.id + " belongs to another machine");
                require(l.machinePrev == prevLease, m.name + ": broken lease list back link");
                require(l.id > prevId, m.name + ": lease list out of id order");
                prevId = l.id;
                prevLease = l;
                if (l.state == Lease.ACTIVE)
                {
                    held += l.gpus;
                }
                else
                {
                    // a pending lease holds only the GPUs it took free; a victim's GPUs are the victim's until it ends
                    for (int i = 0; i < l.sourceCount; i++)
                    {
                        if (l.sourceVictim[i] == null)
                        {
                            held += l.sourceGpus[i];
                        }
                    }
                }
            }
            require(m.lastLease == prevLease, m.name + ": lastLease is not the end of its list");
            require(m.offered == offered, m.name + ": offered " + m.offered + ", its open asks offer " + offered);
            require(m.leased == held, m.name + ": leased " + m.leased + ", its leases hold " + held);
            // invariant 1
            require(offered + held <= m.gpus, m.name + ": offered " + offered + " + leased " + held + " > " + m.gpus +
                " GPUs");
            require(m.spare() >= 0, m.name + ": negative spare");
            // reliability as last recomputed: a fraction in [0, 1], at most 0.95 in the first 24 hours
            require(m.relDen > 0 && m.relNum >= 0 && m.relNum <= m.relDen, m.name + ": reliability " + m.relNum + "/" +
                m.relDen);
            if (now - m.registeredAt < Reliability.DAY_MS)
            {
                require(BigInteger.valueOf(m.relNum).multiply(BigInteger.valueOf(20))
                    .compareTo(BigInteger.valueOf(m.relDen).multiply(BigInteger.valueOf(19))) <= 0,
                    m.name + ": younger than 24 hours but reliability " + m.relNum + "/" + m.relDen + " > 0.95");
            }
            final long[] rel = expectedReliability(m, now);
            require(BigInteger.valueOf(m.relNum).multiply(BigInteger.valueOf(rel[1]))
                .equals(BigInteger.valueOf(rel[0]).multiply(BigInteger.valueOf(m.relDen))), m.name + ": reliability " +
                m.relNum + "/" + m.relDen + ", its online/offline history gives " + rel[0] + "/" + rel[1]);
            // heartbeat timeout
            if (m.online && engine.heartbeatTimeoutMs > 0)
            {
                // silent since the last restart: the longer of one timeout and the restart window from it
                final long deadline = m.lastHeartbeat < engine.restartedAtMs ?
                    engine.restartedAtMs + Math.max(engine.heartbeatTimeoutMs, engine.restartWindowMs) :
                    m.lastHeartbeat + engine.heartbeatTimeoutMs;
                require(deadline > now, m.name + ": online at " + now + " but its last heartbeat was " + m.lastHeartbeat +
                    " (timeout " + engine.heartbeatTimeoutMs + ", last restart " + engine.restartedAtMs + ", restart window " +
                    engine.restartWindowMs + ")");
                require(m.timeoutTimer != null && m.timeoutTimer.scheduled() && m.timeoutTimer.target == m &&
                    m.timeoutTimer.kind == Timer.MACHINE_TIMEOUT, m.name + ": online without a timeout timer");
                require(m.timeoutTimer.dueMs == deadline, m.name + ": timeout timer due at " + m.timeoutTimer.dueMs +
                    ", its heartbeats and the last restart give " + deadline);
            }
            else
            {
                require(m.timeoutTimer == null, m.name + ": timeout timer while offline or with the timeout disabled");
            }
            require(m.dayTimer != null && m.dayTimer.scheduled(), m.name + ": no day-boundary timer");
            if (m.birthdayTimer != null)
            {
                require(m.birthdayTimer.scheduled() && m.birthdayTimer.dueMs == m.registeredAt + Reliability.DAY_MS,
                    m.name + ": stale 24-hour timer");
            }
            else
            {
                require(now >= m.registeredAt + Reliability.DAY_MS, m.name + ": 24-hour timer gone before 24 hours");
            }
        }
        require(leasesOnMachines == engine.leases.size(), leasesOnMachines + " leases on machines, " +
            engine.leases.size() + " live leases");
    }

    private void checkLeases(final long now)
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

    private void checkLeaseIndex()
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

    /**
     * Each account's lists of its leases as renter, as owner, and of its machines hold exactly what a walk
     * of every lease and machine finds, in id order, with counts and back links that agree. Needs no
     * events: it also checks an engine just restored from a snapshot.
     */
    void checkAccountIndexes()
    {
        final Map<Account, List<Long>> rented = new HashMap<>();
        final Map<Account, List<Long>> owned = new HashMap<>();
        final Map<Account, List<Long>> machines = new HashMap<>();
        final Lease[] leases = engine.leases.values().toArray(new Lease[0]);
        java.util.Arrays.sort(leases, java.util.Comparator.comparingLong(l -> l.id));
        for (final Lease l : leases)
        {
            rented.computeIfAbsent(l.renter, a -> new ArrayList<>()).add(l.id);
            owned.computeIfAbsent(l.machine.owner, a -> new ArrayList<>()).add(l.id);
        }
        final Machine[] all = engine.machines.values().toArray(new Machine[0]);
        java.util.Arrays.sort(all, java.util.Comparator.comparingLong(m -> m.id));
        for (final Machine m : all)
        {
            machines.computeIfAbsent(m.owner, a -> new ArrayList<>()).add(m.id);
        }
        for (final Account a : engine.accounts.values())
        {
            checkList(a.name + ": rented leases", a.firstRented, l -> l.renterNext, l -> l.renterPrev, l -> l.id,
                l -> engine.leases.get(l.id) == l, rented.getOrDefault(a, List.of()), a.rentedLeaseCount());
            checkList(a.name + ": owned leases", a.firstOwned, l -> l.ownerNext, l -> l.ownerPrev, l -> l.id,
                l -> engine.leases.get(l.id) == l, owned.getOrDefault(a, List.of()), a.ownedLeaseCount());
            checkList(a.name + ": machines", a.firstMachine, m -> m.ownerNext, m -> m.ownerPrev, m -> m.id,
                m -> engine.machines.get(m.id) == m, machines.getOrDefault(a, List.of()), a.machineCount());
        }
    }

    /** An intrusive list holds the expected ids in order, its entries live, its back links and count right. */
    private static <T> void checkList(
        final String what, final T first, final java.util.function.UnaryOperator<T> next,
        final java.util.function.UnaryOperator<T> prev, final java.util.function.ToLongFunction<T> id,
        final java.util.function.Predicate<T> live, final List<Long> expected, final int count)
    {
        final List<Long> ids = new ArrayList<>();
        T before = null;
        for (T x = first; x != null && ids.size() <= expected.size(); x = next.apply(x))
        {
            require(prev.apply(x) == before, what + ": " + id.applyAsLong(x) + " links back to the wrong entry");
            require(live.test(x), what + ": " + id.applyAsLong(x) + " is not live");
            ids.add(id.applyAsLong(x));
            before = x;
        }
        require(ids.equals(expected), what + " " + ids + ", expected " + expected);
        require(count == ids.size(), what + ": count " + count + ", expected " + ids.size());
    }

    private void checkTimers(final long now)
    {
        for (final Timer t : engine.timers.sorted())
        {
            require(t.dueMs > now, "timer kind " + t.kind + " due " + t.dueMs + " has not fired at " + now);
            if (t.target instanceof Lease l)
            {
                require(engine.leases.get(l.id) == l, "timer kind " + t.kind + " targets a lease that is not live");
                final Timer field = switch (t.kind)
                {
                    case Timer.LEASE_NOTICE -> l.noticeTimer;
                    case Timer.LEASE_EXPIRY -> l.expiryTimer;
                    case Timer.LEASE_PERIOD -> l.periodTimer;
                    default -> null;
                };
                require(field == t, "stale lease timer kind " + t.kind + " on L" + l.id);
            }
            else if (t.target instanceof Machine m)
            {
                require(engine.machines.get(m.id) == m, "timer for an unknown machine");
                final Timer field = switch (t.kind)
                {
                    case Timer.MACHINE_TIMEOUT -> m.timeoutTimer;
                    case Timer.MACHINE_BIRTHDAY -> m.birthdayTimer;
                    case Timer.MACHINE_DAY -> m.dayTimer;
                    default -> null;
                };
                require(field == t, "stale machine timer kind " + t.kind + " on " + m.name);
            }
            else
            {
                throw new AssertionError("timer kind " + t.kind + " with target " + t.target);
            }
        }
    }

    /** The events' view of the live leases agrees with the engine's. */
    private void checkEventView(final long now)
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

    /** Invariant 2: no resting bid and resting ask that could match each other cross (markets not halted). */
    private void checkNotCrossed()
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

    private static List<Order> orders(final BookSide side)
    {
        final List<Order> list = new ArrayList<>();
        for (int rank = 0; rank < side.levelCount(); rank++)
        {
            for (Order o = side.level(rank).head(); o != null; o = o.nextInLevel())
            {
                list.add(o);
            }
        }
        return list;
    }

    /** Whether the ask's machine may fill the bid (13.15, 13.16, self-trade), recomputed here. */
    static boolean couldMatch(final Order bid, final Order ask)
    {
        final Machine machine = ask.machine;
        if (!machine.online || ask.openGpus <= 0 || bid.openGpus <= 0 || bid.account == ask.account)
        {
            return false;
        }
        return eligible(bid, machine) && (!bid.gang || ask.openGpus >= bid.openGpus);
    }

    /** Whether a machine satisfies a bid's constraints and is not the bidder's own. */
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
        if (bid.minReliabilityPpb >= 0)
        {
            final BigInteger lhs = BigInteger.valueOf(machine.relNum).multiply(BigInteger.valueOf(PPB_ONE));
            final BigInteger rhs = BigInteger.valueOf(bid.minReliabilityPpb).multiply(BigInteger.valueOf(machine.relDen));
            return lhs.compareTo(rhs) >= 0;
        }
        return true;
    }

    // ------------------------------------------------------------------------------------------ helpers

    /** Section 1's cost formula, computed independently of the engine's Money class. */
    static long cost(final int gpus, final long priceTicks, final long elapsedMs)
    {
        if (elapsedMs <= 0)
        {
            return 0;
        }
        return BigInteger.valueOf(gpus).multiply(BigInteger.valueOf(priceTicks)).multiply(HUNDRED)
            .multiply(BigInteger.valueOf(elapsedMs)).divide(MS_PER_HOUR).longValueExact();
    }

    /** 13.25: prepay + grace, or the maximum duration if shorter. */
    static long holdMs(final Market market, final long maxDurationMs)
    {
        final long ms = market.prepayMs + market.graceMs;
        return maxDurationMs > 0 ? Math.min(ms, maxDurationMs) : ms;
    }

    private static void require(final boolean ok, final String what)
    {
        if (!ok)
        {
            throw new AssertionError(what);
        }
    }
}
