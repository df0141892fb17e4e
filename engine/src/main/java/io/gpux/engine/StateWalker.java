package io.gpux.engine;

import io.gpux.engine.book.BookSide;
import io.gpux.engine.book.Order;
import io.gpux.engine.book.PriceLevel;
import io.gpux.engine.funds.Account;
import io.gpux.engine.hash.StateHasher;
import io.gpux.engine.lease.Lease;
import io.gpux.engine.machine.Machine;
import io.gpux.engine.market.Market;
import io.gpux.engine.timer.Timer;


/**
 * Walks the whole engine state in a canonical order (ids ascending, books best first, lists in
 * their order) and hashes every value that can affect a future event. Two engines with equal state
 * agree; any difference changes the hash.
 */
final class StateWalker
{
    private final MatchingEngine engine;
    private final StateHasher h = new StateHasher();
    private final boolean eventNumbers;

    StateWalker(final MatchingEngine engine)
    {
        this(engine, true);
    }

    /**
     * With {@code eventNumbers} false, the accounts' event numbers are left out: the state as the commands
     * change it, but for the numbering of the events they emit.
     */
    StateWalker(final MatchingEngine engine, final boolean eventNumbers)
    {
        this.engine = engine;
        this.eventNumbers = eventNumbers;
    }

    long hash()
    {
        h.add(engine.heartbeatIntervalMs).add(engine.heartbeatTimeoutMs).add(engine.prioritySeq)
            .add(engine.nextLeaseId).add(engine.exchangeFees).add(engine.lastCommandTime);
        final Market[] markets = engine.markets.byId(Market[]::new);
        for (final Market m : markets)
        {
            m.hash(h);
            side(m.bids);
            side(m.asks);
            for (int i = 0; i < m.preemptible.levelCount(); i++)
            {
                for (Lease l = m.preemptible.firstAt(i); l != null; l = l.nextInIndex())
                {
                    h.add(l.id);
                }
                h.add(-2);
            }
        }
        final Account[] accounts = engine.accounts.byId(Account[]::new);
        for (final Account a : accounts)
        {
            a.hash(h);
            for (Order o = a.firstOpen; o != null; o = o.accountNext)
            {
                o.hash(h);
            }
            h.add(-3);
        }
        final Machine[] machines = engine.machines.byId(Machine[]::new);
        for (final Machine m : machines)
        {
            m.hash(h);
            for (Order o = m.firstAsk; o != null; o = o.machineNext)
            {
                h.add(o.uid);
            }
            for (Lease l = m.firstLease; l != null; l = l.machineNext)
            {
                h.add(l.id);
            }
            h.add(-4);
        }
        final Lease[] leases = IdMap.byId(engine.leases, Lease[]::new);
        for (final Lease l : leases)
        {
            l.hash(h);
        }
        for (final Timer t : engine.timers.sorted())
        {
            h.add(t.dueMs).add(t.kind);
            if (t.target instanceof Lease l)
            {
                h.add(l.id);
            }
            else if (t.target instanceof Machine m)
            {
                h.add(m.id);
            }
        }
        apiKeys();
        restarts(accounts);
        restartWindow();
        if (eventNumbers)
        {
            eventNumbers(accounts);
        }
        return h.hash();
    }

    /** Walked only when set to other than the default, so that other states hash as before the setting existed. */
    private void restartWindow()
    {
        if (engine.restartWindowMs != MatchingEngine.DEFAULT_RESTART_WINDOW_MS)
        {
            h.add(-8).add(engine.restartWindowMs);
        }
    }

    /** Each account's event number and the engine sequence of its last event. */
    private void eventNumbers(final Account[] accounts)
    {
        h.add(-9);
        for (final Account a : accounts)
        {
            if (a.lastSeq > 0)
            {
                h.add(a.id).add(a.lastSeq).add(a.lastEventSequence);
            }
        }
    }

    /** Walked only when there are keys, so that a state without keys hashes as before KEY existed. */
    private void apiKeys()
    {
        final ApiKeys keys = engine.apiKeys;
        if (keys.size() == 0)
        {
            return;
        }
        h.add(-6).add(keys.size());
        for (final long keyId : keys.sortedKeyIds())
        {
            h.add(keyId).add(keys.stored(keyId));
        }
    }

    /** Walked only after a restart or a cancel-on-disconnect session, so that other states hash as before them. */
    private void restarts(final Account[] accounts)
    {
        boolean any = engine.restartedAtMs != Long.MIN_VALUE;
        for (final Account a : accounts)
        {
            any |= a.codSessions != 0;
        }
        if (!any)
        {
            return;
        }
        h.add(-7).add(engine.restartedAtMs);
        for (final Account a : accounts)
        {
            if (a.codSessions != 0)
            {
                h.add(a.id).add(a.codSessions);
            }
        }
    }

    private void side(final BookSide side)
    {
        for (PriceLevel level = side.best(); level != null; level = side.worse(level))
        {
            h.add(level.price()).add(level.gpus());
            for (Order o = level.head(); o != null; o = o.nextInLevel())
            {
                h.add(o.uid);
            }
        }
        h.add(-5);
    }
}
