package io.gpux.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.sim.report.Json;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code ./gpux sim}: the same seed gives the same report numbers (everything but the wall-clock
 * section), a different seed a different market; the invariants hold on the simulated clock too.
 */
class SimDeterminismTest
{
    /** The run's report.json without its wall-clock section, once its checks are seen to hold. */
    private static Map<String, Object> numbers(final SimRuns.Run run)
    {
        assertTrue(run.outcome().ok(), "checks hold: " + run.outcome().checks());
        final Map<String, Object> json = new LinkedHashMap<>(run.json());
        json.remove("wall");
        return json;
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void sameSeedSameNumbersDifferentSeedDifferentMarket()
    {
        final Map<String, Object> first = numbers(SimRuns.plain(11));
        final Map<String, Object> second = numbers(SimRuns.fresh(11));
        assertEquals(Json.write(first), Json.write(second), "the same seed gives the same report");
        final Map<String, Object> other = numbers(SimRuns.plain(12));
        assertNotEquals(Json.write(first.get("overall")), Json.write(other.get("overall")), "another seed, another market");
        @SuppressWarnings("unchecked")
        final Map<String, Object> overall = (Map<String, Object>)first.get("overall");
        final double utilization = (Double)overall.get("utilization");
        final double efficiency = (Double)overall.get("efficiency");
        assertTrue(utilization > 0.5 && utilization <= 1.0, "utilization " + utilization);
        assertTrue(efficiency > 0.4 && efficiency <= 1.0, "efficiency (against an upper bound) " + efficiency);
    }
}
