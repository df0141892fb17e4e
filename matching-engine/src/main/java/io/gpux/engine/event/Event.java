package io.gpux.engine.event;

import io.gpux.engine.command.CommandType;

/**
 * One engine event, a mutable flyweight. Which fields are meaningful depends on {@link #type}; see
 * SCENARIO-FORMAT.md's output table. Ids are the numeric ids of the commands; lease ids are the
 * engine's.
 */
public final class Event
{
    public EventType type;
    /** Engine sequence number, one per event, from 1. */
    public long sequence;
    public long timeMs;

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

    public RejectReason rejectReason;
    public CancelReason cancelReason;
    public EndReason endReason;
    public NoticeReason noticeReason;

    /** For REJECTED: the command rejected, and which ids it named. */
    public CommandType command;
    public boolean namesMarket;
    public boolean namesAccount;
    public boolean namesMachine;
    public boolean namesLease;
    public boolean namesOrder;

    /** For BOOK: levels, best first. */
    public int bidLevels;
    public int askLevels;
    public long[] bidPrices = new long[16];
    public long[] bidGpus = new long[16];
    public long[] askPrices = new long[16];
    public long[] askGpus = new long[16];

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
