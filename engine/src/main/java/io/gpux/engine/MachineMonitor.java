package io.gpux.engine;

import io.gpux.engine.book.Order;
import io.gpux.engine.command.Command;
import io.gpux.engine.event.EndReason;
import io.gpux.engine.event.EventType;
import io.gpux.engine.event.RejectReason;
import io.gpux.common.Money;
import io.gpux.engine.machine.Machine;
import io.gpux.engine.machine.Reliability;
import io.gpux.engine.timer.Timer;

/**
 * Heartbeats, offline detection and measured reliability (rulebook section 8 and 13.28-30).
 */
final class MachineMonitor
{
    private final MatchingEngine engine;

    MachineMonitor(final MatchingEngine engine)
    {
        this.engine = engine;
    }

    /** Registration: offline until the first heartbeat; the 24-hour timer, then the first day boundary. */
    void registered(final Machine machine)
    {
        final long now = engine.out.now;
        machine.birthdayTimer = engine.schedule(now + Reliability.DAY_MS, Timer.MACHINE_BIRTHDAY, machine);
        machine.dayTimer = engine.schedule(nextDayBoundary(now), Timer.MACHINE_DAY, machine);
    }

    private static long nextDayBoundary(final long t)
    {
        return (Math.floorDiv(t, Reliability.DAY_MS) + 1) * Reliability.DAY_MS;
    }

    void heartbeat(final Command cmd)
    {
        final Machine machine = engine.machines.get(cmd.machineId);
        if (machine == null)
        {
            engine.out.rejected(cmd, RejectReason.UNKNOWN_MACHINE);
            return;
        }
        final long now = engine.out.now;
        machine.lastHeartbeat = now;
        scheduleTimeout(machine);
        if (!machine.online)
        {
            machine.online = true;
            engine.touch(machine);
            machine.reliability.state(true, now);
            engine.out.machine(EventType.MACHINE_ONLINE, machine.id, machine.owner.id);
            for (Order ask = machine.firstAsk; ask != null; ask = ask.machineNext)
            {
                if (ask.openGpus > 0 && !ask.inBook())
                {
                    ask.market.asks.insertByPriority(ask);
                }
            }
            recompute(machine);
            if (!machine.market.halted)
            {
                engine.matcher.rematchMachine(machine);
            }
        }
    }

    /**
     * (Re)arms the heartbeat timeout of an online machine: one timeout after its last heartbeat or, while it
     * has not heartbeated since the last restart, the longer of one timeout and the restart window after the
     * restart (docs/market-rules.md section 14).
     */
    void scheduleTimeout(final Machine machine)
    {
        engine.timers.cancel(machine.timeoutTimer);
        machine.timeoutTimer = null;
        if (engine.heartbeatTimeoutMs > 0)
        {
            final long due = inRestartWindow(machine) ?
                engine.restartedAtMs + Math.max(engine.heartbeatTimeoutMs, engine.restartWindowMs) :
                machine.lastHeartbeat + engine.heartbeatTimeoutMs;
            machine.timeoutTimer = engine.schedule(due, Timer.MACHINE_TIMEOUT, machine);
        }
    }

    /** Whether the machine has not heartbeated since the last restart (a heartbeat at its very time counts). */
    boolean inRestartWindow(final Machine machine)
    {
        return engine.restartedAtMs != Long.MIN_VALUE && machine.lastHeartbeat < engine.restartedAtMs;
    }

    void onTimeout(final Machine machine)
    {
        machine.timeoutTimer = null;
        final long now = engine.out.now;
        machine.online = false;
        engine.touch(machine);
        machine.reliability.state(false, now);
        engine.out.machine(EventType.MACHINE_OFFLINE, machine.id, machine.owner.id);
        for (Order ask = machine.firstAsk; ask != null; ask = ask.machineNext)
        {
            if (ask.inBook())
            {
                ask.market.asks.remove(ask);
            }
        }
        while (machine.firstLease != null)
        {
            engine.leaseLifecycle.end(machine.firstLease, EndReason.MACHINE_OFFLINE);
        }
        recompute(machine);
    }

    void onBirthday(final Machine machine)
    {
        machine.birthdayTimer = null;
        recomputeAndRematch(machine);
    }

    void onDayBoundary(final Machine machine)
    {
        machine.dayTimer = engine.schedule(engine.out.now + Reliability.DAY_MS, Timer.MACHINE_DAY, machine);
        recomputeAndRematch(machine);
    }

    private void recomputeAndRematch(final Machine machine)
    {
        if (recompute(machine) && machine.online && !machine.market.halted)
        {
            engine.matcher.rematchMachine(machine);
        }
    }

    /** @return whether the reliability changed. */
    private boolean recompute(final Machine machine)
    {
        final long now = engine.out.now;
        final Reliability r = machine.reliability;
        long num = 1;
        long den = 1;
        if (r.started())
        {
            r.accrue(now);
            final long total = r.totalInWindow(now);
            if (total > 0)
            {
                num = r.onlineInWindow(now);
                den = total;
            }
        }
        if (now - machine.registeredAt < Reliability.DAY_MS && Money.productAtLeast(num, 20, 19, den) && num * 20 != den * 19)
        {
            num = 19;
            den = 20;
        }
        final boolean changed = !(Money.productAtLeast(num, machine.relDen, machine.relNum, den) &&
            Money.productAtLeast(machine.relNum, den, num, machine.relDen));
        machine.relNum = num;
        machine.relDen = den;
        if (changed)
        {
            engine.touch(machine);
        }
        return changed;
    }
}
