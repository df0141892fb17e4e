package io.gpux.sim.report;

/**
 * One lease as one side saw it through its account events (times are the events' exchange times;
 * -1: not seen). The renter's side knows the job and its value; the owner's side knows the machine.
 */
public final class LeaseRecord
{
    public final long leaseId;
    public final boolean renterSide;
    public String market = "";
    public long machineId;
    public int gpus;
    /** Price ticks per GPU-hour. */
    public long price;
    public long fillMs = -1;
    public long startMs = -1;
    public long endMs = -1;
    public long noticeMs = -1;
    /** Renter side: when the renter first asked to release the lease (-1: never). */
    public long releaseMs = -1;
    /** The notice's reason (OUTBID, NOTICE_OWNER_RECLAIM, NOTICE_INSUFFICIENT_FUNDS), or null. */
    public String noticeReason;
    /** The end's reason (RELEASED, EXPIRED, PREEMPTED, OWNER_RECLAIMED, MACHINE_OFFLINE, END_INSUFFICIENT_FUNDS), or null. */
    public String endReason;
    public long costMicros;
    public long feeMicros;
    /** Renter side: the job (0: none) and its value per GPU-hour. */
    public long jobId;
    public double value;
    /** Renter side: GPU-milliseconds of work lost since the last checkpoint when the lease stopped working. */
    public long lostGpuMs;
    /** Renter side: GPU-milliseconds on a machine that had broken, before the exchange ended the lease. */
    public long deadGpuMs;
    /** Renter side: GPU-milliseconds the job spent restarting on the lease (loading its checkpoint) before it worked. */
    public long restartGpuMs;
    /** Renter side: GPU-milliseconds of work the lease did that was kept (not lost, not beyond the job's need). */
    public long usefulGpuMs;
    /** Renter side: GPU-milliseconds of work saved by checkpointing on the notice. */
    public long savedGpuMs;

    public LeaseRecord(final long leaseId, final boolean renterSide)
    {
        this.leaseId = leaseId;
        this.renterSide = renterSide;
    }

    public boolean started()
    {
        return startMs >= 0;
    }
}
