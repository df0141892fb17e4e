package io.gpux.engine.lease;

import io.gpux.engine.book.Order;
import io.gpux.engine.event.NoticeReason;
import io.gpux.engine.funds.Account;
import io.gpux.engine.machine.Machine;
import io.gpux.engine.market.Market;
import io.gpux.engine.timer.Timer;

/**
 * A lease of GPUs on one machine. Its GPUs come from asks, in the order it acquired them (its
 * sources); a lease created by preemption waits (PENDING) until the victims holding its GPUs end.
 */
public final class Lease
{
    public static final int PENDING = 0;
    public static final int ACTIVE = 1;
    public static final int ENDED = 2;

    public long id;
    public int state;
    public Account renter;
    public Account owner;
    public Machine machine;
    public Market market;
    public int gpus;
    public long price;
    public long startMs;
    /** 0 when the lease runs until something ends it. */
    public long maxDurationMs;
    /** Milliseconds of the lease's life billed so far. */
    public long settledMs;
    public long totalCost;
    public long totalFee;
    /** Funds held for the lease's future charges. */
    public long hold;

    public NoticeReason notice;
    public long effectiveMs;
    public Timer noticeTimer;
    public Timer expiryTimer;
    public Timer periodTimer;

    /** Sources of the lease's GPUs, in acquisition order. */
    public int sourceCount;
    public Order[] sourceAsk = new Order[2];
    public long[] sourceAskUid = new long[2];
    public long[] sourceAskOrderId = new long[2];
    public int[] sourceGpus = new int[2];
    /** The victim whose GPUs a source waits for, or null once the lease holds them. */
    public Lease[] sourceVictim = new Lease[2];
    public int waitingSources;

    /** For a victim of preemption: the lease that takes its first successorGpus GPUs when it ends. */
    public Lease successor;
    public int successorGpus;

    public Lease machinePrev;
    public Lease machineNext;
    /** The renter's live leases ({@link Account#firstRented}). */
    public Lease renterPrev;
    public Lease renterNext;
    /** The owner's live leases ({@link Account#firstOwned}). */
    public Lease ownerPrev;
    public Lease ownerNext;

    LeaseIndex.Level indexLevel;
    Lease indexPrev;
    Lease indexNext;

    public boolean started()
    {
        return state == ACTIVE;
    }

    public boolean preemptible()
    {
        return indexLevel != null;
    }

    public Lease nextInIndex()
    {
        return indexNext;
    }

    public void addSource(final Order ask, final long askUid, final long askOrderId, final int gpus, final Lease victim)
    {
        if (sourceCount == sourceGpus.length)
        {
            final int n = sourceCount * 2;
            sourceAsk = java.util.Arrays.copyOf(sourceAsk, n);
            sourceAskUid = java.util.Arrays.copyOf(sourceAskUid, n);
            sourceAskOrderId = java.util.Arrays.copyOf(sourceAskOrderId, n);
            sourceGpus = java.util.Arrays.copyOf(sourceGpus, n);
            sourceVictim = java.util.Arrays.copyOf(sourceVictim, n);
        }
        sourceAsk[sourceCount] = ask;
        sourceAskUid[sourceCount] = askUid;
        sourceAskOrderId[sourceCount] = askOrderId;
        sourceGpus[sourceCount] = gpus;
        sourceVictim[sourceCount] = victim;
        if (victim != null)
        {
            waitingSources++;
        }
        sourceCount++;
    }

    /** Resets a pooled lease for a new life. */
    public void reset(final long id)
    {
        this.id = id;
        state = PENDING;
        renter = null;
        owner = null;
        machine = null;
        market = null;
        gpus = 0;
        price = 0;
        startMs = 0;
        maxDurationMs = 0;
        settledMs = 0;
        totalCost = 0;
        totalFee = 0;
        hold = 0;
        notice = null;
        effectiveMs = 0;
        noticeTimer = null;
        expiryTimer = null;
        periodTimer = null;
        for (int i = 0; i < sourceCount; i++)
        {
            sourceAsk[i] = null;
            sourceVictim[i] = null;
        }
        sourceCount = 0;
        waitingSources = 0;
        successor = null;
        successorGpus = 0;
        machinePrev = null;
        machineNext = null;
        renterPrev = null;
        renterNext = null;
        ownerPrev = null;
        ownerNext = null;
        indexLevel = null;
        indexPrev = null;
        indexNext = null;
    }
}
