package io.gpux.engine;

import io.gpux.common.Money;
import io.gpux.engine.event.RejectReason;

import java.util.Arrays;

/**
 * What a bid would do if it arrived now ({@link MatchingEngine#quote}): a reusable result holder,
 * filled in place on the core thread. Read it there, or copy it out.
 */
public final class Quote
{
    /** Why the engine would reject the bid; null if it would accept it. */
    public RejectReason reject;
    /** FOK only: the bid would be accepted and cancelled at once, because it cannot fill whole. */
    public boolean fokCancelled;

    public int fillCount;
    public long[] fillMachine = new long[8];
    public int[] fillGpus = new int[8];
    public long[] fillPrice = new long[8];

    public int preemptionCount;
    public long[] preemptLease = new long[8];
    public long[] preemptMachine = new long[8];
    public int[] preemptGpus = new int[8];
    public long[] preemptLeasePrice = new long[8];

    /** GPUs filled from open asks now (for a gang bid that preempts: the free GPUs of its machine). */
    public int filledGpus;
    /** GPUs taken from running leases, starting at {@link #effectiveMs}. */
    public int preemptedGpus;
    /** GPUs that would rest on the book (GTC). */
    public int restingGpus;
    /** Money the bid would hold on entry. */
    public long hold;
    /** When GPUs taken by preemption would start: the engine's time plus the market's grace. */
    public long effectiveMs;

    void clear()
    {
        reject = null;
        fokCancelled = false;
        fillCount = 0;
        preemptionCount = 0;
        filledGpus = 0;
        preemptedGpus = 0;
        restingGpus = 0;
        hold = 0;
        effectiveMs = 0;
    }

    void addFill(final long machineId, final int gpus, final long price)
    {
        if (fillCount == fillMachine.length)
        {
            fillMachine = Arrays.copyOf(fillMachine, fillCount * 2);
            fillGpus = Arrays.copyOf(fillGpus, fillCount * 2);
            fillPrice = Arrays.copyOf(fillPrice, fillCount * 2);
        }
        fillMachine[fillCount] = machineId;
        fillGpus[fillCount] = gpus;
        fillPrice[fillCount] = price;
        fillCount++;
        filledGpus += gpus;
    }

    void addPreemption(final long leaseId, final long machineId, final int gpus, final long leasePrice)
    {
        if (preemptionCount == preemptLease.length)
        {
            preemptLease = Arrays.copyOf(preemptLease, preemptionCount * 2);
            preemptMachine = Arrays.copyOf(preemptMachine, preemptionCount * 2);
            preemptGpus = Arrays.copyOf(preemptGpus, preemptionCount * 2);
            preemptLeasePrice = Arrays.copyOf(preemptLeasePrice, preemptionCount * 2);
        }
        preemptLease[preemptionCount] = leaseId;
        preemptMachine[preemptionCount] = machineId;
        preemptGpus[preemptionCount] = gpus;
        preemptLeasePrice[preemptionCount] = leasePrice;
        preemptionCount++;
        preemptedGpus += gpus;
    }
}
