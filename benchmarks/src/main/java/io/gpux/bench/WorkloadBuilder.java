package io.gpux.bench;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.event.Event;
import io.gpux.engine.event.EventSink;
import io.gpux.engine.event.EventType;

import java.util.ArrayList;
import java.util.List;

/**
 * Records a workload while generating it against a reference engine: each command is applied at once,
 * and the generator sees its events (to learn lease ids, fills, what is still open) before choosing the
 * next command. Everything here runs in {@code @Setup}; allocation does not matter.
 */
final class WorkloadBuilder implements EventSink
{
    final MatchingEngine engine = new MatchingEngine(this);
    private final List<Command> setup = new ArrayList<>();
    private final List<Command> pass = new ArrayList<>();
    private final long[] passEvents = new long[CountingSink.TYPES];
    private boolean inPass;
    private EventSink listener = e -> { };
    private long maxLeaseId;
    private long leaseIdAtPassStart;
    /** Time of the last command applied. */
    long now;

    void listener(final EventSink listener)
    {
        this.listener = listener;
    }

    /** A new command of a type, at a time (the time never goes back). */
    Command command(final CommandType type, final long timeMs)
    {
        if (timeMs < now)
        {
            throw new IllegalArgumentException("time goes back: " + timeMs + " < " + now);
        }
        return new Command().reset(type, timeMs);
    }

    void apply(final Command cmd)
    {
        now = cmd.timeMs;
        (inPass ? pass : setup).add(cmd);
        engine.apply(cmd);
    }

    void beginPass()
    {
        inPass = true;
        leaseIdAtPassStart = maxLeaseId;
    }

    int passSize()
    {
        return pass.size();
    }

    long passEvents(final EventType type)
    {
        return passEvents[type.ordinal()];
    }

    @Override
    public void onEvent(final Event e)
    {
        if (e.type == EventType.FILL)
        {
            maxLeaseId = Math.max(maxLeaseId, e.leaseId);
        }
        if (inPass)
        {
            passEvents[e.type.ordinal()]++;
        }
        listener.onEvent(e);
    }

    Workload build(final String name, final long timeShiftMs, final String notes)
    {
        final Command[] p = pass.toArray(new Command[0]);
        if (p.length == 0 || p[p.length - 1].timeMs - p[0].timeMs >= timeShiftMs)
        {
            throw new IllegalStateException(name + ": a pass must take less time than the shift " + timeShiftMs);
        }
        return new Workload(name, setup.toArray(new Command[0]), p, timeShiftMs, maxLeaseId - leaseIdAtPassStart,
            passEvents.clone(), notes).verify();
    }

    // ---- command helpers ------------------------------------------------------------------------------

    void market(final long t, final long id, final String name, final boolean preemption, final long graceMs,
        final long feeBps, final long prepayMs, final long maxGpusPerOrder)
    {
        final Command c = command(CommandType.MARKET, t);
        c.marketId = id;
        c.name = name;
        c.preemption = preemption ? 1 : 0;
        c.graceMs = graceMs;
        c.feeBps = feeBps;
        c.prepayMs = prepayMs;
        c.maxGpusPerOrder = maxGpusPerOrder;
        apply(c);
    }

    void heartbeatTimeout(final long t, final long timeoutMs)
    {
        final Command c = command(CommandType.CONFIG, t);
        c.heartbeatTimeoutMs = timeoutMs;
        apply(c);
    }

    void account(final long t, final long id, final String name, final int roles)
    {
        final Command c = command(CommandType.ACCOUNT, t);
        c.accountId = id;
        c.name = name;
        c.roles = roles;
        apply(c);
    }

    void deposit(final long t, final long account, final long amount)
    {
        final Command c = command(CommandType.DEPOSIT, t);
        c.accountId = account;
        c.amount = amount;
        apply(c);
    }

    void machine(final long t, final long id, final String name, final long owner, final long market, final int gpus,
        final long regionId)
    {
        final Command c = command(CommandType.MACHINE, t);
        c.machineId = id;
        c.name = name;
        c.accountId = owner;
        c.marketId = market;
        c.gpus = gpus;
        c.regionId = regionId;
        apply(c);
    }

    void heartbeat(final long t, final long machine)
    {
        final Command c = command(CommandType.HEARTBEAT, t);
        c.machineId = machine;
        apply(c);
    }

    void cancel(final long t, final long account, final long orderId)
    {
        final Command c = command(CommandType.CANCEL, t);
        c.accountId = account;
        c.orderId = orderId;
        apply(c);
    }

    void massCancel(final long t, final long account)
    {
        final Command c = command(CommandType.MASS_CANCEL, t);
        c.accountId = account;
        apply(c);
    }

    void release(final long t, final long account, final long leaseId)
    {
        final Command c = command(CommandType.RELEASE, t);
        c.accountId = account;
        c.leaseId = leaseId;
        apply(c);
    }

    void tick(final long t)
    {
        apply(command(CommandType.TICK, t));
    }

    /** Brings a renter's balance back to what it was, so that every pass sees the same funds. */
    void topUp(final long t, final long account, final long balance)
    {
        final long missing = balance - engine.account(account).balance;
        if (missing > 0)
        {
            deposit(t, account, missing);
        }
    }
}
