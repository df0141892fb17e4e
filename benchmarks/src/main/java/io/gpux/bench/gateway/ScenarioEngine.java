package io.gpux.bench.gateway;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.command.Command;
import io.gpux.engine.replay.ScenarioException;
import io.gpux.engine.replay.ScenarioParser;

/** An engine that has applied a scenario's lines, for a benchmark's setup. */
final class ScenarioEngine
{
    private ScenarioEngine()
    {
    }

    /** Applies every line of {@code scenario} to a new engine whose events go nowhere. */
    static MatchingEngine of(final ScenarioParser parser, final String scenario) throws ScenarioException
    {
        final MatchingEngine engine = new MatchingEngine(event -> { });
        final Command c = new Command();
        int line = 0;
        for (final String text : scenario.split("\n"))
        {
            if (parser.parse(text, ++line, c))
            {
                engine.apply(c);
            }
        }
        return engine;
    }
}
