package io.gpux.core.pipeline;

import io.gpux.engine.MatchingEngine;

/**
 * A read of the engine's state, run on the core thread between two commands, so that it sees exactly
 * the state those commands left (never a torn one). It must not change the engine's state, must not
 * block, and should be quick: it holds up the whole exchange while it runs. It is not journaled.
 */
@FunctionalInterface
public interface Query
{
    void run(MatchingEngine engine);
}
