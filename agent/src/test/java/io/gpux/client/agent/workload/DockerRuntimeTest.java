package io.gpux.client.agent.workload;

import io.gpux.client.agent.GpuInfo;
import io.gpux.client.workload.WorkloadSpec;
import org.agrona.concurrent.CachedEpochClock;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The docker runtime against a recording fake {@code docker}: a shell script that appends each
 * command line to a file and answers {@code inspect}, {@code ps}, {@code port} and {@code logs}
 * from files the test writes.
 */
class DockerRuntimeTest
{
    private static final long T0 = 1_767_225_600_000L;
    private static final String KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB me@laptop";

    @TempDir
    Path dir;

    private Path fake;
    private List<GpuInfo> gpus;
    private final CachedEpochClock clock = new CachedEpochClock();
    private final List<String> statuses = new ArrayList<>();

    @BeforeEach
    void writeTheFakeDocker() throws Exception
    {
        gpus = EightH200s.discover(dir);
        fake = EightH200s.executable(dir.resolve("docker"), String.join("\n",
            "#!/bin/sh",
            "d='" + dir + "'",
            "echo \"docker $*\" >> \"$d/calls\"",
            "case \"$1\" in",
            "  run) [ -f \"$d/run-fails\" ] && { cat \"$d/run-fails\" >&2; exit 125; }; echo 4f3c2b1a ;;",
            "  inspect|ps|port|logs) [ -f \"$d/$1\" ] || { echo \"Error: No such object: $2\" >&2; exit 1; }; cat \"$d/$1\" ;;",
            "esac",
            ""));
        write("inspect", "running 0\n");
        clock.update(T0);
    }

    private void write(final String name, final String content) throws Exception
    {
        Files.writeString(dir.resolve(name), content, StandardCharsets.UTF_8);
    }

    private List<String> calls() throws Exception
    {
        final Path calls = dir.resolve("calls");
        final List<String> lines = Files.exists(calls) ? Files.readAllLines(calls) : List.of();
        Files.deleteIfExists(calls);
        return lines;
    }

    private DockerRuntime runtime(final List<String> allowed)
    {
        return new DockerRuntime(new DockerConfig(fake.toString(), "rig-7", allowed, "64g", "16", 4096));
    }

    private WorkloadSupervisor supervisor(final DockerRuntime runtime)
    {
        return new WorkloadSupervisor(new WorkloadSupervisorContext()
            .stateDir(dir.resolve("state"))
            .gpus(gpus)
            .runtime(runtime)
            .clock(clock)
            .listener((leaseId, status) -> statuses.add(leaseId + " " + status)));
    }

    @Test
    void runsNoticesAndKillsALabelledContainerOnTheLeasesGpus() throws Exception
    {
        final WorkloadSupervisor supervisor = supervisor(runtime(List.of("nvcr.io/nvidia/*")));
        final Map<String, String> env = new LinkedHashMap<>();
        env.put("BATCH", "64");
        final WorkloadSpec spec = WorkloadSpec.docker("nvcr.io/nvidia/pytorch:24.05-py3", "python",
            List.of("train.py", "--steps", "1000"), env, List.of(8888, 22), KEY);
        final Path checkpoint = dir.resolve("ckpt");
        final Path leaseDir = dir.resolve("state/leases/5");

        assertEquals(WorkloadStatus.RUNNING, supervisor.onLeaseStarted(5, 2, spec, 3, checkpoint));

        final String uuids = gpus.get(0).uuid() + "," + gpus.get(1).uuid();
        assertEquals(List.of("docker run -d --name gpux-lease-5 --label gpux.lease=5 --label gpux.agent=rig-7"
            + " --gpus \"device=0,1\" --memory 64g --cpus 16 --pids-limit 4096"
            + " -v " + leaseDir + "/notice:/gpux/notice:ro -v " + checkpoint + ":/gpux/checkpoint"
            + " -v " + leaseDir + "/authorized_keys:/root/.ssh/authorized_keys:ro"
            + " -e BATCH=64 -e CUDA_VISIBLE_DEVICES=" + uuids + " -e NVIDIA_VISIBLE_DEVICES=" + uuids
            + " -e GPUX_LEASE_ID=5 -e GPUX_GPUS=0,1 -e GPUX_ATTEMPT=3 -e GPUX_CHECKPOINT_DIR=/gpux/checkpoint"
            + " -e GPUX_NOTICE_FILE=/gpux/notice/notice.json"
            + " -p 8888 -p 22 nvcr.io/nvidia/pytorch:24.05-py3 python train.py --steps 1000"), calls());
        assertEquals(KEY + "\n", Files.readString(leaseDir.resolve("authorized_keys")));

        write("port", "22/tcp -> 0.0.0.0:49154\n22/tcp -> [::]:49154\n8888/tcp -> 0.0.0.0:49153\n");
        assertEquals(List.of(new Endpoint(22, "0.0.0.0", 49154), new Endpoint(8888, "0.0.0.0", 49153)),
            supervisor.endpoints(5));
        write("logs", "step 1\nstep 2\n");
        assertEquals(List.of("step 1", "step 2"), supervisor.logTail(5, 2));
        assertEquals(List.of("docker port gpux-lease-5", "docker logs --tail 2 gpux-lease-5"), calls());

        supervisor.onNotice(5, "owner reclaims the machine", T0 + 30_000);
        assertEquals(List.of("docker kill --signal=TERM gpux-lease-5"), calls());
        assertEquals("{\"leaseId\":5,\"reason\":\"owner reclaims the machine\",\"noticedAtMs\":" + T0
            + ",\"effectiveAtMs\":" + (T0 + 30_000) + ",\"secondsLeft\":30}",
            Files.readString(leaseDir.resolve("notice/notice.json")));

        clock.update(T0 + 29_999);
        supervisor.doWork();
        assertEquals(List.of("docker inspect --format {{.State.Status}} {{.State.ExitCode}} gpux-lease-5"), calls());
        clock.update(T0 + 30_000);
        supervisor.doWork();
        assertEquals(List.of(
            "docker inspect --format {{.State.Status}} {{.State.ExitCode}} gpux-lease-5",
            "docker kill gpux-lease-5",
            "docker rm -f gpux-lease-5"), calls());
        assertEquals(WorkloadStatus.STOPPED, supervisor.status(5));
        assertEquals(List.of(), supervisor.gpusOf(5));
    }

    @Test
    void anExitedContainerReportsItsStatus() throws Exception
    {
        final WorkloadSupervisor supervisor = supervisor(runtime(List.of("ubuntu:24.04")));
        supervisor.onLeaseStarted(6, 1, WorkloadSpec.docker("ubuntu:24.04", null, List.of(), Map.of(), List.of(), null), 1, null);
        write("inspect", "exited 3\n");
        clock.update(T0 + 1_000);
        supervisor.doWork();
        assertEquals(WorkloadStatus.exited(3), supervisor.status(6));
        assertEquals(List.of(gpus.get(0)), supervisor.gpusOf(6), "the lease keeps its GPU until it ends");
    }

    @Test
    void anImageOffTheAllowListFailsTheLaunchBeforeDockerRuns() throws Exception
    {
        final WorkloadSupervisor supervisor = supervisor(runtime(List.of("nvcr.io/nvidia/*", "ubuntu:24.04")));

        final WorkloadStatus status = supervisor.onLeaseStarted(7, 1,
            WorkloadSpec.docker("evil.example/miner:latest", null, List.of(), Map.of(), List.of(), null), 1, null);

        assertEquals(WorkloadStatus.failed(
            "image evil.example/miner:latest is not on this machine's allow-list (nvcr.io/nvidia/*, ubuntu:24.04)"), status);
        assertEquals(List.of(), calls());
        assertEquals(8, gpus.size() - supervisor.gpusOf(7).size());
        assertEquals("image ubuntu is not on this machine's allow-list (it allows none)",
            assertThrows(WorkloadException.class, () -> runtime(List.of()).start(new LaunchRequest(1, 1, gpus,
                WorkloadSpec.docker("ubuntu", null, List.of(), Map.of(), List.of(), null), dir, null))).getMessage());
    }

    @Test
    void aFailedDockerRunSaysWhyAndFreesTheGpus() throws Exception
    {
        final WorkloadSupervisor supervisor = supervisor(runtime(List.of("*")));
        write("run-fails", "docker: Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]].\n");

        final WorkloadStatus status = supervisor.onLeaseStarted(8, 2,
            WorkloadSpec.docker("ubuntu", null, List.of(), Map.of(), List.of(), null), 1, null);

        assertEquals(WorkloadStatus.failed("docker run failed for lease 8: docker: Error response from daemon: could not "
            + "select device driver \"\" with capabilities: [[gpu]]."), status);
        assertEquals(List.of(), supervisor.gpusOf(8));
    }

    @Test
    void aRestartRemovesLabelledContainersOfLeasesThatAreNotLive() throws Exception
    {
        write("ps", "gpux-lease-11\ngpux-lease-12\n");
        final WorkloadSupervisor supervisor = supervisor(runtime(List.of("*")));

        assertEquals(new WorkloadSupervisor.Recovery(List.of(), List.of(11L, 12L)), supervisor.recover(Set.of()));

        assertEquals(List.of(
            "docker ps -a --filter label=gpux.agent=rig-7 --format {{.Names}}",
            "docker kill gpux-lease-11", "docker rm -f gpux-lease-11",
            "docker kill gpux-lease-12", "docker rm -f gpux-lease-12"), calls());
    }

    @Test
    void stopGivesTheContainerItsGraceThenRemovesIt() throws Exception
    {
        final DockerRuntime runtime = runtime(List.of("*"));
        runtime.stop(new WorkloadHandle(9, DockerRuntime.NAME, 0, 0, "gpux-lease-9", List.of(0), dir), 20);
        assertEquals(List.of("docker stop -t 20 gpux-lease-9", "docker kill gpux-lease-9", "docker rm -f gpux-lease-9"),
            calls());
    }

    @Test
    void realDaemonRunsAContainerOnTheLeasesGpus() throws Exception
    {
        final Process info = new ProcessBuilder("docker", "info", "--format", "{{json .Runtimes}}")
            .redirectErrorStream(true).start();
        final String runtimes = new String(info.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        Assumptions.assumeTrue(info.waitFor() == 0 && runtimes.contains("nvidia"),
            "needs a Docker daemon with the NVIDIA runtime; docker info says: " + runtimes.trim());
        final DockerRuntime runtime = new DockerRuntime(new DockerConfig("docker", "gpux-test", List.of("*"), null, null, 0));
        final LaunchRequest request = new LaunchRequest(System.nanoTime() % 1_000_000, 1, gpus.subList(0, 1),
            WorkloadSpec.docker("ubuntu:24.04", "sh", List.of("-c", "echo $GPUX_LEASE_ID; sleep 300"), Map.of(), List.of(), null),
            dir.resolve("lease"), null);
        final WorkloadHandle handle = runtime.start(request);
        try
        {
            Await.until("the container prints its lease", () -> {
                try
                {
                    return runtime.logTail(handle, 1).equals(List.of(Long.toString(request.leaseId())));
                }
                catch (final WorkloadException ex)
                {
                    return false;
                }
            });
        }
        finally
        {
            runtime.kill(handle);
        }
        assertEquals(List.of(), runtime.listRunning().stream().filter(h -> h.leaseId() == request.leaseId()).toList());
    }
}
