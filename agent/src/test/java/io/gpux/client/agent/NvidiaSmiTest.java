package io.gpux.client.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** Runs {@link NvidiaSmi} against shell scripts standing in for the real tool. */
@DisabledOnOs(OS.WINDOWS)
class NvidiaSmiTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    @Test
    void discoversTheGpusTheToolPrints() throws Exception
    {
        final Path args = dir.resolve("args");
        final NvidiaSmi smi = new NvidiaSmi(script("printf '%s\\n' \"$@\" > '" + args + "'\n" +
            "cat '" + H200Fixtures.file("query-idle.csv") + "'\n"), TIMEOUT);

        final List<GpuInfo> gpus = smi.discover();

        assertEquals(1, gpus.size());
        assertEquals("NVIDIA H200", gpus.get(0).name());
        assertEquals(700_000, gpus.get(0).powerLimitMilliW());
        assertEquals(List.of(
            "--query-gpu=name,uuid,serial,pci.bus_id,driver_version,memory.total,memory.used,memory.free," +
                "utilization.gpu,utilization.memory,temperature.gpu,power.draw,power.limit,clocks.sm,clocks.max.sm," +
                "ecc.errors.uncorrected.volatile.total,pstate,compute_cap",
            "--format=csv,nounits"), Files.readAllLines(args));
    }

    @Test
    void theRecordedH200AnswersWithoutATool() throws Exception
    {
        final NvidiaSmi smi = NvidiaSmi.recorded("h200");

        assertTrue(smi.isRecorded());
        assertEquals("recorded:h200", smi.executable());
        assertEquals(smi.discover(), new NvidiaSmiCsv(NvidiaSmi.DISCOVERY_FIELDS, true)
            .parseGpus(H200Fixtures.read("query-idle.csv")), "discovery is the recorded idle query");
        assertEquals("H200-141G", smi.discover().get(0).marketSymbol());
        final List<GpuTelemetry> trace = new NvidiaSmiCsv(NvidiaSmi.TELEMETRY_FIELDS, true)
            .parseTelemetry(H200Fixtures.read("telemetry-load.csv"));
        for (int i = 0; i < trace.size() + 2; i++)
        {
            assertEquals(List.of(trace.get(i % trace.size())), smi.sample(), "sample " + i + " is the recording's next line");
        }
        assertTrue(trace.stream().anyMatch(t -> t.utilizationGpuPct() == 100), "the recording goes through a load");
        final IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> NvidiaSmi.recorded("a100"));
        assertEquals("no recorded GPUs named 'a100'; known: h200", unknown.getMessage());
    }

    @Test
    void samplesTheTelemetryTheToolPrints() throws Exception
    {
        final Path args = dir.resolve("args");
        final NvidiaSmi smi = new NvidiaSmi(script("printf '%s\\n' \"$@\" > '" + args + "'\n" +
            "cat '" + H200Fixtures.file("telemetry-load.csv") + "'\n"), TIMEOUT);

        final List<GpuTelemetry> samples = smi.sample();

        assertEquals(60, samples.size());
        assertEquals(697_280, samples.get(19).powerDrawMilliW());
        assertEquals("--query-gpu=timestamp,name,uuid", Files.readAllLines(args).get(0).substring(0, 31));
    }

    @Test
    void discoversEightGpus() throws Exception
    {
        final String[] lines = H200Fixtures.read("query-idle.csv").split("\n");
        final StringBuilder output = new StringBuilder(lines[0]).append('\n');
        for (int i = 1; i <= 8; i++)
        {
            output.append(lines[1].replace("000000000001", "00000000000" + i)).append('\n');
        }
        final Path file = Files.writeString(dir.resolve("eight.csv"), output);

        final List<GpuInfo> gpus = new NvidiaSmi(script("cat '" + file + "'\n"), TIMEOUT).discover();

        assertEquals(8, gpus.size());
        assertEquals("GPU-5f1d0c2e-0000-4000-8000-000000000008", gpus.get(7).uuid());
        assertEquals(7, gpus.get(7).index());
    }

    @Test
    void reportsAFailingToolWithItsStatusAndMessage() throws Exception
    {
        final NvidiaSmi smi = new NvidiaSmi(script(
            "echo \"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\" >&2\nexit 1\n"),
            TIMEOUT);

        final NvidiaSmiException ex = assertThrows(NvidiaSmiException.class, smi::discover);

        assertTrue(ex.getMessage().endsWith(" exited with status 1: NVIDIA-SMI has failed because it couldn't " +
            "communicate with the NVIDIA driver."), ex.getMessage());
        assertEquals(0, ex.lineNumber());
    }

    @Test
    void fallsBackToStandardOutputForTheFailureMessage() throws Exception
    {
        final NvidiaSmi smi = new NvidiaSmi(script("echo 'No devices were found'\nexit 6\n"), TIMEOUT);

        final NvidiaSmiException ex = assertThrows(NvidiaSmiException.class, smi::sample);

        assertTrue(ex.getMessage().endsWith(" exited with status 6: No devices were found"), ex.getMessage());
    }

    @Test
    void killsAToolThatOutlivesTheTimeoutWithTheProcessesItStarted() throws Exception
    {
        final Path childPid = dir.resolve("child.pid");
        final NvidiaSmi smi = new NvidiaSmi(script(
            "sleep 30 &\necho $! > '" + childPid + "'\nwait\n"), Duration.ofMillis(500));

        final long start = System.nanoTime();
        final NvidiaSmiException ex = assertThrows(NvidiaSmiException.class, smi::discover);
        final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertTrue(ex.getMessage().endsWith(" did not finish within 500 ms and was killed"), ex.getMessage());
        assertTrue(elapsedMs >= 500 && elapsedMs < 5_000, "took " + elapsedMs + " ms");
        final long pid = Long.parseLong(Files.readString(childPid).trim());
        assertFalse(stillAlive(pid), "sleep " + pid + " survived");
    }

    @Test
    void reportsAMissingTool()
    {
        final String missing = dir.resolve("no-such-nvidia-smi").toString();
        final NvidiaSmiException ex = assertThrows(NvidiaSmiException.class,
            () -> new NvidiaSmi(missing, TIMEOUT).discover());

        assertTrue(ex.getMessage().startsWith("cannot run " + missing + " (is the NVIDIA driver installed"),
            ex.getMessage());
        assertTrue(ex.getCause() instanceof IOException);
    }

    @Test
    void reportsMalformedOutputWithItsLine() throws Exception
    {
        final String header = H200Fixtures.read("query-idle.csv").split("\n")[0];
        final NvidiaSmi smi = new NvidiaSmi(script("echo '" + header + "'\necho 'garbage'\n"), TIMEOUT);

        final NvidiaSmiException ex = assertThrows(NvidiaSmiException.class, smi::discover);

        assertEquals("line 2: 1 columns, but the query has 18 fields", ex.getMessage());
        assertEquals(2, ex.lineNumber());
    }

    @Test
    void refusesUnboundedOutputWithoutBlockingTheTool() throws Exception
    {
        final NvidiaSmi smi = new NvidiaSmi(script("head -c 3000000 /dev/zero | tr '\\0' x\n"), TIMEOUT);

        final NvidiaSmiException ex = assertThrows(NvidiaSmiException.class, smi::discover);

        assertTrue(ex.getMessage().endsWith(" printed more than " + NvidiaSmi.MAX_OUTPUT_BYTES + " bytes"),
            ex.getMessage());
    }

    @Test
    void defaultsToTheToolOnThePath()
    {
        final NvidiaSmi smi = new NvidiaSmi();

        assertEquals("nvidia-smi", smi.executable());
        assertEquals(NvidiaSmi.DEFAULT_TIMEOUT, smi.timeout());
        assertEquals(List.of("nvidia-smi", "--query-gpu=uuid,pstate", "--format=csv,nounits"),
            smi.command(List.of("uuid", "pstate")));
    }

    @Test
    void refusesABadConfiguration()
    {
        assertThrows(IllegalArgumentException.class, () -> new NvidiaSmi(" ", TIMEOUT));
        assertThrows(IllegalArgumentException.class, () -> new NvidiaSmi("nvidia-smi", Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> new NvidiaSmi("nvidia-smi", Duration.ofSeconds(-1)));
    }

    private String script(final String body) throws IOException
    {
        final Path script = dir.resolve("nvidia-smi-" + System.nanoTime());
        Files.writeString(script, "#!/bin/sh\n" + body, StandardCharsets.UTF_8);
        assertTrue(script.toFile().setExecutable(true));
        return script.toString();
    }

    /**
     * A killed process may take a moment to go, and an orphan stays a zombie until whatever adopted
     * it reaps it (a container's init may never do so), so a zombie counts as gone.
     */
    private static boolean stillAlive(final long pid) throws InterruptedException, IOException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline)
        {
            final Optional<ProcessHandle> handle = ProcessHandle.of(pid);
            if (handle.isEmpty() || !handle.get().isAlive() || isZombie(pid))
            {
                return false;
            }
            Thread.sleep(20);
        }
        return true;
    }

    private static boolean isZombie(final long pid) throws IOException
    {
        final Path stat = Path.of("/proc", Long.toString(pid), "stat");
        if (!Files.exists(stat))
        {
            return false;
        }
        final String fields;
        try
        {
            fields = Files.readString(stat);
        }
        catch (final NoSuchFileException gone)
        {
            return false;
        }
        // the state follows the parenthesised command name, which may itself contain ") "
        return fields.charAt(fields.lastIndexOf(')') + 2) == 'Z';
    }
}
