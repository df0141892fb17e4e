package io.gpux.client.cli;

import static io.gpux.client.cli.CliRuns.account;
import static io.gpux.client.cli.CliRuns.adminKey;
import static io.gpux.client.cli.CliRuns.cli;
import static io.gpux.client.cli.CliRuns.dir;
import static io.gpux.client.cli.CliRuns.fakeNvidiaSmi;
import static io.gpux.client.cli.CliRuns.ok;
import static io.gpux.client.cli.CliRuns.raw;
import static io.gpux.client.cli.CliRuns.script;
import static io.gpux.client.cli.CliRuns.usageError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.client.cli.CliRuns.Run;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** {@code gpux agent}: the owner agent on the fake nvidia-smi, on recorded GPUs, and without a GPU. */
@DisabledOnOs(OS.WINDOWS)
class GpuxCliAgentTest
{
    @Test
    void agentCommandRunsTheOwnerAgent() throws Exception
    {
        final String owner = account("oscar", "OWNER", null);
        final String renter = account("ron", "RENTER", null);
        ok(cli("admin", "market", "create", "AGENT-TEST", "--key-file", adminKey()));
        final String smi = fakeNvidiaSmi(dir());
        final Run run = ok(cli("agent", "--nvidia-smi", smi, "--market", "AGENT-TEST", "--name", "cli-node", "--interval",
            "100ms", "--reserve", "1.5", "--undercut", "--run-for", "1500ms", "--json", "--key-file", owner));
        final List<Object> events = run.json().stream().map(l -> l.get("event")).toList();
        assertEquals(List.of("started", "discovered", "registered", "online", "ask"), events.subList(0, 5), run.toString());
        assertEquals(List.of("stopping", "reclaimed", "stop_done", "stopped"), events.subList(events.size() - 4, events.size()),
            "--run-for ending stops gracefully: the ask is cancelled with reclaim, no lease is left: " + run);
        final Map<String, Object> ask = run.json().get(4);
        assertEquals("1.5000", ask.get("price"));
        assertEquals(1L, ask.get("gpus"));
        assertEquals(ask.get("order_id"), run.json().get(events.size() - 3).get("order_id"));
        final String help = ok(raw(Map.of(), "agent", "--help")).out();
        assertTrue(help.contains("--reclaim-file") && help.contains("--stop-margin")
            && help.contains("Stopping: Ctrl-C, SIGTERM"), help);

        final Run refused = cli("agent", "--nvidia-smi", smi, "--market", "AGENT-TEST", "--reserve", "1", "--run-for", "5s",
            "--key-file", renter);
        assertEquals(1, refused.status(), refused.toString());
        assertTrue(refused.err().contains("NOT_AUTHORIZED"), refused.toString());
    }

    @Test
    void agentWithoutAGpuExitsWithStatus5AndSaysWhatToDo() throws Exception
    {
        final String owner = account("nadia", "OWNER", null);
        // the discovery query's header and no GPU row
        final Path noRows = script("nvidia-smi-no-rows", "echo 'name, uuid, serial, pci.bus_id, driver_version, "
            + "memory.total [MiB], memory.used [MiB], memory.free [MiB], utilization.gpu [%], utilization.memory [%], "
            + "temperature.gpu, power.draw [W], power.limit [W], clocks.current.sm [MHz], clocks.max.sm [MHz], "
            + "ecc.errors.uncorrected.volatile.total, pstate, compute_cap'");
        // what nvidia-smi says where the driver finds no GPU
        final Path noDevices = script("nvidia-smi-no-devices", "echo 'No devices were found'; exit 6");
        final Path missing = dir().resolve("no-such-dir/nvidia-smi");
        // each case: the nvidia-smi, and what the line says of it
        for (final Map.Entry<Path, String> smi : Map.of(noRows, "no GPU lines after the header",
            noDevices, "exited with status 6: No devices were found", missing, "cannot run " + missing).entrySet())
        {
            final Run run = cli("agent", "--nvidia-smi", smi.getKey().toString(), "--name", "gpuless", "--reserve", "1",
                "--run-for", "5s", "--key-file", owner);
            assertEquals(5, run.status(), run.toString());
            assertEquals("", run.out(), "nothing starts: " + run);
            final String line = run.err().strip();
            assertFalse(line.contains("\n") || line.contains("Exception"), "one line, no stack trace: " + run);
            assertTrue(line.startsWith("gpux agent: no GPU found (") && line.contains(smi.getValue()), run.toString());
            assertTrue(line.endsWith("install the NVIDIA driver so that nvidia-smi lists the GPUs (or name it with "
                + "--nvidia-smi), or try the agent without a GPU with --recorded-gpus h200"), run.toString());
        }
        final Run machines = ok(cli("leases", "--json", "--key-file", owner));
        assertFalse(machines.out().contains("gpuless"), "no machine registered: " + machines);
    }

    @Test
    void agentRunsOnRecordedGpusWithoutNvidiaSmi() throws Exception
    {
        final String owner = account("oona", "OWNER", null);
        final Run run = ok(cli("agent", "--recorded-gpus", "h200", "--name", "recorded-node", "--interval", "100ms",
            "--reserve", "2", "--run-for", "1500ms", "--json", "--key-file", owner));
        final List<Object> events = run.json().stream().map(l -> l.get("event")).toList();
        assertEquals(List.of("started", "discovered", "registered", "online", "ask"), events.subList(0, 5), run.toString());
        assertEquals("NVIDIA H200", run.json().get(1).get("gpu_name"), run.toString());
        assertEquals("H200-141G", run.json().get(2).get("market"), "the market from the recorded GPU: " + run);
        assertFalse(run.json().stream().anyMatch(l -> "nvidia_smi_failed".equals(l.get("event"))), run.toString());

        usageError("no recording named 'a100'; known: h200", "agent", "--recorded-gpus", "a100", "--reserve", "1",
            "--key-file", owner);
        usageError("--recorded-gpus and --nvidia-smi exclude each other", "agent", "--recorded-gpus", "h200",
            "--nvidia-smi", "/bin/true", "--reserve", "1", "--key-file", owner);
    }
}
