package io.gpux.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The figures a benchmark main measured, as a JSON file at the path its {@code --json FILE} option names:
 * {@code ./gpux bench} ({@code BenchSuite}) passes the path and reads the file back, so what a main prints is for
 * people only. Latencies are an object of {@code p50 p90 p99 p99.9 p99.99 max} in microseconds and {@code count}.
 */
public final class ResultFile
{
    public static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private ResultFile()
    {
    }

    public static ObjectNode create()
    {
        return MAPPER.createObjectNode();
    }

    /** Puts a histogram of nanoseconds under {@code key} as percentiles in microseconds and its count. */
    public static ObjectNode latency(final ObjectNode parent, final String key, final Histogram ns)
    {
        final ObjectNode p = parent.putObject(key);
        p.put("p50", ns.getValueAtPercentile(50) / 1e3);
        p.put("p90", ns.getValueAtPercentile(90) / 1e3);
        p.put("p99", ns.getValueAtPercentile(99) / 1e3);
        p.put("p99.9", ns.getValueAtPercentile(99.9) / 1e3);
        p.put("p99.99", ns.getValueAtPercentile(99.99) / 1e3);
        p.put("max", ns.getMaxValue() / 1e3);
        p.put("count", ns.getTotalCount());
        return p;
    }

    /** Writes the figures to {@code file}; nothing when no file was asked for. */
    public static void write(final Path file, final JsonNode figures) throws IOException
    {
        if (file != null)
        {
            MAPPER.writeValue(file.toFile(), figures);
        }
    }

    /** The figures a main wrote, or a missing node when it wrote none (it failed before the end). */
    public static JsonNode read(final Path file)
    {
        try
        {
            return Files.isRegularFile(file) ? MAPPER.readTree(file.toFile()) : MissingNode.getInstance();
        }
        catch (final IOException e)
        {
            return MissingNode.getInstance();
        }
    }
}
