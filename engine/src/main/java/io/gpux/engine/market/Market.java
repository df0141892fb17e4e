package io.gpux.engine.market;

import io.gpux.engine.book.BookSide;
import io.gpux.engine.hash.StateHasher;
import io.gpux.engine.lease.LeaseIndex;

import org.agrona.collections.Long2LongHashMap;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/** A market: one GPU class, its parameters (rulebook section 2), its book and its preemptible leases. */
public final class Market
{
    public static final long DEFAULT_TICK = 1;
    public static final int DEFAULT_MAX_GPUS_PER_ORDER = 1024;
    public static final long DEFAULT_GRACE_MS = 30_000;
    public static final int DEFAULT_FEE_BPS = 250;
    public static final long DEFAULT_PREPAY_MS = 3_600_000;
    /** The largest preemption increment: a bid must then be at least twice the victim's price. */
    public static final int MAX_PREEMPT_INCREMENT_BPS = 10_000;
    private static final long BPS = 10_000;

    public final long id;
    public final String name;
    public long tick = DEFAULT_TICK;
    public boolean preemption = true;
    public long graceMs = DEFAULT_GRACE_MS;
    public long minIncrement = DEFAULT_TICK;
    /** Basis points of a lease's price that a bid must beat it by, besides minIncrement, to preempt it (0: none). */
    public int preemptIncrementBps;
    /** Whether a bid takes, among equally priced asks, those of the machine with the fewest free GPUs first. */
    public boolean fragmentFirst;
    public int feeBps = DEFAULT_FEE_BPS;
    public long prepayMs = DEFAULT_PREPAY_MS;
    public int maxGpusPerOrder = DEFAULT_MAX_GPUS_PER_ORDER;
    public boolean halted;

    public final BookSide bids = new BookSide(true);
    public final BookSide asks = new BookSide(false);
    public final LeaseIndex preemptible = new LeaseIndex();

    /** The GPUs of its machines together, and of its largest machine (machines are never removed). */
    private long gpus;
    private long largestMachineGpus;
    /** The same per region name id, for machines that name one. */
    private final Long2LongHashMap regionGpus = new Long2LongHashMap(0);
    private final Long2LongHashMap regionLargest = new Long2LongHashMap(0);

    public Market(final long id, final String name)
    {
        this.id = id;
        this.name = name;
    }

    /** Its parameters, as the engine snapshot holds them (the book and the lease index are rebuilt from orders and leases). */
    public void write(final DataOutput out) throws IOException
    {
        out.writeLong(id);
        out.writeUTF(name);
        out.writeLong(tick);
        out.writeBoolean(preemption);
        out.writeLong(graceMs);
        out.writeLong(minIncrement);
        out.writeInt(preemptIncrementBps);
        out.writeBoolean(fragmentFirst);
        out.writeInt(feeBps);
        out.writeLong(prepayMs);
        out.writeInt(maxGpusPerOrder);
        out.writeBoolean(halted);
    }

    /**
     * A market as {@link #write} wrote it, with an empty book and no machines counted yet; {@code levers}: whether
     * it holds the preemption increment and fragment-first placement (snapshots before them restore the defaults).
     */
    public static Market read(final DataInput in, final boolean levers) throws IOException
    {
        final Market m = new Market(in.readLong(), in.readUTF());
        m.tick = in.readLong();
        m.preemption = in.readBoolean();
        m.graceMs = in.readLong();
        m.minIncrement = in.readLong();
        if (levers)
        {
            m.preemptIncrementBps = in.readInt();
            m.fragmentFirst = in.readBoolean();
        }
        m.feeBps = in.readInt();
        m.prepayMs = in.readLong();
        m.maxGpusPerOrder = in.readInt();
        m.halted = in.readBoolean();
        return m;
    }

    /** Feeds its parameters to the state hash (the engine's walk adds the book and the lease index). */
    public void hash(final StateHasher h)
    {
        h.add(id).str(name).add(tick).bool(preemption).add(graceMs).add(minIncrement)
            .add(preemptIncrementBps).bool(fragmentFirst).add(feeBps).add(prepayMs).add(maxGpusPerOrder).bool(halted);
    }

    /** Counts a machine registered in this market, of {@code machineGpus} GPUs in region {@code regionId} (0: none). */
    public void machineAdded(final long regionId, final int machineGpus)
    {
        gpus += machineGpus;
        largestMachineGpus = Math.max(largestMachineGpus, machineGpus);
        if (regionId != 0)
        {
            regionGpus.put(regionId, regionGpus.get(regionId) + machineGpus);
            regionLargest.put(regionId, Math.max(regionLargest.get(regionId), machineGpus));
        }
    }

    /** The GPUs of its machines together, of those in region {@code regionId} when it is not 0. */
    public long machineGpus(final long regionId)
    {
        return regionId == 0 ? gpus : regionGpus.get(regionId);
    }

    /** The GPUs of its largest machine, of those in region {@code regionId} when it is not 0; 0 when none. */
    public long largestMachineGpus(final long regionId)
    {
        return regionId == 0 ? largestMachineGpus : regionLargest.get(regionId);
    }

    /**
     * The highest lease price a bid at {@code bidPrice} may preempt: at least minIncrement below it, and the
     * bid at least preemptIncrementBps of the lease's price above it (rulebook section 6.2).
     */
    public long preemptLimit(final long bidPrice)
    {
        final long limit = bidPrice - minIncrement;
        return preemptIncrementBps == 0 ? limit : Math.min(limit, bidPrice * BPS / (BPS + preemptIncrementBps));
    }

    /** A symbol of 2 to 32 characters from A-Z 0-9 - . _ */
    public static boolean validSymbol(final String s)
    {
        if (s == null || s.length() < 2 || s.length() > 32)
        {
            return false;
        }
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_'))
            {
                return false;
            }
        }
        return true;
    }
}
