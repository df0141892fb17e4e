package io.gpux.engine;

import io.gpux.engine.lease.Lease;
import io.gpux.engine.machine.Machine;
import io.gpux.engine.timer.Timer;

import static io.gpux.engine.Invariants.require;

/**
 * The timers' rules (rulebook sections 10 and 13.28): every timer due at or before the last command has
 * fired, and each scheduled timer targets a live lease or a known machine and is the one that entity
 * holds for its kind (notice, expiry, period; heartbeat timeout, 24-hour mark, day boundary).
 */
final class TimerInvariants
{
    private final MatchingEngine engine;

    TimerInvariants(final MatchingEngine engine)
    {
        this.engine = engine;
    }

    void checkTimers(final long now)
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
}
