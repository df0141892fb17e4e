package io.gpux.sim.market;

import io.gpux.engine.replay.ScenarioReplayer;
import io.gpux.sim.DemoRun;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The demo's exchange settings: a restart window of a minute of wall time, which the engine accepts at any clock scale. */
class MarketRulesTest
{
    @Test
    void theRestartWindowIsAMinuteOfWallTimeAtTheDemosScale() throws Exception
    {
        final MarketRules rules = MarketRules.DEMO.restartWindowInWallTime(DemoRun.RESTART_WINDOW_WALL_MS, DemoRun.DEFAULT_SCALE);
        assertEquals(14_400_000, rules.restartWindowMs(), "60 s at x240 is 4 hours of market time");
        assertTrue(rules.restartWindowMs() > rules.heartbeatTimeoutMs());
        final String config = String.join("\n", rules.configLines());
        assertTrue(config.contains("0 CONFIG heartbeatIntervalMs=240000 heartbeatTimeoutMs=1200000 restartWindowMs=14400000"), config);
        assertEquals("", ScenarioReplayer.replay(config), "the engine takes every line without a reject");
    }

    @Test
    void aFastClockIsHeldToTheExchangesLargestWindow() throws Exception
    {
        for (final long scale : new long[]{1, 43_200, 43_201, Long.MAX_VALUE})
        {
            final MarketRules rules = MarketRules.DEMO.restartWindowInWallTime(DemoRun.RESTART_WINDOW_WALL_MS, scale);
            assertEquals(Math.min(MarketRules.MAX_RESTART_WINDOW_MS, scale > 43_200 ? Long.MAX_VALUE : 60_000 * scale),
                rules.restartWindowMs(), "scale " + scale);
            assertEquals("", ScenarioReplayer.replay(String.join("\n", rules.configLines())), "scale " + scale);
        }
    }
}
