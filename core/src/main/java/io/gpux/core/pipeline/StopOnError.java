package io.gpux.core.pipeline;

import com.lmax.disruptor.ExceptionHandler;

import java.util.function.Consumer;

/**
 * An error in a stage is a bug or a broken disk: the stage stops (nothing more is journaled or
 * applied, so the journal stays a true history), the error is reported, and tryPublish answers
 * false from then on.
 */
final class StopOnError<T> implements ExceptionHandler<T>
{
    private final String stage;
    private final PipelineState state;
    private final Consumer<String> log;
    /** The core, which goes on answering what is left in the ring; null for a stage after it. */
    private final CoreHandler core;

    StopOnError(final String stage, final PipelineState state, final Consumer<String> log, final CoreHandler core)
    {
        this.stage = stage;
        this.state = state;
        this.log = log;
        this.core = core;
    }

    @Override
    public void handleEventException(final Throwable ex, final long sequence, final T event)
    {
        if (ex instanceof Quarantine.PoisonCommandException poison)
        {
            log.accept("FATAL: " + poison.getMessage() + ". The command is quarantined and the core has " +
                "stopped; restart the exchange: it rebuilds its state from the journal without the command.");
            state.fail(ex);
            if (core != null)
            {
                // as after any failure of the core: it goes on taking commands only to answer each UNAVAILABLE
                core.abandonBatch();
                return;
            }
            throw poison;
        }
        state.fail(ex);
        log.accept("FATAL: the " + stage + " stage failed at ring sequence " + sequence + ": " + ex);
        final java.io.StringWriter trace = new java.io.StringWriter();
        ex.printStackTrace(new java.io.PrintWriter(trace));
        log.accept(trace.toString());
        if (core != null)
        {
            // the core goes on taking commands from the ring, only to answer each UNAVAILABLE
            core.abandonBatch();
            return;
        }
        throw ex instanceof RuntimeException r ? r : new IllegalStateException(ex);
    }

    @Override
    public void handleOnStartException(final Throwable ex)
    {
        handleEventException(ex, -1, null);
    }

    @Override
    public void handleOnShutdownException(final Throwable ex)
    {
        log.accept("the " + stage + " stage failed on shutdown: " + ex);
    }
}
