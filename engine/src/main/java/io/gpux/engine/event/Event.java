package io.gpux.engine.event;

import io.gpux.engine.command.CommandType;

/**
 * One engine event, a mutable flyweight. Which fields are meaningful depends on {@link #type}; see
 * the output table of docs/market-rules.md, section 15. Ids are the numeric ids of the commands; lease
 * ids are the engine's.
 */
public final class Event
{
    public EventType type;
    /** Engine sequence number, one per event, from 1. */
    public long sequence;
    public long timeMs;
    /** Sequence number of the command that caused the event (0 when applied outside a pipeline). */
    public long commandSequence;

    public long orderId;
    public long accountId;
    public long counterOrderId;
    public long leaseId;
    public long preemptsLeaseId;
    public long marketId;
    public long machineId;
    public long renterId;
    public long ownerId;
    public int gpus;
    public long price;
    public int remaining;
    public long effectiveMs;
    public long cost;
    public long fee;
    public long charge;
    public int period;
    public long ms;
    public long balance;
    public long available;

    /**
     * Per recipient account, in the order of {@link Recipients#of}: the account's number of this event
     * (its events numbered 1, 2, ... gap-free) and the engine sequence of the account's previous event (0:
     * none), the back-link a resend walks. Both 0 for an account the engine does not hold.
     */
    public long accountSeq0;
    public long previous0;
    public long accountSeq1;
    public long previous1;

    public RejectReason rejectReason;
    public CancelReason cancelReason;
    public EndReason endReason;
    public NoticeReason noticeReason;

    /** For REJECTED: the command rejected, and whether it named a market (MASS_CANCEL's optional key). */
    public CommandType command;
    public boolean namesMarket;

    /** For BOOK: levels, best first. */
    public int bidLevels;
    public int askLevels;
    public long[] bidPrices = new long[16];
    public long[] bidGpus = new long[16];
    public long[] askPrices = new long[16];
    public long[] askGpus = new long[16];

    /** Resets every field but the book arrays' storage, so that an event carries nothing of the last one. */
    public void clear()
    {
        type = null;
        sequence = 0;
        timeMs = 0;
        commandSequence = 0;
        orderId = 0;
        accountId = 0;
        counterOrderId = 0;
        leaseId = 0;
        preemptsLeaseId = 0;
        marketId = 0;
        machineId = 0;
        renterId = 0;
        ownerId = 0;
        gpus = 0;
        price = 0;
        remaining = 0;
        effectiveMs = 0;
        cost = 0;
        fee = 0;
        charge = 0;
        period = 0;
        ms = 0;
        balance = 0;
        available = 0;
        accountSeq0 = 0;
        previous0 = 0;
        accountSeq1 = 0;
        previous1 = 0;
        rejectReason = null;
        cancelReason = null;
        endReason = null;
        noticeReason = null;
        command = null;
        namesMarket = false;
        bidLevels = 0;
        askLevels = 0;
    }

    /** Makes this event a copy of {@code src}, its book levels included (allocation-free once the arrays fit). */
    public Event copyFrom(final Event src)
    {
        type = src.type;
        sequence = src.sequence;
        timeMs = src.timeMs;
        commandSequence = src.commandSequence;
        orderId = src.orderId;
        accountId = src.accountId;
        counterOrderId = src.counterOrderId;
        leaseId = src.leaseId;
        preemptsLeaseId = src.preemptsLeaseId;
        marketId = src.marketId;
        machineId = src.machineId;
        renterId = src.renterId;
        ownerId = src.ownerId;
        gpus = src.gpus;
        price = src.price;
        remaining = src.remaining;
        effectiveMs = src.effectiveMs;
        cost = src.cost;
        fee = src.fee;
        charge = src.charge;
        period = src.period;
        ms = src.ms;
        balance = src.balance;
        available = src.available;
        accountSeq0 = src.accountSeq0;
        previous0 = src.previous0;
        accountSeq1 = src.accountSeq1;
        previous1 = src.previous1;
        rejectReason = src.rejectReason;
        cancelReason = src.cancelReason;
        endReason = src.endReason;
        noticeReason = src.noticeReason;
        command = src.command;
        namesMarket = src.namesMarket;
        bidLevels = src.bidLevels;
        askLevels = src.askLevels;
        if (bidLevels > 0 || askLevels > 0)
        {
            ensureBookCapacity(Math.max(bidLevels, askLevels));
            System.arraycopy(src.bidPrices, 0, bidPrices, 0, bidLevels);
            System.arraycopy(src.bidGpus, 0, bidGpus, 0, bidLevels);
            System.arraycopy(src.askPrices, 0, askPrices, 0, askLevels);
            System.arraycopy(src.askGpus, 0, askGpus, 0, askLevels);
        }
        return this;
    }

    /** The {@code recipient}-th recipient's number of this event (see {@link #accountSeq0}). */
    public long accountSeq(final int recipient)
    {
        return recipient == 0 ? accountSeq0 : accountSeq1;
    }

    /** The engine sequence of the {@code recipient}-th recipient's previous event, 0 if none. */
    public long previous(final int recipient)
    {
        return recipient == 0 ? previous0 : previous1;
    }

    public void ensureBookCapacity(final int depth)
    {
        if (bidPrices.length < depth)
        {
            bidPrices = new long[depth];
            bidGpus = new long[depth];
            askPrices = new long[depth];
            askGpus = new long[depth];
        }
    }
}
