package io.gpux.core.pipeline;

/** How far a command is made durable before the engine applies it and its events leave. */
public enum Durability
{
    /** Written to the journal's memory-mapped file: survives a killed process, not a power loss. */
    ASYNC,
    /** Forced to the storage device (msync) once per batch, before any event of the batch leaves. */
    SYNC
}
