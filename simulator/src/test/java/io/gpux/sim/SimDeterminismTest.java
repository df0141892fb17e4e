package io.gpux.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.sim.report.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./gpux sim}: the same seed gives the same report numbers (everything but the wall-clock
 * section), a different seed a different market; the invariants hold on the simulated clock too.
 */
class SimDeterminismTest
{
    private static Map<String, Object> run(final long seed, final Path out) throws Exception
    {
        final RunOutcome outcome = SimRun.run(new SimRun.Options(seed, 120, 1.0, DemoRun.DEFAULT_FAILURE_ACCEL,
            DemoRun.DEFAULT_RECLAIMS_PER_DAY, DemoRun.DEFAULT_LOAD, out), null);
        assertTrue(outcome.ok(), "checks hold: " + outcome.checks());
        @SuppressWarnings("unchecked")
        final Map<String, Object> json = (Map<String, Object>)Json.parse(Files.readString(out.resolve("report.json")));
        json.remove("wall");
        return json;
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void sameSeedSameNumbersDifferentSeedDifferentMarket(@TempDir final Path dir) throws Exception
    {
        final Map<String, Object> first = run(11, dir.resolve("a"));
        final Map<String, Object> second = run(11, dir.resolve("b"));
        assertEquals(Json.write(first), Json.write(second), "the same seed gives the same report");
        final Map<String, Object> other = run(12, dir.resolve("c"));
        assertNotEquals(Json.write(first.get("overall")), Json.write(other.get("overall")), "another seed, another market");
        @SuppressWarnings("unchecked")
        final Map<String, Object> overall = (Map<String, Object>)first.get("overall");
        final double utilization = (Double)overall.get("utilization");
        final double efficiency = (Double)overall.get("efficiency");
        assertTrue(utilization > 0.5 && utilization <= 1.0, "utilization " + utilization);
        assertTrue(efficiency > 0.4 && efficiency <= 1.0, "efficiency (against an upper bound) " + efficiency);
    }
}
