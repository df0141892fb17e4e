package io.gpux.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A main's figures go to its {@code --json} file and come back as numbers, with no text to parse in between. */
class ResultFileTest
{
    @TempDir
    Path dir;

    @Test
    void latencyPercentilesComeBackInMicroseconds() throws Exception
    {
        final Histogram ns = new Histogram(3_600_000_000L, 3);
        for (int i = 1; i <= 1_000; i++)
        {
            // 2 ns to 2 us: below 2,048 the histogram keeps every value exactly
            ns.recordValue(i * 2L);
        }
        ns.recordValue(31_400);
        final ObjectNode figures = ResultFile.create();
        figures.put("commandsPerSecond", 1_234_567.5);
        ResultFile.latency(figures, "fromDue", ns);
        final Path file = dir.resolve("figures.json");
        ResultFile.write(file, figures);

        final JsonNode back = ResultFile.read(file);
        assertEquals(1_234_567.5, back.path("commandsPerSecond").asDouble());
        final JsonNode p = back.path("fromDue");
        assertEquals(1.002, p.path("p50").asDouble(), 0.003);
        assertEquals(1.802, p.path("p90").asDouble(), 0.003);
        assertEquals(31.4, p.path("p99.99").asDouble(), 0.05);
        assertEquals(31.4, p.path("max").asDouble(), 0.05);
        assertEquals(1_001, p.path("count").asLong());
    }

    @Test
    void aMainThatWroteNothingReadsAsMissing()
    {
        assertTrue(ResultFile.read(dir.resolve("never-written.json")).isMissingNode());
    }
}
