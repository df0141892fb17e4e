package io.gpux.client.agent.workload;

import io.gpux.client.agent.GpuInfo;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Which of the machine's GPUs each live lease holds: disjoint sets, assigned when a lease starts and
 * released when it ends. Free GPUs are handed out least recently released first (GPUs never used
 * first, by index): a GPU a workload was just killed on may still be freeing its memory, and a
 * retried workload lands on other GPUs than the ones it failed on when there are any. Not
 * thread-safe: one owner, the {@link WorkloadSupervisor}.
 */
public final class GpuAssignment
{
    private static final long FREE = -1;

    private final List<GpuInfo> gpus;
    private final long[] holder;
    private final long[] releasedAt;
    private long releases;

    /**
     * @param gpus the machine's GPUs as discovered; their indices must be distinct.
     * @throws IllegalArgumentException if two GPUs have the same index.
     */
    public GpuAssignment(final List<GpuInfo> gpus)
    {
        this.gpus = List.copyOf(gpus);
        this.holder = new long[this.gpus.size()];
        this.releasedAt = new long[this.gpus.size()];
        Arrays.fill(holder, FREE);
        final long distinct = this.gpus.stream().mapToInt(GpuInfo::index).distinct().count();
        if (distinct != this.gpus.size())
        {
            throw new IllegalArgumentException("two GPUs share an index");
        }
    }

    /**
     * Gives a lease its GPUs.
     *
     * @param leaseId the lease, which must hold none yet.
     * @param count   how many GPUs, at least 1.
     * @return the lease's GPUs, in index order.
     * @throws IllegalStateException    if fewer than count are free or the lease already holds GPUs;
     *                                  the message is the reason for the renter.
     * @throws IllegalArgumentException if count is below 1.
     */
    public List<GpuInfo> assign(final long leaseId, final int count)
    {
        if (count < 1)
        {
            throw new IllegalArgumentException("a lease needs at least 1 GPU, got " + count);
        }
        checkHoldsNone(leaseId);
        final List<Integer> free = new ArrayList<>();
        for (int i = 0; i < holder.length; i++)
        {
            if (holder[i] == FREE)
            {
                free.add(i);
            }
        }
        if (free.size() < count)
        {
            throw new IllegalStateException("lease " + leaseId + " needs " + count + " GPUs, " + free.size() + " of "
                + holder.length + " are free");
        }
        free.sort(Comparator.<Integer>comparingLong(i -> releasedAt[i]).thenComparing(i -> gpus.get(i).index()));
        for (int k = 0; k < count; k++)
        {
            holder[free.get(k)] = leaseId;
        }
        return gpusOf(leaseId);
    }

    /**
     * Gives a lease the GPUs it is known to hold already (a workload found running after a restart).
     *
     * @param leaseId the lease, which must hold none yet.
     * @param indices the GPUs' indices as nvidia-smi reports them.
     * @throws IllegalStateException if an index is unknown or held by another lease.
     */
    public List<GpuInfo> adopt(final long leaseId, final List<Integer> indices)
    {
        checkHoldsNone(leaseId);
        final List<Integer> positions = new ArrayList<>();
        for (final int index : indices)
        {
            final int position = positionOf(index);
            if (position < 0)
            {
                throw new IllegalStateException("lease " + leaseId + " held GPU " + index + ", which this machine lacks");
            }
            if (holder[position] != FREE)
            {
                throw new IllegalStateException("lease " + leaseId + " held GPU " + index + ", now held by lease "
                    + holder[position]);
            }
            positions.add(position);
        }
        for (final int position : positions)
        {
            holder[position] = leaseId;
        }
        return gpusOf(leaseId);
    }

    /**
     * Frees a lease's GPUs.
     *
     * @return whether it held any.
     */
    public boolean release(final long leaseId)
    {
        boolean held = false;
        for (int i = 0; i < holder.length; i++)
        {
            if (holder[i] == leaseId)
            {
                holder[i] = FREE;
                releasedAt[i] = ++releases;
                held = true;
            }
        }
        return held;
    }

    /** The GPUs a lease holds, in index order; empty if none. */
    public List<GpuInfo> gpusOf(final long leaseId)
    {
        final List<GpuInfo> held = new ArrayList<>();
        for (int i = 0; i < holder.length; i++)
        {
            if (holder[i] == leaseId)
            {
                held.add(gpus.get(i));
            }
        }
        held.sort(Comparator.comparingInt(GpuInfo::index));
        return held;
    }

    /** How many GPUs no lease holds. */
    public int freeCount()
    {
        int free = 0;
        for (final long lease : holder)
        {
            if (lease == FREE)
            {
                free++;
            }
        }
        return free;
    }

    /** The lease holding the GPU with this index, or -1 if it is free or unknown. */
    public long holderOf(final int index)
    {
        final int position = positionOf(index);
        return position < 0 ? FREE : holder[position];
    }

    private void checkHoldsNone(final long leaseId)
    {
        if (leaseId == FREE)
        {
            throw new IllegalArgumentException("lease id -1 is reserved");
        }
        for (final long lease : holder)
        {
            if (lease == leaseId)
            {
                throw new IllegalStateException("lease " + leaseId + " already holds GPUs");
            }
        }
    }

    private int positionOf(final int index)
    {
        for (int i = 0; i < gpus.size(); i++)
        {
            if (gpus.get(i).index() == index)
            {
                return i;
            }
        }
        return -1;
    }
}
