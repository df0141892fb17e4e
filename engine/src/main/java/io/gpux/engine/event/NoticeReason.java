package io.gpux.engine.event;

/** Why a lease received a preemption notice, and how it ends when the notice takes effect. */
public enum NoticeReason
{
    OUTBID(EndReason.PREEMPTED), OWNER_RECLAIM(EndReason.OWNER_RECLAIMED), INSUFFICIENT_FUNDS(EndReason.INSUFFICIENT_FUNDS);

    private final EndReason endReason;

    NoticeReason(final EndReason endReason)
    {
        this.endReason = endReason;
    }

    public EndReason endReason()
    {
        return endReason;
    }
}
