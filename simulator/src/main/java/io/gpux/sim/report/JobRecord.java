package io.gpux.sim.report;

/**
 * A renter's job (or a market-maker's standing batch demand): the GPUs it wants, the value of a
 * GPU-hour to it, when it arrived and how it ended.
 */
public final class JobRecord
{
    public enum Outcome
    {
        /** All its work done. */
        DONE,
        /** Given up: no lease after waiting too long. */
        GAVE_UP,
        /** Given up: its bids were refused (funds). */
        NO_FUNDS,
        /** Still running or waiting when the run ended. */
        OPEN,
        /** A market-maker's batch demand (open for the whole run). */
        BATCH
    }

    public final long id;
    public final String renter;
    public final String market;
    public final int gpus;
    public final boolean gang;
    /** Private value, currency per GPU-hour. */
    public final double value;
    public final long arrivalMs;
    /** Work needed per GPU, ms. */
    public final long workMs;
    public long firstBidTicks;
    public long lastBidTicks;
    public int escalations;
    public long firstLeaseMs = -1;
    public long endMs = -1;
    public Outcome outcome = Outcome.OPEN;
    public long doneGpuMs;
    public long lostGpuMs;
    /** GPU-ms its leases spent on broken machines before the exchange ended them. */
    public long deadGpuMs;
    public long savedGpuMs;

    public JobRecord(final long id, final String renter, final String market, final int gpus, final boolean gang,
        final double value, final long arrivalMs, final long workMs)
    {
        this.id = id;
        this.renter = renter;
        this.market = market;
        this.gpus = gpus;
        this.gang = gang;
        this.value = value;
        this.arrivalMs = arrivalMs;
        this.workMs = workMs;
    }
}
