package io.gpux.client;

import java.util.Arrays;

/**
 * The open bids a {@link SpotRequest} tracks: order id, the request id awaiting its answer (0 once
 * answered), GPUs still open, whether it may not preempt (a calm period's bid), whether it was placed on
 * a notice, and, for a move's bid, the lease it would replace; in parallel primitive arrays that grow by
 * doubling. Used on the client's event thread only, like its request.
 */
final class SpotBids
{
    private long[] orderIds = new long[4];
    private long[] requestIds = new long[4];
    private int[] openGpus = new int[4];
    private boolean[] noPreempt = new boolean[4];
    private boolean[] onNotice = new boolean[4];
    private long[] movesLease = new long[4];
    private int count;

    int count()
    {
        return count;
    }

    long orderId(final int index)
    {
        return orderIds[index];
    }

    void requestId(final int index, final long requestId)
    {
        requestIds[index] = requestId;
    }

    int openGpus(final int index)
    {
        return openGpus[index];
    }

    /** {@code gpus} of the bid filled; returns the GPUs still open. */
    int filled(final int index, final int gpus)
    {
        openGpus[index] -= gpus;
        return openGpus[index];
    }

    /** Whether it is a calm period's bid, which may not preempt. */
    boolean calm(final int index)
    {
        return noPreempt[index];
    }

    void calm(final int index, final boolean calm)
    {
        noPreempt[index] = calm;
    }

    boolean onNotice(final int index)
    {
        return onNotice[index];
    }

    /** For a move's bid, the lease it would replace; 0 for a bid for missing GPUs. */
    long movesLease(final int index)
    {
        return movesLease[index];
    }

    /** GPUs the bids for missing GPUs still ask for (a move's bid is not counted). */
    int missingGpus()
    {
        int sum = 0;
        for (int i = 0; i < count; i++)
        {
            sum += movesLease[i] == 0 ? openGpus[i] : 0;
        }
        return sum;
    }

    /** @return the bid's index, or -1 if it is not tracked. */
    int find(final long orderId)
    {
        for (int i = 0; i < count; i++)
        {
            if (orderIds[i] == orderId)
            {
                return i;
            }
        }
        return -1;
    }

    /** @return the index of the bid whose answer {@code requestId} is, or -1. */
    int findRequest(final long requestId)
    {
        for (int i = 0; i < count; i++)
        {
            if (requestIds[i] == requestId)
            {
                return i;
            }
        }
        return -1;
    }

    /** Whether a move's bid for {@code leaseId} is out. */
    boolean moving(final long leaseId)
    {
        for (int i = 0; i < count; i++)
        {
            if (movesLease[i] == leaseId)
            {
                return true;
            }
        }
        return false;
    }

    void add(final long orderId, final int open, final boolean calm, final boolean placedOnNotice, final long replaces)
    {
        if (count == orderIds.length)
        {
            orderIds = Arrays.copyOf(orderIds, count * 2);
            requestIds = Arrays.copyOf(requestIds, count * 2);
            openGpus = Arrays.copyOf(openGpus, count * 2);
            noPreempt = Arrays.copyOf(noPreempt, count * 2);
            onNotice = Arrays.copyOf(onNotice, count * 2);
            movesLease = Arrays.copyOf(movesLease, count * 2);
        }
        orderIds[count] = orderId;
        requestIds[count] = 0;
        openGpus[count] = open;
        noPreempt[count] = calm;
        onNotice[count] = placedOnNotice;
        movesLease[count] = replaces;
        count++;
    }

    /** Forgets a bid; the last one takes its index. */
    void remove(final int index)
    {
        final int last = --count;
        orderIds[index] = orderIds[last];
        requestIds[index] = requestIds[last];
        openGpus[index] = openGpus[last];
        noPreempt[index] = noPreempt[last];
        onNotice[index] = onNotice[last];
        movesLease[index] = movesLease[last];
    }
}
