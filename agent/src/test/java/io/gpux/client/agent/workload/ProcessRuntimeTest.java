package io.gpux.client.agent.workload;

import io.gpux.client.agent.GpuInfo;
import io.gpux.client.workload.WorkloadSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The process runtime on real processes. */
class ProcessRuntimeTest
{
    @TempDir
    Path dir;

    private List<GpuInfo> gpus;
    private final List<String> log = new ArrayList<>();
    private final List<WorkloadHandle> started = new ArrayList<>();
    private ProcessRuntime runtime;

    @BeforeEach
    void discover() throws Exception
    {
        gpus = EightH200s.discover(dir);
        runtime = new ProcessRuntime(null, log::add);
    }

    @AfterEach
    void killEverything() throws Exception
    {
        for (final WorkloadHandle handle : started)
        {
            runtime.kill(handle);
        }
    }

    private WorkloadHandle start(final ProcessRuntime on, final long lease, final String command, final Map<String, String> env)
        throws WorkloadException
    {
        final WorkloadHandle handle = on.start(new LaunchRequest(lease, 1, gpus.subList(4, 6),
            WorkloadSpec.process(command, env), dir.resolve("lease-" + lease), dir.resolve("ckpt")));
        started.add(handle);
        return handle;
    }

    private OptionalInt awaitExit(final WorkloadHandle handle) throws Exception
    {
        Await.until("the workload exits", () -> runtime.exitCode(handle).isPresent());
        return runtime.exitCode(handle);
    }

    @Test
    void theWorkloadSeesOnlyItsOwnEnvironmentInItsOwnDirectory() throws Exception
    {
        final WorkloadHandle handle = start(runtime, 1, "env", Map.of("BATCH", "64"));

        assertEquals(OptionalInt.of(0), awaitExit(handle));
        final List<String> lines = runtime.logTail(handle, 100);
        assertEquals("gpux: lease 1 attempt 1 on GPUs 4,5: " + ProcessRuntime.ISOLATION_WARNING, lines.get(0));
        assertEquals(List.of("lease 1 attempt 1 on GPUs 4,5: " + ProcessRuntime.ISOLATION_WARNING), log);
        final String uuids = gpus.get(4).uuid() + "," + gpus.get(5).uuid();
        final List<String> env = lines.subList(1, lines.size()).stream().filter(line -> !line.startsWith("PWD=")).sorted().toList();
        final List<String> expected = new ArrayList<>(List.of(
            "BATCH=64",
            "CUDA_VISIBLE_DEVICES=" + uuids,
            "GPUX_ATTEMPT=1",
            "GPUX_CHECKPOINT_DIR=" + dir.resolve("ckpt"),
            "GPUX_GPUS=4,5",
            "GPUX_LEASE_ID=1",
            "GPUX_NOTICE_FILE=" + dir.resolve("lease-1/notice/notice.json"),
            "HOME=" + dir.resolve("lease-1/work"),
            "NVIDIA_VISIBLE_DEVICES=" + uuids));
        for (final String passed : List.of("PATH", "LANG", "TZ"))
        {
            if (System.getenv(passed) != null)
            {
                expected.add(passed + "=" + System.getenv(passed));
            }
        }
        assertEquals(expected.stream().sorted().toList(), env);
    }

    @Test
    void aSimpleCommandIsExecdSoItsStatusIsTheWorkloads() throws Exception
    {
        assertEquals("exec python train.py --steps 10", ProcessRuntime.shellLine("python train.py --steps 10"));
        assertEquals("make && ./train", ProcessRuntime.shellLine("make && ./train"));
        assertEquals("X=1 ./train", ProcessRuntime.shellLine("X=1 ./train"));
        assertEquals(OptionalInt.of(7), awaitExit(start(runtime, 2, "sh -c 'exit 7'", Map.of())));
    }

    @Test
    void stopGivesTheGroupItsGraceThenKillsWhatIsLeft() throws Exception
    {
        final WorkloadHandle polite = start(runtime, 3, "sh -c 'trap \"echo bye; exit 0\" TERM; echo up; while :; do sleep 0.05; done'",
            Map.of());
        Await.until("it runs", () -> read(dir.resolve("lease-3/workload.log")).contains("up"));
        assertEquals(List.of(polite), runtime.listRunning());
        runtime.stop(polite, 10);
        assertEquals(List.of(), runtime.listRunning());
        assertTrue(read(dir.resolve("lease-3/workload.log")).contains("bye"));
        assertEquals(List.of(), ProcessGroups.members(polite.pid(), polite.startTicks()));

        final WorkloadHandle stubborn = start(runtime, 4, "trap '' TERM; echo up; while :; do sleep 0.05; done", Map.of());
        Await.until("it runs", () -> read(dir.resolve("lease-4/workload.log")).contains("up"));
        runtime.stop(stubborn, 0);
        assertEquals(List.of(), ProcessGroups.members(stubborn.pid(), stubborn.startTicks()));
    }

    @Test
    void aKillRightAfterTheStartReachesTheWholeGroup() throws Exception
    {
        for (long lease = 10; lease < 30; lease++)
        {
            final WorkloadHandle handle = start(runtime, lease, "sleep 300", Map.of());
            assertEquals(OptionalInt.empty(), runtime.exitCode(handle));
            runtime.kill(handle);
            assertEquals(List.of(), ProcessGroups.members(handle.pid(), handle.startTicks()));
            Await.until("the leader is reaped", () -> ProcessHandle.of(handle.pid()).isEmpty());
        }
    }

    @Test
    void runsAsTheUserTheOwnerNames() throws Exception
    {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
            "switching to another user needs the agent to run as root; this runs as " + System.getProperty("user.name"));
        // the state directory must be traversable by the workload's user; a test's temp dir is not by default
        Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwx--x--x"));
        final ProcessRuntime asNobody = new ProcessRuntime("nobody", log::add);
        final WorkloadHandle handle = start(asNobody, 5, "sh -c 'id -un; touch \"$HOME/written\" && echo can write home'",
            Map.of());
        Await.until("it exits", () -> asNobody.exitCode(handle).isPresent());
        final List<String> lines = asNobody.logTail(handle, 2);
        assertEquals(List.of("nobody", "can write home"), lines);
    }

    private static String read(final Path file)
    {
        try
        {
            return Files.readString(file, StandardCharsets.UTF_8);
        }
        catch (final Exception ex)
        {
            return "";
        }
    }
}
