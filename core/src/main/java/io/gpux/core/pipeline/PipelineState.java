package io.gpux.core.pipeline;

import io.gpux.core.journal.JournalSpace;

/**
 * Whether the pipeline takes commands: it stops for good on the first failure of a stage, and refuses
 * commands for a while when the journal disk is short of space. Read by every stage and producer; the
 * failure is written once, by the stage that failed.
 */
final class PipelineState
{
    private final JournalSpace space;
    private volatile Throwable failure;

    PipelineState(final JournalSpace space)
    {
        this.space = space;
    }

    boolean failed()
    {
        return failure != null;
    }

    Throwable failure()
    {
        return failure;
    }

    void fail(final Throwable ex)
    {
        failure = ex;
    }

    /** Whether a command may be published now. */
    boolean accepting()
    {
        return failure == null && space.refusal() == null;
    }

    /** Why commands are refused now, or null when they are accepted. */
    String refusal()
    {
        final Throwable f = failure;
        return f != null ? stoppedReason(f) : space.refusal();
    }

    /** Why the pipeline stopped, in one line, or null while it runs. */
    String failureReason()
    {
        final Throwable f = failure;
        if (f == null)
        {
            return null;
        }
        return f instanceof Quarantine.PoisonCommandException ? f.getMessage() : f.getClass().getSimpleName() + ": " + f.getMessage();
    }

    private static String stoppedReason(final Throwable f)
    {
        return "the exchange core has stopped (" + (f.getMessage() != null ? f.getMessage() : f.getClass().getSimpleName()) +
            "): see the server log";
    }
}
