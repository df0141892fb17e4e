package io.gpux.engine;

import io.gpux.engine.book.OrderIndex;
import io.gpux.engine.book.OrderPool;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.event.EventSink;
import io.gpux.engine.funds.Account;
import io.gpux.engine.lease.Lease;
import io.gpux.engine.machine.Machine;
import io.gpux.engine.market.Market;
import io.gpux.engine.timer.Timer;
import io.gpux.engine.timer.TimerQueue;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.collections.LongLongConsumer;

import java.util.function.Consumer;

/**
 * The gpux matching engine: a single-threaded, deterministic state machine implementing the market
 * rulebook. Commands in through {@link #apply(Command)}, events out through an {@link EventSink}.
 * It reads no clock and no randomness and does no I/O: time comes in on commands.
 *
 * <p>Before a command is applied, every timer due at or before its time fires, in due-time then
 * creation order, stamping its events with its due time; after it, the timers it made due at once
 * (a zero grace period) fire.
 */
public final class MatchingEngine
{
    public static final long DEFAULT_HEARTBEAT_INTERVAL_MS = 5_000;
    public static final long DEFAULT_HEARTBEAT_TIMEOUT_MS = 15_000;
    /** How long after a RESTART a machine online at the crash has, at least, to heartbeat again (section 14). */
    public static final long DEFAULT_RESTART_WINDOW_MS = 60_000;

    final IdMap<Market> markets = new IdMap<>();
    final IdMap<Account> accounts = new IdMap<>();
    final IdMap<Machine> machines = new IdMap<>();
    private Machine firstTouched;
    private boolean marketsTouched;
    final Long2ObjectHashMap<Lease> leases = new Long2ObjectHashMap<>();
    final OrderPool orders = new OrderPool();
    /** Open orders by (account, client order id). */
    final OrderIndex openOrders = new OrderIndex();
    final TimerQueue timers = new TimerQueue();
    final Emitter out;

    long heartbeatIntervalMs = DEFAULT_HEARTBEAT_INTERVAL_MS;
    long heartbeatTimeoutMs = DEFAULT_HEARTBEAT_TIMEOUT_MS;
    long restartWindowMs = DEFAULT_RESTART_WINDOW_MS;
    long prioritySeq;
    long nextLeaseId = 1;
    /** Fees collected: the exchange's own account. */
    long exchangeFees;
    /**
     * What {@link #totalMoney()} would add up, kept as deposits come in (settlement moves money between
     * accounts and fees, never creates or destroys it), so that a deposit's limit check is O(1).
     */
    long moneyInExchange;
    long lastCommandTime = Long.MIN_VALUE;
    long commandCount;
    /**
     * Time of the last RESTART, or Long.MIN_VALUE: no heartbeat window of an online machine starts before it
     * (docs/market-rules.md section 14).
     */
    long restartedAtMs = Long.MIN_VALUE;
    /** While a RESTART fires the timers due inside the outage: its time (leases start no earlier); else Long.MIN_VALUE. */
    long outageEndMs = Long.MIN_VALUE;

    final Funds funds;
    final Matcher matcher;
    final Preemptor preemptor;
    final LeaseLifecycle leaseLifecycle;
    final MachineMonitor machineMonitor;
    final OrderEntry orderEntry;
    final Admin admin;
    final ApiKeys apiKeys;
    final Restarts restarts;
    private final Quoter quoter;
    private Consumer<Command> adminHook;

    public MatchingEngine(final EventSink sink)
    {
        out = new Emitter(sink, accounts);
        funds = new Funds(this);
        leaseLifecycle = new LeaseLifecycle(this);
        matcher = new Matcher(this);
        preemptor = new Preemptor(this);
        machineMonitor = new MachineMonitor(this);
        orderEntry = new OrderEntry(this);
        admin = new Admin(this);
        apiKeys = new ApiKeys(this);
        restarts = new Restarts(this);
        quoter = new Quoter(this);
    }

    /**
     * What a BID command would do now, without doing it (no state change, no event): the checks, the
     * fills from open asks, the leases it would preempt. The command's order id is ignored.
     */
    public void quote(final Command bid, final Quote result)
    {
        quoter.quote(bid, result);
    }

    /**
     * Fault injection for tests of what surrounds the engine (the pipeline's quarantine of a command the
     * engine fails on): called before each registration, configuration or control command is applied
     * (never before a trading command), it may throw to make the engine fail on that command. Never set in
     * the exchange.
     */
    public void adminHook(final Consumer<Command> hook)
    {
        adminHook = hook;
    }

    /**
     * Recovery only: the event numbers up to {@code sequence} are taken (by events of a quarantined command
     * that reached the event journal), so the next event is numbered after them.
     */
    public void skipEventsThrough(final long sequence)
    {
        if (sequence > out.sequence())
        {
            out.sequence(sequence);
        }
    }

    /** Replaces the event sink (e.g. to suppress output while recovering). */
    public void sink(final EventSink sink)
    {
        out.sink(sink);
    }

    /**
     * Applies one command: fires due timers, applies it, fires the timers it made due at once. A RESTART
     * first gives the machines fresh heartbeat windows, so that the timers due during the outage fire
     * without the heartbeat timeouts that fell due in it.
     */
    public void apply(final Command cmd)
    {
        final long time = Math.max(cmd.timeMs, lastCommandTime);
        out.commandSequence = cmd.sequence;
        if (cmd.type == CommandType.RESTART)
        {
            restarts.beginRecovery(time);
        }
        fireTimers(time);
        out.now = time;
        lastCommandTime = time;
        commandCount++;
        switch (cmd.type)
        {
            case ASK -> orderEntry.ask(cmd);
            case BID -> orderEntry.bid(cmd);
            case CANCEL -> orderEntry.cancel(cmd);
            case REPLACE -> orderEntry.replace(cmd);
            case MASS_CANCEL -> orderEntry.massCancel(cmd);
            case RELEASE -> leaseLifecycle.release(cmd);
            case HEARTBEAT -> machineMonitor.heartbeat(cmd);
            case TICK ->
            {
            }
            case RESTART -> restarts.endRecovery();
            default -> applyAdmin(cmd);
        }
        fireTimers(time);
        out.now = time;
    }

    /**
     * The registration, configuration and control commands: apart from {@link #apply}'s switch, so that the compiler
     * spends its inlining budget for {@code apply} on the trading commands, however often a run registered accounts
     * and machines before it compiled {@code apply}.
     */
    private void applyAdmin(final Command cmd)
    {
        if (adminHook != null)
        {
            adminHook.accept(cmd);
        }
        switch (cmd.type)
        {
            case MARKET -> admin.market(cmd);
            case CONFIG -> admin.config(cmd);
            case ACCOUNT -> admin.account(cmd);
            case DEPOSIT -> admin.deposit(cmd);
            case MACHINE -> admin.machine(cmd);
            case HALT -> admin.halt(cmd);
            case RESUME -> admin.resume(cmd);
            case BOOK -> admin.book(cmd);
            case KEY -> apiKeys.key(cmd);
            case COD_SESSION -> restarts.codSession(cmd);
            default -> throw new IllegalArgumentException("unknown command " + cmd.type);
        }
    }

    private void fireTimers(final long upTo)
    {
        while (timers.anyDueBy(upTo))
        {
            final Timer t = timers.poll();
            out.now = t.dueMs;
            final Object target = t.target;
            final int kind = t.kind;
            timers.recycle(t);
            switch (kind)
            {
                case Timer.LEASE_NOTICE -> leaseLifecycle.onNoticeEffective((Lease)target);
                case Timer.LEASE_EXPIRY -> leaseLifecycle.onExpiry((Lease)target);
                case Timer.LEASE_PERIOD -> leaseLifecycle.onPeriodEnd((Lease)target);
                case Timer.MACHINE_TIMEOUT -> machineMonitor.onTimeout((Machine)target);
                case Timer.MACHINE_BIRTHDAY -> machineMonitor.onBirthday((Machine)target);
                case Timer.MACHINE_DAY -> machineMonitor.onDayBoundary((Machine)target);
                default -> throw new IllegalStateException("timer kind " + kind);
            }
        }
    }

    /** A timer due no earlier than now. */
    Timer schedule(final long dueMs, final int kind, final Object target)
    {
        return timers.schedule(Math.max(dueMs, out.now), kind, target);
    }

    long nextPriority()
    {
        return ++prioritySeq;
    }

    /** 64-bit hash over a canonical walk of the whole state. */
    public long stateHash()
    {
        return new StateWalker(this).hash();
    }

    public long eventSequence()
    {
        return out.sequence();
    }

    /** Time of the last command applied (epoch ms). */
    public long lastCommandTime()
    {
        return lastCommandTime;
    }

    public long commandCount()
    {
        return commandCount;
    }

    /** Total of every balance plus fees collected: what deposits put in (money conservation). */
    public long totalMoney()
    {
        long total = exchangeFees;
        for (final Account a : accounts.values())
        {
            total += a.balance;
        }
        return total;
    }

    public long exchangeFees()
    {
        return exchangeFees;
    }

    public Account account(final long id)
    {
        return accounts.get(id);
    }

    public Market market(final long id)
    {
        return markets.get(id);
    }

    public Machine machine(final long id)
    {
        return machines.get(id);
    }

    public Lease lease(final long id)
    {
        return leases.get(id);
    }

    /**
     * Notes that what a search of offers shows of a machine may have changed (its asks, free GPUs, online
     * state or reliability; its registration): a list threaded through the machines, each at most once,
     * that a reader drains with {@link #pollTouched()}. No state of the market: not hashed, not snapshot.
     */
    void touch(final Machine machine)
    {
        if (!machine.touched)
        {
            machine.touched = true;
            machine.touchedNext = firstTouched;
            firstTouched = machine;
        }
    }

    /** Notes that a market was halted or resumed (see {@link #pollMarketsTouched()}). */
    void touchMarkets()
    {
        marketsTouched = true;
    }

    /** Whether machines or markets were touched since the last drain. */
    public boolean anyTouched()
    {
        return firstTouched != null || marketsTouched;
    }

    /** The next machine touched since the last drain, taken off the list; null when none is left. */
    public Machine pollTouched()
    {
        final Machine m = firstTouched;
        if (m != null)
        {
            firstTouched = m.touchedNext;
            m.touchedNext = null;
            m.touched = false;
        }
        return m;
    }

    /** Whether a market was halted or resumed since the last call. */
    public boolean pollMarketsTouched()
    {
        final boolean touched = marketsTouched;
        marketsTouched = false;
        return touched;
    }

    public Iterable<Machine> machines()
    {
        return machines.values();
    }

    public Iterable<Lease> leases()
    {
        return leases.values();
    }

    public Iterable<Account> accounts()
    {
        return accounts.values();
    }

    public Iterable<Market> markets()
    {
        return markets.values();
    }

    /**
     * The account an API key belongs to, for the gateway's authentication (KEY command).
     *
     * @return the account id, or 0 if the key was never added or is revoked.
     */
    public long keyAccount(final long keyId)
    {
        return apiKeys.account(keyId);
    }

    /**
     * Calls {@code consumer} with (key id, account id) for every live (added, not revoked) API key, in key
     * id order; e.g. for a gateway loading its keys after a restart. Allocates one array of the key ids.
     */
    public void forEachKey(final LongLongConsumer consumer)
    {
        apiKeys.forEachLive(consumer);
    }

    /** The highest API key id ever added, revoked keys included (0 if none): a new key needs a higher one. */
    public long maxKeyId()
    {
        return apiKeys.maxKeyId();
    }
}
