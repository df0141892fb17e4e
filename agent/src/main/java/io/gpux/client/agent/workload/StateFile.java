package io.gpux.client.agent.workload;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The supervisor's record of the workloads it started ({@code STATE_DIR/workloads.json}), rewritten
 * atomically on every change, so that an agent that crashed finds on its next start every workload
 * it must stop or take back.
 */
final class StateFile
{
    static final String NAME = "workloads.json";

    /** One workload: how to find it, which attempt, and when it must be dead at the latest. */
    record Entry(WorkloadHandle handle, int attempt, List<Integer> ports, long killAtMs)
    {
        Entry
        {
            ports = ports == null ? List.of() : List.copyOf(ports);
        }
    }

    /** The file's content. */
    record Content(List<Entry> workloads)
    {
    }

    private final Path file;
    private final ObjectMapper json = new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    StateFile(final Path stateDir)
    {
        this.file = stateDir.resolve(NAME);
    }

    Path path()
    {
        return file;
    }

    List<Entry> read() throws IOException
    {
        if (!Files.exists(file))
        {
            return List.of();
        }
        final Content content = json.readValue(file.toFile(), Content.class);
        return content.workloads() == null ? List.of() : content.workloads();
    }

    void write(final List<Entry> entries) throws IOException
    {
        AtomicFiles.write(file, json.writerWithDefaultPrettyPrinter().writeValueAsBytes(new Content(List.copyOf(entries))));
    }

    ObjectMapper json()
    {
        return json;
    }
}
