package io.gpux.engine;

import io.gpux.engine.book.Order;
import io.gpux.engine.event.Event;
import io.gpux.engine.event.EventSink;

import java.util.Map;

/**
 * Checks the rulebook's invariants (section 12) and the engine's structural consistency, from the
 * engine's state after a command ({@link #check()}) and from the events it emitted (fed through
 * {@link #onEvent(Event)}, e.g. with {@link #tee(EventSink)}).
 *
 * <p>The rules live in one family per entity, each naming the rulebook sections it checks:
 * {@link EventNumberInvariants} (sequence numbers, times, each account's event numbers),
 * {@link AccountInvariants} (money, holds, open-order lists, the account's lease and machine lists),
 * {@link BookInvariants} (book structure, not crossed), {@link FillInvariants} (price-time priority,
 * preemption, gang choice), {@link LeaseInvariants} (settlements, notices, ends, lease state and the
 * preemptible index), {@link MachineInvariants} (capacity, reliability, heartbeat timeouts) and
 * {@link TimerInvariants}. This class owns what they share, the money the events account for
 * ({@link EventLedger}), and hands each event and each state check to them in a fixed order.
 *
 * <p>Every failure is an {@link AssertionError} naming what is wrong.
 */
public final class InvariantChecker
{
    private final MatchingEngine engine;
    private final EventNumberInvariants numbers;
    private final AccountInvariants accounts;
    private final BookInvariants books;
    private final FillInvariants fills;
    private final LeaseInvariants leases;
    private final MachineInvariants machines;
    private final TimerInvariants timers;

    public InvariantChecker(final MatchingEngine engine)
    {
        this.engine = engine;
        final EventLedger ledger = new EventLedger();
        numbers = new EventNumberInvariants(engine);
        accounts = new AccountInvariants(engine, ledger);
        books = new BookInvariants(engine);
        fills = new FillInvariants(engine);
        leases = new LeaseInvariants(engine, ledger);
        machines = new MachineInvariants(engine);
        timers = new TimerInvariants(engine);
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
        accounts.expectDeposit(accountId, amount);
    }

    public long notices()
    {
        return leases.notices();
    }

    public long noticesEndedEarly()
    {
        return leases.noticesEndedEarly();
    }

    public long settlements()
    {
        return leases.settlements();
    }

    public long deposits()
    {
        return accounts.deposits();
    }

    public long plainFills()
    {
        return fills.plainFills();
    }

    public long preemptionFills()
    {
        return fills.preemptionFills();
    }

    public long gangPreemptions()
    {
        return fills.gangPreemptions();
    }

    public void onEvent(final Event e)
    {
        numbers.onEvent(e);
        switch (e.type)
        {
            case BALANCE -> accounts.onBalance(e);
            case FILL ->
            {
                leases.onFill(e);
                fills.onFill(e);
            }
            case LEASE_STARTED -> leases.onLeaseStarted(e);
            case SETTLED -> leases.onSettled(e);
            case PREEMPT_NOTICE -> leases.onNotice(e);
            case LEASE_ENDED -> leases.onLeaseEnded(e);
            case MACHINE_ONLINE, MACHINE_OFFLINE -> machines.onMachine(e);
            default ->
            {
            }
        }
    }

    /** Checks everything that can be checked from the state after a command. */
    public void check()
    {
        final long now = engine.lastCommandTime;
        machines.onCheck(now);
        accounts.forgetPendingDeposits();
        accounts.checkMoney();
        final Map<Order, Long> inBook = books.checkBooks();
        accounts.checkAccounts(inBook);
        machines.checkMachines(now);
        leases.checkLeases(now);
        leases.checkLeaseIndex();
        accounts.checkAccountIndexes();
        timers.checkTimers(now);
        leases.checkEventView(now);
        books.checkNotCrossed();
    }

    /**
     * Each account's lists of its leases as renter, as owner, and of its machines hold exactly what a walk
     * of every lease and machine finds. Needs no events: it also checks an engine just restored from a
     * snapshot.
     */
    void checkAccountIndexes()
    {
        accounts.checkAccountIndexes();
    }
}
