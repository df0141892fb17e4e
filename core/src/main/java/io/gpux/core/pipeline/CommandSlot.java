package io.gpux.core.pipeline;

import io.gpux.engine.command.Command;

/**
 * A preallocated input ring entry, filled in place by producers: a command to journal and apply, or
 * a query to run against the engine's state at that point of the command stream.
 */
public final class CommandSlot
{
    public final Command command = new Command();
    /**
     * The producer's tag for this command (e.g. session and request): when not 0, every publisher's
     * {@link EventPublisher#onCommandComplete} is called with it after the command's events. Not journaled.
     */
    public long correlation;
    /** When set, the slot is a query: run on the core thread, neither journaled nor sequenced. */
    public Query query;

    /** Makes the slot a plain command with no correlation; returns the command to fill. */
    public Command command()
    {
        correlation = 0;
        query = null;
        return command;
    }
}
