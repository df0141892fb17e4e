package io.gpux.core.pipeline;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.event.Event;

/**
 * Receives every event after it is journaled, in engine order, on the thread that writes the event
 * journal (the core thread with inline output, else the output thread). The event is a flyweight: copy
 * what must outlive the call. Must not block: it holds up every publisher, and inline, the exchange.
 */
@FunctionalInterface
public interface EventPublisher
{
    void onEvent(Event event);

    /**
     * Called after the last event of a command published with a non-zero
     * {@link CommandSlot#correlation}, in order with the events.
     *
     * @param commandSequence the command's place in the command journal.
     * @param correlation     the producer's tag.
     */
    default void onCommandComplete(final long commandSequence, final long correlation)
    {
    }

    /**
     * Called instead of {@link #onCommandComplete} for a command published with a non-zero correlation
     * that was neither journaled nor applied (the journal disk is short of space, or the core has
     * stopped): the producer should answer it UNAVAILABLE with {@code reason}.
     *
     * @param correlation the producer's tag.
     * @param reason      one line for the user, e.g. "journal disk full: 3 MB free under /data, need 64 MB".
     */
    default void onCommandRefused(final long correlation, final String reason)
    {
    }

    /**
     * Called on the core thread once the pipeline has recovered, before the first live command: the
     * place to read the recovered state (the only moment another component may read it safely).
     */
    default void onRecovered(final MatchingEngine engine)
    {
    }

    /**
     * Called on the core thread after each batch of commands is applied and its events published:
     * the place to derive views of the engine's state, such as market data, without a query.
     */
    default void onBatchApplied(final MatchingEngine engine)
    {
    }
}
