package io.gpux.engine.pipeline;

import io.gpux.engine.command.Command;

/** A preallocated input ring entry, filled in place by producers. */
public final class CommandSlot
{
    public final Command command = new Command();
}
