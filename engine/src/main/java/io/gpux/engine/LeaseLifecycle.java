package io.gpux.engine;

import io.gpux.engine.command.Command;
import io.gpux.engine.event.EndReason;
import io.gpux.engine.event.NoticeReason;
import io.gpux.engine.event.RejectReason;
import io.gpux.engine.funds.Account;
import io.gpux.engine.lease.Lease;
import io.gpux.engine.machine.Machine;
import io.gpux.engine.timer.Timer;

import java.util.ArrayDeque;

/**
 * Leases from creation to end (rulebook sections 6.3-6.4, 7, 9 and 13.5-8, 13.21-27): start, period
 * settlement, notices, hand-over to the lease waiting for the GPUs, and the return of GPUs to their asks.
 */
final class LeaseLifecycle
{
    private final MatchingEngine engine;
    private final ArrayDeque<Lease> pool = new ArrayDeque<>();

    LeaseLifecycle(final MatchingEngine engine)
    {
        this.engine = engine;
    }

    Lease create(final Account renter, final Machine machine, final int gpus, final long price, final long maxDurationMs)
    {
        Lease lease = pool.pollLast();
        if (lease == null)
        {
            lease = new Lease();
        }
        lease.reset(engine.nextLeaseId++);
        lease.renter = renter;
        lease.owner = machine.owner;
        lease.machine = machine;
        lease.market = machine.market;
        lease.gpus = gpus;
        lease.price = price;
        lease.maxDurationMs = maxDurationMs;
        machine.addLease(lease);
        renter.addRented(lease);
        machine.owner.addOwned(lease);
        engine.leases.put(lease.id, lease);
        return lease;
    }

    void start(final Lease lease)
    {
        if (engine.outageEndMs != Long.MIN_VALUE && engine.restarts.deferStart(lease))
        {
            return;
        }
        final long now = engine.out.now;
        lease.state = Lease.ACTIVE;
        lease.startMs = now;
        if (lease.maxDurationMs > 0)
        {
            lease.expiryTimer = engine.schedule(now + lease.maxDurationMs, Timer.LEASE_EXPIRY, lease);
        }
        lease.periodTimer = engine.schedule(now + lease.market.prepayMs, Timer.LEASE_PERIOD, lease);
        if (lease.notice == null)
        {
            lease.market.preemptible.add(lease);
        }
        engine.out.leaseStarted(lease);
    }

    void notice(final Lease lease, final NoticeReason reason, final long effectiveMs)
    {
        lease.notice = reason;
        lease.effectiveMs = effectiveMs;
        lease.market.preemptible.remove(lease);
        lease.noticeTimer = engine.schedule(effectiveMs, Timer.LEASE_NOTICE, lease);
        engine.out.notice(lease, reason, effectiveMs);
    }

    void onNoticeEffective(final Lease lease)
    {
        lease.noticeTimer = null;
        end(lease, lease.notice.endReason());
    }

    void onExpiry(final Lease lease)
    {
        lease.expiryTimer = null;
        end(lease, EndReason.EXPIRED);
    }

    void onPeriodEnd(final Lease lease)
    {
        lease.periodTimer = null;
        final long now = engine.out.now;
        engine.funds.settle(lease, now - lease.startMs);
        if (lease.notice == null && !engine.funds.raiseLeaseHold(lease))
        {
            notice(lease, NoticeReason.INSUFFICIENT_FUNDS, now + lease.market.graceMs);
        }
        lease.periodTimer = engine.schedule(now + lease.market.prepayMs, Timer.LEASE_PERIOD, lease);
    }

    void release(final Command cmd)
    {
        final Account account = engine.accounts.get(cmd.accountId);
        if (account == null)
        {
            engine.out.rejected(cmd, RejectReason.UNKNOWN_ACCOUNT);
            return;
        }
        final Lease lease = engine.leases.get(cmd.leaseId);
        if (lease == null)
        {
            engine.out.rejected(cmd, RejectReason.UNKNOWN_LEASE);
            return;
        }
        if (lease.renter != account)
        {
            engine.out.rejected(cmd, RejectReason.NOT_AUTHORIZED);
            return;
        }
        final boolean outbid = lease.state == Lease.ACTIVE && lease.notice == NoticeReason.OUTBID;
        end(lease, outbid ? EndReason.PREEMPTED : EndReason.RELEASED);
    }

    /**
     * Ends a lease: last settlement, LEASE_ENDED, then the lease waiting for its GPUs starts, then its
     * other GPUs return to their asks in the order it took them (rulebook 13.7).
     */
    void end(final Lease lease, final EndReason reason)
    {
        final Machine machine = lease.machine;
        final boolean wasActive = lease.state == Lease.ACTIVE;
        if (wasActive)
        {
            long elapsed = engine.out.now - lease.startMs;
            if (reason == EndReason.MACHINE_OFFLINE)
            {
                elapsed = Math.max(lease.settledMs, Math.min(elapsed, machine.lastHeartbeat - lease.startMs));
            }
            engine.funds.settle(lease, elapsed);
            lease.market.preemptible.remove(lease);
        }
        engine.timers.cancel(lease.noticeTimer);
        engine.timers.cancel(lease.expiryTimer);
        engine.timers.cancel(lease.periodTimer);
        lease.noticeTimer = null;
        lease.expiryTimer = null;
        lease.periodTimer = null;
        engine.funds.freeLeaseHold(lease);
        lease.state = Lease.ENDED;
        engine.out.leaseEnded(lease, reason);
        engine.leases.remove(lease.id);
        machine.removeLease(lease);
        lease.renter.removeRented(lease);
        lease.owner.removeOwned(lease);

        if (wasActive)
        {
            int handedOver = 0;
            final Lease successor = lease.successor;
            if (successor != null && successor.state == Lease.PENDING)
            {
                handedOver = lease.successorGpus;
                for (int i = 0; i < successor.sourceCount; i++)
                {
                    if (successor.sourceVictim[i] == lease)
                    {
                        successor.sourceVictim[i] = null;
                        successor.waitingSources--;
                    }
                }
                if (successor.waitingSources == 0 && machine.online)
                {
                    start(successor);
                }
            }
            returnSources(lease, handedOver);
        }
        else
        {
            for (int i = 0; i < lease.sourceCount; i++)
            {
                final Lease victim = lease.sourceVictim[i];
                if (victim != null)
                {
                    if (victim.successor == lease)
                    {
                        victim.successor = null;
                        victim.successorGpus = 0;
                    }
                }
            }
            returnSources(lease, 0);
        }
        lease.reset(0);
        pool.addLast(lease);
    }

    /**
     * Returns the GPUs the lease holds to their asks, after the first {@code skip} GPUs (taken by a
     * successor): one ask at a time, in the order the lease first took GPUs from it, all of that ask's GPUs
     * at once and then one match of the ask (rulebook 13.7). A source still waiting for its victim holds
     * nothing and returns nothing.
     */
    private void returnSources(final Lease lease, final int skip)
    {
        for (int i = 0; i < lease.sourceCount; i++)
        {
            final long askUid = lease.sourceAskUid[i];
            if (!askTakenEarlier(lease, i, askUid))
            {
                final int gpus = heldFromAsk(lease, askUid, skip);
                if (gpus > 0)
                {
                    engine.matcher.returnToAsk(lease.machine, lease.sourceAsk[i], askUid, gpus);
                }
            }
        }
    }

    /** The GPUs the lease holds from one ask, less those among the first {@code skip} GPUs it holds. */
    private static int heldFromAsk(final Lease lease, final long askUid, final int skip)
    {
        int toSkip = skip;
        int gpus = 0;
        for (int i = 0; i < lease.sourceCount; i++)
        {
            final int held = lease.sourceVictim[i] == null ? lease.sourceGpus[i] : 0;
            final int skipped = Math.min(held, toSkip);
            toSkip -= skipped;
            if (lease.sourceAskUid[i] == askUid)
            {
                gpus += held - skipped;
            }
        }
        return gpus;
    }

    private static boolean askTakenEarlier(final Lease lease, final int source, final long askUid)
    {
        for (int i = 0; i < source; i++)
        {
            if (lease.sourceAskUid[i] == askUid)
            {
                return true;
            }
        }
        return false;
    }
}
