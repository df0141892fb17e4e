package io.gpux.sim.agent;

import io.gpux.sim.report.MachineRecord;

/** One machine of a seller (an owner or a market-maker's fleet) and the state of its ask. */
final class FleetMachine
{
    final MachineRecord record;
    final GpuClass gpuClass;
    /** The owner's cost, ticks per GPU-hour: it never asks less. */
    final long costTicks;
    long machineId;
    long askOrderId;
    long askPrice;
    boolean askOpen;
    boolean failed;
    boolean reclaimed;
    /** GPUs in started, not ended leases (owner side). */
    int leasedGpus;
    /** Market time since which the machine has had unleased GPUs on an open ask (-1: fully leased or not listed). */
    long idleSinceMs = -1;
    /** For an owner's periodic review: leased GPU-milliseconds accumulated, and when it was last brought up to date. */
    long leasedGpuMs;
    long leasedAccountedMs;

    FleetMachine(final MachineRecord record, final GpuClass gpuClass)
    {
        this.record = record;
        this.gpuClass = gpuClass;
        this.costTicks = Draw.ticks(record.cost);
    }

    int gpus()
    {
        return record.gpus;
    }

    int freeGpus()
    {
        return Math.max(0, record.gpus - leasedGpus);
    }

    void accountLeased(final long now)
    {
        if (leasedAccountedMs > 0 && now > leasedAccountedMs)
        {
            leasedGpuMs += (long)leasedGpus * (now - leasedAccountedMs);
        }
        leasedAccountedMs = now;
    }
}
