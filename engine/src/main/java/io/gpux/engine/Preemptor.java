package io.gpux.engine;

import io.gpux.engine.book.Order;
import io.gpux.engine.event.NoticeReason;
import io.gpux.engine.lease.Lease;
import io.gpux.engine.lease.LeaseIndex;
import io.gpux.engine.machine.Machine;
import io.gpux.engine.market.Market;

import java.util.Arrays;

/**
 * Preemption (rulebook section 6 and 13.17-20): what a bid's remainder takes from running leases
 * priced at least minIncrement below it, lowest price first, then most recently started, then
 * highest lease id; a gang bid from the one machine where it preempts the fewest GPUs.
 */
final class Preemptor
{
    private final MatchingEngine engine;
    private Lease[] victims = new Lease[16];
    private int victimCount;
    private Lease[] candidateVictims = new Lease[16];
    private Machine[] machinesSeen = new Machine[16];
    private Order[] freeAsks = new Order[16];
    private int[] freeTaken = new int[16];
    private int[] victimTaken = new int[16];

    Preemptor(final MatchingEngine engine)
    {
        this.engine = engine;
    }

    static boolean victimEligible(final Order bid, final Lease lease)
    {
        return lease.renter != bid.account && lease.owner != bid.account && Matcher.eligible(bid, lease.machine);
    }

    /** GPUs that preemption could give a plain (non-gang) bid now, counting up to {@code enough} (at most that). */
    int preemptible(final Order bid, final long price, final int enough)
    {
        final Market market = bid.market;
        final long limit = market.preemptLimit(price);
        final LeaseIndex index = market.preemptible;
        long found = 0; // leases of up to Integer.MAX_VALUE GPUs each: their sum may not fit an int
        for (int i = 0; i < index.levelCount() && index.priceAt(i) <= limit; i++)
        {
            for (Lease lease = index.firstAt(i); lease != null; lease = lease.nextInIndex())
            {
                if (victimEligible(bid, lease))
                {
                    found += lease.gpus;
                    if (found >= enough)
                    {
                        return enough;
                    }
                }
            }
        }
        return (int)found;
    }

    /** Preempts for the unfilled GPUs of a plain bid. */
    void preempt(final Order bid)
    {
        final Market market = bid.market;
        final long limit = market.preemptLimit(bid.price);
        final LeaseIndex index = market.preemptible;
        victimCount = 0;
        int need = bid.openGpus;
        for (int i = 0; i < index.levelCount() && index.priceAt(i) <= limit && need > 0; i++)
        {
            for (Lease lease = index.firstAt(i); lease != null && need > 0; lease = lease.nextInIndex())
            {
                if (victimEligible(bid, lease))
                {
                    addVictim(lease);
                    need -= lease.gpus;
                }
            }
        }
        final long now = engine.out.now;
        for (int v = 0; v < victimCount; v++)
        {
            final Lease victim = victims[v];
            victims[v] = null;
            final int take = Math.min(victim.gpus, bid.openGpus);
            engine.leaseLifecycle.notice(victim, NoticeReason.OUTBID, now + market.graceMs);
            final Lease successor = engine.leaseLifecycle.create(
                bid.account, victim.machine, take, bid.price, bid.maxDurationMs);
            addVictimSources(successor, victim, take);
            engine.matcher.reduceBid(bid, take);
            engine.funds.takeLeaseHold(successor);
            fillPair(bid, victim.sourceAskOrderId[0], victim.owner.id, successor, take, victim.id);
        }
        victimCount = 0;
    }

    private void addVictimSources(final Lease successor, final Lease victim, final int take)
    {
        int left = take;
        for (int s = 0; s < victim.sourceCount && left > 0; s++)
        {
            final int gpus = Math.min(left, victim.sourceGpus[s]);
            successor.addSource(victim.sourceAsk[s], victim.sourceAskUid[s], victim.sourceAskOrderId[s], gpus, victim);
            left -= gpus;
        }
        victim.successor = successor;
        victim.successorGpus = take;
    }

    private void fillPair(
        final Order bid, final long askOrderId, final long ownerId, final Lease lease, final int gpus, final long preempts)
    {
        final Emitter out = engine.out;
        out.fill(bid.clientOrderId, bid.account.id, askOrderId, lease, gpus, bid.price, preempts);
        out.fill(askOrderId, ownerId, bid.clientOrderId, lease, gpus, bid.price, preempts);
        out.trade(bid.market.id, gpus, bid.price);
    }

    /**
     * Chooses the machine for a gang bid (13.19): fewest preempted GPUs, then lowest victim price x GPUs,
     * then lowest machine id; leaves its victims in {@link #victims}.
     *
     * @return the machine, or null if none can cover the bid.
     */
    Machine chooseGangMachine(final Order bid, final long price, final int gpus)
    {
        final Market market = bid.market;
        final long limit = market.preemptLimit(price);
        final LeaseIndex index = market.preemptible;
        int seen = 0;
        Machine best = null;
        long bestGpus = 0;
        long bestCost = 0;
        victimCount = 0;
        for (int i = 0; i < index.levelCount() && index.priceAt(i) <= limit; i++)
        {
            for (Lease lease = index.firstAt(i); lease != null; lease = lease.nextInIndex())
            {
                final Machine machine = lease.machine;
                if (!victimEligible(bid, lease) || contains(machinesSeen, seen, machine))
                {
                    continue;
                }
                if (seen == machinesSeen.length)
                {
                    machinesSeen = Arrays.copyOf(machinesSeen, seen * 2);
                }
                machinesSeen[seen++] = machine;
                final int free = freeGpus(machine, price);
                if (free >= gpus)
                {
                    continue;
                }
                int covered = free;
                int count = 0;
                long victimGpus = 0;
                long victimCost = 0;
                for (int j = i; j < index.levelCount() && index.priceAt(j) <= limit && covered < gpus; j++)
                {
                    for (Lease v = index.firstAt(j); v != null && covered < gpus; v = v.nextInIndex())
                    {
                        if (v.machine == machine && victimEligible(bid, v))
                        {
                            if (count == candidateVictims.length)
                            {
                                candidateVictims = Arrays.copyOf(candidateVictims, count * 2);
                            }
                            candidateVictims[count++] = v;
                            covered += v.gpus;
                            victimGpus += v.gpus;
                            victimCost += v.gpus * v.price;
                        }
                    }
                }
                if (covered < gpus)
                {
                    continue;
                }
                final boolean better = best == null || victimGpus < bestGpus ||
                    (victimGpus == bestGpus && (victimCost < bestCost ||
                    (victimCost == bestCost && machine.name.compareTo(best.name) < 0)));
                if (better)
                {
                    best = machine;
                    bestGpus = victimGpus;
                    bestCost = victimCost;
                    if (victims.length < count)
                    {
                        victims = Arrays.copyOf(victims, candidateVictims.length);
                    }
                    System.arraycopy(candidateVictims, 0, victims, 0, count);
                    victimCount = count;
                }
            }
        }
        Arrays.fill(machinesSeen, 0, seen, null);
        Arrays.fill(candidateVictims, null);
        return best;
    }

    private static boolean contains(final Machine[] machines, final int n, final Machine machine)
    {
        for (int i = 0; i < n; i++)
        {
            if (machines[i] == machine)
            {
                return true;
            }
        }
        return false;
    }

    /** Free GPUs of a machine's open asks priced at or below the bid. */
    static int freeGpus(final Machine machine, final long price)
    {
        int free = 0;
        for (Order ask = machine.firstAsk; ask != null; ask = ask.machineNext)
        {
            if (ask.price <= price)
            {
                free += ask.openGpus;
            }
        }
        return free;
    }

    /** The victims {@link #chooseGangMachine} left. */
    int victimCount()
    {
        return victimCount;
    }

    Lease victim(final int i)
    {
        return victims[i];
    }

    void clearVictims()
    {
        Arrays.fill(victims, 0, victimCount, null);
        victimCount = 0;
    }

    boolean gangPreemptionPossible(final Order bid, final long price, final int gpus)
    {
        final boolean possible = chooseGangMachine(bid, price, gpus) != null;
        Arrays.fill(victims, 0, victimCount, null);
        victimCount = 0;
        return possible;
    }

    /** Preempts for a whole gang bid: one lease on one machine, free ask GPUs first, then the victims'. */
    void preemptGang(final Order bid)
    {
        final Machine machine = chooseGangMachine(bid, bid.price, bid.openGpus);
        if (machine == null)
        {
            return;
        }
        final Market market = bid.market;
        final long now = engine.out.now;
        final int gpus = bid.openGpus;
        for (int v = 0; v < victimCount; v++)
        {
            engine.leaseLifecycle.notice(victims[v], NoticeReason.OUTBID, now + market.graceMs);
        }
        final Lease lease = engine.leaseLifecycle.create(bid.account, machine, gpus, bid.price, bid.maxDurationMs);
        int freeCount = 0;
        for (Order ask = machine.firstAsk; ask != null; ask = ask.machineNext)
        {
            if (ask.price <= bid.price && ask.openGpus > 0)
            {
                if (freeCount == freeAsks.length)
                {
                    freeAsks = Arrays.copyOf(freeAsks, freeCount * 2);
                }
                freeAsks[freeCount++] = ask;
            }
        }
        Arrays.sort(freeAsks, 0, freeCount,
            (a, b) -> a.price != b.price ? Long.compare(a.price, b.price) : Long.compare(a.priority, b.priority));
        int left = gpus;
        if (freeTaken.length < freeCount)
        {
            freeTaken = new int[freeAsks.length];
        }
        for (int f = 0; f < freeCount; f++)
        {
            final Order ask = freeAsks[f];
            final int take = Math.min(left, ask.openGpus);
            freeTaken[f] = take;
            lease.addSource(ask, ask.uid, ask.clientOrderId, take, null);
            engine.matcher.takeFromAsk(ask, take);
            left -= take;
        }
        if (victimTaken.length < victimCount)
        {
            victimTaken = new int[victims.length];
        }
        for (int v = 0; v < victimCount; v++)
        {
            final Lease victim = victims[v];
            final int take = Math.min(left, victim.gpus);
            victimTaken[v] = take;
            int rest = take;
            for (int s = 0; s < victim.sourceCount && rest > 0; s++)
            {
                final int g = Math.min(rest, victim.sourceGpus[s]);
                lease.addSource(victim.sourceAsk[s], victim.sourceAskUid[s], victim.sourceAskOrderId[s], g, victim);
                rest -= g;
            }
            victim.successor = lease;
            victim.successorGpus = take;
            left -= take;
        }
        engine.matcher.reduceBid(bid, gpus);
        engine.funds.takeLeaseHold(lease);
        for (int f = 0; f < freeCount; f++)
        {
            final Order ask = freeAsks[f];
            if (freeTaken[f] > 0)
            {
                fillPair(bid, ask.clientOrderId, ask.account.id, lease, freeTaken[f], 0);
            }
            freeAsks[f] = null;
        }
        for (int v = 0; v < victimCount; v++)
        {
            final Lease victim = victims[v];
            fillPair(bid, victim.sourceAskOrderId[0], victim.owner.id, lease, victimTaken[v], victim.id);
            victims[v] = null;
        }
        victimCount = 0;
    }

    private void addVictim(final Lease lease)
    {
        if (victimCount == victims.length)
        {
            victims = Arrays.copyOf(victims, victimCount * 2);
        }
        victims[victimCount++] = lease;
    }
}
