package io.gpux.client;

import java.util.Arrays;

/**
 * The leases a {@link SpotRequest} tracks: id, GPUs, state (waiting to start, running, under a
 * preemption notice), price once started and the lease a move onto it replaces, in parallel primitive
 * arrays that grow by doubling. Used on the client's event thread only, like its request.
 */
final class SpotLeases
{
    static final byte WAITING = 0;
    static final byte ACTIVE = 1;
    static final byte NOTICED = 2;

    private long[] ids = new long[4];
    private int[] gpus = new int[4];
    private byte[] states = new byte[4];
    /** Price per GPU-hour once started (0 before). */
    private long[] prices = new long[4];
    /** The lease a move onto this one replaces, or 0. */
    private long[] replaces = new long[4];
    private int count;

    int count()
    {
        return count;
    }

    long id(final int index)
    {
        return ids[index];
    }

    byte state(final int index)
    {
        return states[index];
    }

    void state(final int index, final byte state)
    {
        states[index] = state;
    }

    int gpus(final int index)
    {
        return gpus[index];
    }

    long price(final int index)
    {
        return prices[index];
    }

    void price(final int index, final long price)
    {
        prices[index] = price;
    }

    long replaces(final int index)
    {
        return replaces[index];
    }

    void replaces(final int index, final long leaseId)
    {
        replaces[index] = leaseId;
    }

    void addGpus(final int index, final int more)
    {
        gpus[index] += more;
    }

    /** GPUs in leases without a notice, started or waiting to start. */
    int gpusWithoutNotice()
    {
        int sum = 0;
        for (int i = 0; i < count; i++)
        {
            sum += states[i] == NOTICED ? 0 : gpus[i];
        }
        return sum;
    }

    /** GPUs in leases that have started and have no notice. */
    int activeGpus()
    {
        int sum = 0;
        for (int i = 0; i < count; i++)
        {
            sum += states[i] == ACTIVE ? gpus[i] : 0;
        }
        return sum;
    }

    /** @return the lease's index, or -1 if it is not tracked. */
    int find(final long leaseId)
    {
        for (int i = 0; i < count; i++)
        {
            if (ids[i] == leaseId)
            {
                return i;
            }
        }
        return -1;
    }

    /** Tracks a lease, waiting to start. */
    void add(final long leaseId, final int leaseGpus)
    {
        if (count == ids.length)
        {
            ids = Arrays.copyOf(ids, count * 2);
            gpus = Arrays.copyOf(gpus, count * 2);
            states = Arrays.copyOf(states, count * 2);
            prices = Arrays.copyOf(prices, count * 2);
            replaces = Arrays.copyOf(replaces, count * 2);
        }
        ids[count] = leaseId;
        gpus[count] = leaseGpus;
        states[count] = WAITING;
        prices[count] = 0;
        replaces[count] = 0;
        count++;
    }

    /** Forgets a lease; the last one takes its index. */
    void remove(final int index)
    {
        final int last = --count;
        ids[index] = ids[last];
        gpus[index] = gpus[last];
        states[index] = states[last];
        prices[index] = prices[last];
        replaces[index] = replaces[last];
    }
}
