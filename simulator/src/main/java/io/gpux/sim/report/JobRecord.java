package io.gpux.sim.report;

/**
 * A renter's job (or a market-maker's standing batch demand): the GPUs it wants, the value of a
 * GPU-hour to it, when it arrived and how it ended.
 */
public final class JobRecord
{
    /** How often a waiting job looks at its bid (raises it, or gives up). */
    public static final long PATIENCE_MS = 45 * 60_000L;
    /** A job gives up at the first look after waiting this long without GPUs. */
    public static final long MAX_WAIT_MS = 12 * 3_600_000L;

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
    /** How long each lease of the job restarts it before it works, ms (0: none; see the bound's {@link #boundGpuHours}). */
    public long restartMs;
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
    /** GPU-ms its leases spent restarting the job before it worked on them. */
    public long restartGpuMs;
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

    /**
     * The end of the time in which the market can serve this job: a job not served by then has given up
     * (it looks at its bid every {@link #PATIENCE_MS} and gives up once it has waited {@link #MAX_WAIT_MS}),
     * and one that starts by then, on all its GPUs, is done {@code workMs} later; a job served past that
     * (on fewer GPUs, or after an interruption) keeps its real end, so the market's own allocation always
     * fits in the window.
     */
    public long windowEndMs(final long closeMs)
    {
        final long rule = arrivalMs + MAX_WAIT_MS + PATIENCE_MS + restartMs + workMs;
        if (firstLeaseMs < 0)
        {
            return Math.min(closeMs, rule);
        }
        return Math.min(closeMs, Math.max(rule, endMs < 0 ? closeMs : endMs));
    }

    /**
     * The restart GPU-ms the surplus bound gives the job: what any allocation that serves it at all pays at
     * least, one restart on each of a gang's GPUs (they run at once) and on one GPU of a job that may spread
     * (it may run on one GPU at a time).
     */
    public static long boundRestartGpuMs(final int gpus, final boolean gang, final long restartMs)
    {
        return (gang ? gpus : 1) * restartMs;
    }

    /**
     * The GPU-hours the surplus bound gives the job: its work and {@link #boundRestartGpuMs}, at {@link #boundValue}
     * per GPU-hour, so that the whole of it is worth the work. Serving a share of it pays that share of the restart:
     * at most what a real allocation pays for the same share of the work, so the bound stays an upper bound.
     */
    public static double boundGpuHours(final int gpus, final boolean gang, final long workMs, final long restartMs)
    {
        return ((double)gpus * workMs + boundRestartGpuMs(gpus, gang, restartMs)) / 3_600_000.0;
    }

    /** The value per GPU-hour of {@link #boundGpuHours}: the job's value, spread over its restart as well. */
    public static double boundValue(final double value, final int gpus, final boolean gang, final long workMs,
        final long restartMs)
    {
        final double work = (double)gpus * workMs;
        final double all = work + boundRestartGpuMs(gpus, gang, restartMs);
        return all == 0 ? value : value * work / all;
    }
}
