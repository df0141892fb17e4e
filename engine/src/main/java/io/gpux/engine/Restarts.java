package io.gpux.engine;

import io.gpux.engine.book.Order;
import io.gpux.engine.command.Command;
import io.gpux.engine.event.CancelReason;
import io.gpux.engine.event.RejectReason;
import io.gpux.engine.funds.Account;
import io.gpux.engine.lease.Lease;
import io.gpux.engine.machine.Machine;
import org.agrona.collections.LongArrayList;

import java.util.Arrays;
import java.util.Comparator;

/**
 * An exchange outage and the sessions that must not outlive one (docs/market-rules.md section 14): the
 * {@code COD_SESSION} command, which counts each account's open cancel-on-disconnect sessions, and the
 * {@code RESTART} command, which the exchange submits once after recovering from its journal. The outage
 * is (L, T]: from the last command applied before the restart to the restart's own time.
 */
final class Restarts
{
    private final MatchingEngine engine;
    /**
     * Ids of the leases whose start fell inside the outage, in the order they would have started; they start at
     * T. Ids, not leases: a lease that ends inside the outage goes back to the pool and may come back as another.
     */
    private final LongArrayList deferredStarts = new LongArrayList();

    Restarts(final MatchingEngine engine)
    {
        this.engine = engine;
    }

    void codSession(final Command cmd)
    {
        final Account account = engine.accounts.get(cmd.accountId);
        if (account == null)
        {
            engine.out.rejected(cmd, RejectReason.UNKNOWN_ACCOUNT);
            return;
        }
        if (cmd.sessionClosed)
        {
            account.codSessions = Math.max(0, account.codSessions - 1);
        }
        else
        {
            account.codSessions++;
        }
    }

    /**
     * Before the timers due inside the outage fire: every online machine gets a fresh heartbeat window from
     * {@code restartMs} (so it stays online, and counts as online, through the outage), and a machine that was
     * offline at the crash has the outage left out of its reliability: no offline time is charged for it.
     */
    void beginRecovery(final long restartMs)
    {
        final long lastMs = engine.lastCommandTime;
        engine.restartedAtMs = restartMs;
        engine.outageEndMs = restartMs;
        for (final Machine m : sortedMachines())
        {
            if (m.online)
            {
                engine.machineMonitor.scheduleTimeout(m);
            }
            else
            {
                m.reliability.skip(lastMs, restartMs);
            }
        }
    }

    /** Whether a lease starting now must wait for the end of the outage instead. */
    boolean deferStart(final Lease lease)
    {
        if (engine.out.now < engine.outageEndMs)
        {
            deferredStarts.addLong(lease.id);
            return true;
        }
        return false;
    }

    /**
     * At the restart's time, after the outage's timers: the leases that could not start during the outage
     * start, then every open order of each account that still had a cancel-on-disconnect session is cancelled.
     */
    void endRecovery()
    {
        engine.outageEndMs = Long.MIN_VALUE;
        for (int i = 0; i < deferredStarts.size(); i++)
        {
            final Lease lease = engine.leases.get(deferredStarts.getLong(i));
            if (lease != null && lease.state == Lease.PENDING && lease.waitingSources == 0 && lease.machine.online)
            {
                engine.leaseLifecycle.start(lease);
            }
        }
        deferredStarts.clear();
        final Account[] accounts = engine.accounts.values().toArray(new Account[0]);
        Arrays.sort(accounts, Comparator.comparingLong(a -> a.id));
        for (final Account account : accounts)
        {
            if (account.codSessions == 0)
            {
                continue;
            }
            account.codSessions = 0;
            Order order = account.firstOpen;
            while (order != null)
            {
                final Order next = order.accountNext;
                engine.out.cancelled(order, CancelReason.EXCHANGE_RESTART, order.openGpus);
                engine.orderEntry.close(order);
                order = next;
            }
        }
    }

    private Machine[] sortedMachines()
    {
        final Machine[] machines = engine.machines.values().toArray(new Machine[0]);
        Arrays.sort(machines, Comparator.comparingLong(m -> m.id));
        return machines;
    }
}
