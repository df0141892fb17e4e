package io.gpux.bench.suite;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MachineTest
{
    @Test
    void collectorReplacedOtherFlagsKept()
    {
        final List<String> flags = List.of("--add-opens=java.base/java.lang=ALL-UNNAMED", "-XX:+UseG1GC",
            "-XX:G1HeapRegionSize=32m", "-Xmx2g", "-XX:-UseParallelGC", "-Dchronicle.analytics.disable=true");
        assertEquals(List.of("--add-opens=java.base/java.lang=ALL-UNNAMED", "-XX:G1HeapRegionSize=32m", "-Xmx2g",
            "-Dchronicle.analytics.disable=true", "-XX:+UseZGC"), Machine.withCollector(flags, "ZGC"));
        assertEquals(List.of("-Xmx2g", "-XX:+UseParallelGC"), Machine.withCollector(List.of("-Xmx2g"), "Parallel"));
    }

    @Test
    void unknownCollectorRefusedWithTheKnownOnes()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> Machine.withCollector(List.of(), "Shenandoah"));
        assertTrue(e.getMessage().contains("Shenandoah") && e.getMessage().contains("ZGC"), e.getMessage());
    }

    @Test
    void collectorNamedFromItsBeans()
    {
        assertEquals("G1", Machine.collectorOf("G1 Young Generation, G1 Old Generation"));
        assertEquals("Parallel", Machine.collectorOf("PS Scavenge, PS MarkSweep"));
        assertEquals("ZGC", Machine.collectorOf("ZGC Cycles, ZGC Pauses"));
        assertEquals("Copy, MarkSweepCompact", Machine.collectorOf("Copy, MarkSweepCompact"));
    }
}
