package io.gpux.engine;

import io.gpux.engine.book.Order;
import io.gpux.engine.command.Command;
import io.gpux.engine.event.CancelReason;
import io.gpux.engine.event.EndReason;
import io.gpux.engine.event.Event;
import io.gpux.engine.event.EventSink;
import io.gpux.engine.event.EventType;
import io.gpux.engine.event.NoticeReason;
import io.gpux.engine.event.Recipients;
import io.gpux.engine.event.RejectReason;
import io.gpux.engine.funds.Account;
import io.gpux.engine.lease.Lease;

/**
 * Builds each event in a flyweight of its type, reused for every event of that type, and hands it to the sink,
 * numbering them. Each method below sets every field of its type (the output table of docs/market-rules.md,
 * section 15), so a flyweight never carries anything but the fields of the last event of its own type: nothing to
 * clear between events ({@code EmitterTest} checks every pair of types), where one flyweight for all types would
 * clear its 35 fields before each event. Each private event is numbered for its recipient accounts
 * ({@link Recipients}) as it is emitted: the account's next event number and a back-link to its
 * previous event, kept in the account ({@link Account#lastSeq}, {@link Account#lastEventSequence}).
 */
final class Emitter
{
    /** One flyweight per event type, by ordinal; each blank when made, its type set for good. */
    private final Event[] events;
    private final IdMap<Account> accounts;
    private final long[] recipients = new long[2];
    private EventSink sink;
    private long sequence;
    /** The time events are stamped with: the command's, or a firing timer's due time. */
    long now;
    /** The sequence of the command being applied, stamped on its events. */
    long commandSequence;

    Emitter(final EventSink sink, final IdMap<Account> accounts)
    {
        this.sink = sink;
        this.accounts = accounts;
        final EventType[] types = EventType.values();
        events = new Event[types.length];
        for (final EventType type : types)
        {
            final Event e = new Event();
            e.type = type;
            events[type.ordinal()] = e;
        }
    }

    void sink(final EventSink sink)
    {
        this.sink = sink;
    }

    long sequence()
    {
        return sequence;
    }

    void sequence(final long value)
    {
        sequence = value;
    }

    /** The flyweight of a type, numbered and stamped; the caller sets every field of the type and emits it. */
    Event begin(final EventType type)
    {
        final Event e = events[type.ordinal()];
        e.timeMs = now;
        e.commandSequence = commandSequence;
        e.sequence = ++sequence;
        return e;
    }

    void emit(final Event e)
    {
        final int n = Recipients.of(e, recipients);
        e.accountSeq0 = 0;
        e.previous0 = 0;
        e.accountSeq1 = 0;
        e.previous1 = 0;
        for (int i = 0; i < n; i++)
        {
            final Account a = accounts.get(recipients[i]);
            if (a == null)
            {
                continue;
            }
            final long seq = ++a.lastSeq;
            final long previous = a.lastEventSequence;
            a.lastEventSequence = e.sequence;
            if (i == 0)
            {
                e.accountSeq0 = seq;
                e.previous0 = previous;
            }
            else
            {
                e.accountSeq1 = seq;
                e.previous1 = previous;
            }
        }
        sink.onEvent(e);
    }

    void rejected(final Command cmd, final RejectReason reason)
    {
        final Event e = begin(EventType.REJECTED);
        e.command = cmd.type;
        e.rejectReason = reason;
        e.orderId = cmd.orderId;
        e.accountId = cmd.accountId;
        e.marketId = cmd.marketId;
        e.machineId = cmd.machineId;
        e.leaseId = cmd.leaseId;
        e.namesMarket = cmd.hasMarket;
        emit(e);
    }

    void accepted(final Order order)
    {
        final Event e = begin(EventType.ACCEPTED);
        e.orderId = order.clientOrderId;
        e.accountId = order.account.id;
        emit(e);
    }

    void cancelled(final Order order, final CancelReason reason, final int remaining)
    {
        final Event e = begin(EventType.CANCELLED);
        e.orderId = order.clientOrderId;
        e.accountId = order.account.id;
        e.cancelReason = reason;
        e.remaining = remaining;
        emit(e);
    }

    void fill(
        final long orderId, final long accountId, final long counterOrderId, final Lease lease, final int gpus,
        final long price, final long preempts)
    {
        final Event e = begin(EventType.FILL);
        e.orderId = orderId;
        e.accountId = accountId;
        e.counterOrderId = counterOrderId;
        e.leaseId = lease.id;
        e.gpus = gpus;
        e.price = price;
        e.preemptsLeaseId = preempts;
        emit(e);
    }

    void trade(final long marketId, final int gpus, final long price)
    {
        final Event e = begin(EventType.TRADE);
        e.marketId = marketId;
        e.gpus = gpus;
        e.price = price;
        emit(e);
    }

    void leaseStarted(final Lease lease)
    {
        final Event e = begin(EventType.LEASE_STARTED);
        e.leaseId = lease.id;
        e.renterId = lease.renter.id;
        e.ownerId = lease.owner.id;
        e.machineId = lease.machine.id;
        e.marketId = lease.market.id;
        e.gpus = lease.gpus;
        e.price = lease.price;
        emit(e);
    }

    void notice(final Lease lease, final NoticeReason reason, final long effectiveMs)
    {
        final Event e = begin(EventType.PREEMPT_NOTICE);
        e.leaseId = lease.id;
        e.noticeReason = reason;
        e.effectiveMs = effectiveMs;
        // the renter in accountId, the owner in ownerId: a journaled notice without an owner routes to the renter alone
        e.accountId = lease.renter.id;
        e.ownerId = lease.owner.id;
        emit(e);
    }

    void leaseEnded(final Lease lease, final EndReason reason)
    {
        final Event e = begin(EventType.LEASE_ENDED);
        e.leaseId = lease.id;
        e.endReason = reason;
        e.cost = lease.totalCost;
        e.fee = lease.totalFee;
        e.renterId = lease.renter.id;
        e.ownerId = lease.owner.id;
        emit(e);
    }

    void settled(final Lease lease, final long charge, final long fee, final int period, final long ms)
    {
        final Event e = begin(EventType.SETTLED);
        e.leaseId = lease.id;
        e.charge = charge;
        e.fee = fee;
        e.period = period;
        e.ms = ms;
        e.renterId = lease.renter.id;
        e.ownerId = lease.owner.id;
        emit(e);
    }

    void balance(final long accountId, final long balance, final long available)
    {
        final Event e = begin(EventType.BALANCE);
        e.accountId = accountId;
        e.balance = balance;
        e.available = available;
        emit(e);
    }

    void machine(final EventType type, final long machineId, final long ownerId)
    {
        final Event e = begin(type);
        e.machineId = machineId;
        e.ownerId = ownerId;
        emit(e);
    }

    Event bookEvent()
    {
        return begin(EventType.BOOK);
    }
}
