package io.gpux.engine.lease;

import io.gpux.engine.book.Order;
import io.gpux.engine.event.NoticeReason;
import io.gpux.engine.funds.Account;
import io.gpux.engine.hash.StateHasher;
import io.gpux.engine.machine.Machine;
import io.gpux.engine.market.Market;
import io.gpux.engine.timer.Timer;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.function.LongFunction;

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

    /**
     * The lease as the engine snapshot holds it, with its sources; other leases by id, a source's ask by its
     * uid and whether that ask is still the same open order. Its timers are listed apart.
     */
    public void write(final DataOutput out) throws IOException
    {
        out.writeLong(id);
        out.writeInt(state);
        out.writeLong(renter.id);
        out.writeLong(machine.id);
        out.writeInt(gpus);
        out.writeLong(price);
        out.writeLong(startMs);
        out.writeLong(maxDurationMs);
        out.writeLong(settledMs);
        out.writeLong(totalCost);
        out.writeLong(totalFee);
        out.writeLong(hold);
        out.writeInt(notice == null ? -1 : notice.ordinal());
        out.writeLong(effectiveMs);
        out.writeLong(successor == null ? 0 : successor.id);
        out.writeInt(successorGpus);
        out.writeInt(waitingSources);
        out.writeBoolean(preemptible());
        out.writeInt(sourceCount);
        for (int i = 0; i < sourceCount; i++)
        {
            final Order ask = sourceAsk[i];
            out.writeLong(sourceAskUid[i]);
            out.writeBoolean(ask != null && ask.uid == sourceAskUid[i] && ask.open);
            out.writeLong(sourceAskOrderId[i]);
            out.writeInt(sourceGpus[i]);
            out.writeLong(sourceVictim[i] == null ? 0 : sourceVictim[i].id);
        }
    }

    /**
     * A lease as {@link #write} wrote it, its renter and machine looked up by id (owner and market are the
     * machine's) and its live sources' asks by uid; the leases it refers to are set by {@link Restored#link}
     * once every lease is read. Not yet added to any list.
     */
    public static Restored read(final DataInput in, final LongFunction<Account> accounts,
        final LongFunction<Machine> machines, final LongFunction<Order> ordersByUid) throws IOException
    {
        final Lease l = new Lease();
        l.reset(in.readLong());
        l.state = in.readInt();
        l.renter = accounts.apply(in.readLong());
        l.machine = machines.apply(in.readLong());
        l.owner = l.machine.owner;
        l.market = l.machine.market;
        l.gpus = in.readInt();
        l.price = in.readLong();
        l.startMs = in.readLong();
        l.maxDurationMs = in.readLong();
        l.settledMs = in.readLong();
        l.totalCost = in.readLong();
        l.totalFee = in.readLong();
        l.hold = in.readLong();
        final int notice = in.readInt();
        l.notice = notice < 0 ? null : NoticeReason.values()[notice];
        l.effectiveMs = in.readLong();
        final long successorId = in.readLong();
        l.successorGpus = in.readInt();
        final int waiting = in.readInt();
        final boolean preemptible = in.readBoolean();
        final int sources = in.readInt();
        final long[] victimIds = new long[sources];
        for (int s = 0; s < sources; s++)
        {
            final long askUid = in.readLong();
            final boolean live = in.readBoolean();
            final long askOrderId = in.readLong();
            final int sourceGpus = in.readInt();
            victimIds[s] = in.readLong();
            l.addSource(live ? ordersByUid.apply(askUid) : null, askUid, askOrderId, sourceGpus, null);
        }
        l.waitingSources = waiting;
        return new Restored(l, successorId, victimIds, preemptible);
    }

    /** A lease {@link #read} from a snapshot, with the ids of the leases it refers to (0: none). */
    public record Restored(Lease lease, long successorId, long[] victimIds, boolean preemptible)
    {
        /** Sets the lease's successor and its sources' victims, once every lease of the snapshot is read. */
        public void link(final LongFunction<Lease> leases)
        {
            lease.successor = successorId == 0 ? null : leases.apply(successorId);
            for (int s = 0; s < victimIds.length; s++)
            {
                lease.sourceVictim[s] = victimIds[s] == 0 ? null : leases.apply(victimIds[s]);
            }
        }
    }

    /** Feeds what {@link #write} writes to the state hash, but for the index membership (the walk of the markets has it). */
    public void hash(final StateHasher h)
    {
        h.add(id).add(state).add(renter.id).add(owner.id).add(machine.id).add(gpus).add(price)
            .add(startMs).add(maxDurationMs).add(settledMs).add(totalCost).add(totalFee).add(hold)
            .add(notice == null ? -1 : notice.ordinal()).add(effectiveMs)
            .add(successor == null ? 0 : successor.id).add(successorGpus).add(waitingSources);
        for (int i = 0; i < sourceCount; i++)
        {
            h.add(sourceAskUid[i]).add(sourceAskOrderId[i]).add(sourceGpus[i])
                .add(sourceVictim[i] == null ? 0 : sourceVictim[i].id);
        }
    }

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
