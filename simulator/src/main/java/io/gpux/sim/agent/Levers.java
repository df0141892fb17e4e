package io.gpux.sim.agent;

/**
 * The agents' side of the levers a run can switch ({@code ./gpux sim --calm-after-notice --clearing-owners
 * --night-batch --move-when-cheaper --hand-over-on-notice}); the markets' side is in {@link io.gpux.sim.market.MarketRules}.
 *
 * @param calmAfterNoticeMs after a preemption notice, how long a renter's {@link io.gpux.client.SpotRequest}
 *                          bids without preempting (0: it preempts at once, as any bid).
 * @param clearingOwners    whether owners price with {@link io.gpux.client.agent.ClearingPricing} every
 *                          {@link #CLEARING_EVERY_MS}, reading their market's book, instead of reviewing their
 *                          markup every few hours.
 * @param nightBatch        cheap batch jobs at night: their mean arrival rate as a share of a renter's daytime
 *                          jobs (0: none).
 * @param moveSavingBps     whether renters' jobs move to cheaper GPUs ({@link io.gpux.client.SpotRequest#moveWhenCheaper}):
 *                          every {@code moveEveryMs}, onto GPUs at least this many basis points cheaper than
 *                          a running lease's price (0: they never move).
 * @param moveEveryMs       how often a job that moves looks for cheaper GPUs ({@link #MOVE_EVERY_MS} by default).
 * @param handOverOnNotice  whether renters' jobs, on a preemption notice, checkpoint and release the lease at once
 *                          (as {@code gpux run} does once its workload has exited), handing the GPUs to the
 *                          preempting bid, instead of working on through the grace period.
 * @param restartMs         not a lever but a cost the levers pay: every lease a renter's job starts on (its first,
 *                          a replacement after a preemption, a move) spends this long restarting (loading the
 *                          job and its checkpoint) before it works (0: a job works from its lease's first
 *                          millisecond).
 */
public record Levers(long calmAfterNoticeMs, boolean clearingOwners, double nightBatch, int moveSavingBps, long moveEveryMs,
    boolean handOverOnNotice, long restartMs)
{
    /** How often a job that moves looks for cheaper GPUs, by default. */
    public static final long MOVE_EVERY_MS = 30 * AgentParameters.MINUTE;
    /** How often clearing owners re-price. */
    public static final long CLEARING_EVERY_MS = 5 * AgentParameters.MINUTE;
    /**
     * None of the levers: renters re-bid and may preempt at once, owners review their markup, no night batch; no restart
     * time.
     */
    public static final Levers NONE = new Levers(0, false, 0, 0, MOVE_EVERY_MS, false, 0);

    public Levers
    {
        if (calmAfterNoticeMs < 0 || nightBatch < 0 || moveSavingBps < 0 || moveSavingBps >= 10_000 || moveEveryMs <= 0
            || restartMs < 0)
        {
            throw new IllegalArgumentException("the calm period, the night batch share and the restart time must not be "
                + "negative, the move's saving 0 to 9999 basis points, its period positive");
        }
    }
}
