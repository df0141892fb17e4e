package io.gpux.client.agent.workload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpux.client.agent.GpuInfo;
import io.gpux.client.workload.WorkloadSpec;
import org.agrona.concurrent.CachedEpochClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Real {@code process} workloads under a supervisor whose clock the test moves by hand. */
class WorkloadSupervisorTest
{
    private static final long T0 = 1_767_225_600_000L;
    private static final int TARGET = 30;

    /** Counts to TARGET, a checkpoint per step; resumes from the checkpoint; on TERM saves it, copies the notice and exits 0. */
    private static final String COUNTER = String.join("\n",
        "#!/bin/sh",
        "ckpt=\"$GPUX_CHECKPOINT_DIR/count\"",
        "n=0",
        "[ -f \"$ckpt\" ] && n=$(cat \"$ckpt\")",
        "echo \"$CUDA_VISIBLE_DEVICES\" > \"$GPUX_CHECKPOINT_DIR/visible-$GPUX_ATTEMPT\"",
        "echo \"attempt $GPUX_ATTEMPT of lease $GPUX_LEASE_ID on GPUs $GPUX_GPUS starts at $n\"",
        "save() { echo \"$n\" > \"$ckpt.tmp\"; mv \"$ckpt.tmp\" \"$ckpt\"; }",
        "trap 'save; cp \"$GPUX_NOTICE_FILE\" \"$GPUX_CHECKPOINT_DIR/notice-seen-$GPUX_ATTEMPT\"; echo \"TERM at $n\"; exit 0' TERM",
        "while [ \"$n\" -lt " + TARGET + " ]; do",
        "  n=$((n + 1))",
        "  echo \"step $n\"",
        "  save",
        "  sleep 0.05",
        "done",
        "echo \"done at $n\"",
        "");

    @TempDir
    Path dir;

    private final CachedEpochClock clock = new CachedEpochClock();
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final List<WorkloadSupervisor> supervisors = new ArrayList<>();

    @AfterEach
    void killEverything()
    {
        for (final WorkloadSupervisor supervisor : supervisors)
        {
            for (long lease = 1; lease <= 10; lease++)
            {
                supervisor.onLeaseEnded(lease);
            }
        }
    }

    private WorkloadSupervisor supervisor(final List<GpuInfo> gpus)
    {
        final WorkloadSupervisor supervisor = new WorkloadSupervisor(new WorkloadSupervisorContext()
            .stateDir(dir.resolve("state"))
            .gpus(gpus)
            .runtime(new ProcessRuntime(null, line -> events.add("log " + line)))
            .clock(clock)
            .pollIntervalMs(1)
            .listener(new WorkloadListener()
            {
                @Override
                public void onStatus(final long leaseId, final WorkloadStatus status)
                {
                    events.add(leaseId + " " + status);
                }

                @Override
                public void onMessage(final long leaseId, final String message)
                {
                    events.add(leaseId + ": " + message);
                }
            }));
        supervisors.add(supervisor);
        return supervisor;
    }

    private static String uuids(final List<GpuInfo> gpus, final int... indices)
    {
        return IntStream.of(indices).mapToObj(i -> gpus.get(i).uuid()).collect(Collectors.joining(","));
    }

    private static String read(final Path file)
    {
        try
        {
            return Files.readString(file, StandardCharsets.UTF_8).trim();
        }
        catch (final Exception ex)
        {
            return "";
        }
    }

    @Test
    void aNoticedWorkloadCheckpointsIsKilledAtTheEffectiveTimeAndResumesAsItsNextAttemptOnOtherGpus() throws Exception
    {
        clock.update(T0);
        final List<GpuInfo> gpus = EightH200s.discover(dir);
        assertEquals(8, gpus.size());
        final Path script = EightH200s.executable(dir.resolve("counter.sh"), COUNTER);
        final Path checkpoint = dir.resolve("ckpt");
        final WorkloadSpec spec = WorkloadSpec.process("sh " + script, Map.of());
        final WorkloadSupervisor supervisor = supervisor(gpus);

        assertEquals(WorkloadStatus.RUNNING, supervisor.onLeaseStarted(1, 2, spec, 1, checkpoint));
        assertEquals(List.of(gpus.get(0), gpus.get(1)), supervisor.gpusOf(1));
        assertEquals(List.of("1 PENDING", "1 STARTING"), events.subList(0, 2));
        assertTrue(events.get(2).startsWith("log lease 1 attempt 1 on GPUs 0,1: " + ProcessRuntime.ISOLATION_WARNING), events.get(2));
        assertEquals("1 RUNNING", events.get(3));
        Await.until("attempt 1 counts to 3", () -> read(checkpoint.resolve("count")).matches("[3-9]|[12][0-9]"));

        supervisor.onNotice(1, "owner reclaims the machine", T0 + 30_000);

        Await.until("attempt 1 handles TERM", () -> read(checkpoint.resolve("notice-seen-1")).length() > 0);
        final JsonNode notice = new ObjectMapper().readTree(checkpoint.resolve("notice-seen-1").toFile());
        assertEquals(1, notice.get("leaseId").asLong());
        assertEquals("owner reclaims the machine", notice.get("reason").asText());
        assertEquals(T0, notice.get("noticedAtMs").asLong());
        assertEquals(T0 + 30_000, notice.get("effectiveAtMs").asLong());
        assertEquals(30, notice.get("secondsLeft").asLong());
        Await.until("attempt 1 exits", () -> {
            clock.advance(1);
            supervisor.doWork();
            return supervisor.status(1).state() == WorkloadStatus.State.EXITED;
        });
        assertEquals(WorkloadStatus.exited(0), supervisor.status(1));
        final int savedAt = Integer.parseInt(read(checkpoint.resolve("count")));
        assertTrue(supervisor.logTail(1, 1).get(0).equals("TERM at " + savedAt), supervisor.logTail(1, 3).toString());

        clock.update(T0 + 29_999);
        supervisor.doWork();
        assertEquals(List.of(gpus.get(0), gpus.get(1)), supervisor.gpusOf(1), "the lease holds its GPUs until the effective time");
        clock.update(T0 + 30_000);
        assertEquals(1, supervisor.doWork());
        assertEquals(List.of(), supervisor.gpusOf(1));

        assertEquals(WorkloadStatus.RUNNING, supervisor.onLeaseStarted(2, 2, spec, 2, checkpoint));
        assertEquals(List.of(gpus.get(2), gpus.get(3)), supervisor.gpusOf(2));
        Await.until("attempt 2 finishes", () -> {
            clock.advance(1);
            supervisor.doWork();
            return supervisor.status(2).state() == WorkloadStatus.State.EXITED;
        });
        assertEquals(WorkloadStatus.exited(0), supervisor.status(2));
        assertEquals(Integer.toString(TARGET), read(checkpoint.resolve("count")));
        assertEquals(uuids(gpus, 0, 1), read(checkpoint.resolve("visible-1")));
        assertEquals(uuids(gpus, 2, 3), read(checkpoint.resolve("visible-2")));

        final List<String> log2 = supervisor.logTail(2, 100);
        assertEquals("attempt 2 of lease 2 on GPUs 2,3 starts at " + savedAt, log2.get(1));
        assertEquals("done at " + TARGET, log2.get(log2.size() - 1));
        final List<String> steps = new ArrayList<>(supervisor.logTail(1, 100));
        steps.addAll(log2);
        assertEquals(IntStream.rangeClosed(1, TARGET).mapToObj(i -> "step " + i).collect(Collectors.toList()),
            steps.stream().filter(line -> line.startsWith("step ")).collect(Collectors.toList()),
            "every step counted exactly once across the two attempts");

        supervisor.onLeaseEnded(2);
        assertEquals(WorkloadStatus.exited(0), supervisor.status(2));
        assertEquals(8, gpus.size() - supervisor.gpusOf(2).size());
    }

    @Test
    void aWorkloadThatIgnoresTheNoticeIsKilledWithItsWholeGroupAtTheEffectiveTime() throws Exception
    {
        clock.update(T0);
        final List<GpuInfo> gpus = EightH200s.discover(dir);
        final WorkloadSupervisor supervisor = supervisor(gpus);
        supervisor.onLeaseStarted(3, 1, WorkloadSpec.process(
            "trap 'echo ignored TERM' TERM; sleep 300 & echo started; while true; do sleep 0.05; done", Map.of()), 1, null);
        final Path log = dir.resolve("state/leases/3/workload.log");
        Await.until("the workload starts", () -> read(log).contains("started"));
        final long pgid = pidOf(3);
        assertTrue(ProcessGroups.members(pgid, 0).size() >= 2, "the shell and its sleep share the group");

        supervisor.onNotice(3, "lease ends early", T0 + 5_000);
        Await.until("TERM reaches the workload", () -> read(log).contains("ignored TERM"));
        clock.update(T0 + 4_999);
        supervisor.doWork();
        assertFalse(ProcessGroups.members(pgid, 0).isEmpty(), "alive until the effective time");
        assertEquals(WorkloadStatus.RUNNING, supervisor.status(3));

        clock.update(T0 + 5_000);
        supervisor.doWork();
        assertEquals(List.of(), ProcessGroups.members(pgid, 0), "no process of the group is left");
        Await.until("the leader is reaped", () -> ProcessHandle.of(pgid).isEmpty());
        assertEquals(WorkloadStatus.STOPPED, supervisor.status(3));
        assertEquals(List.of(), supervisor.gpusOf(3));
    }

    @Test
    void aStartFailsWithAReasonAndHoldsNoGpu() throws Exception
    {
        final List<GpuInfo> gpus = EightH200s.discover(dir);
        final WorkloadSupervisor supervisor = supervisor(gpus);

        assertEquals(WorkloadStatus.failed("lease 4 needs 9 GPUs, 8 of 8 are free"),
            supervisor.onLeaseStarted(4, 9, WorkloadSpec.process("true", Map.of()), 1, null));
        assertEquals(WorkloadStatus.failed("this machine runs no docker workloads"),
            supervisor.onLeaseStarted(5, 1, WorkloadSpec.docker("ubuntu", null, List.of(), Map.of(), List.of(), null), 1, null));
        assertEquals(List.of("4 PENDING", "4 FAILED: lease 4 needs 9 GPUs, 8 of 8 are free",
            "5 PENDING", "5 FAILED: this machine runs no docker workloads"), events);
        assertEquals(List.of(), supervisor.gpusOf(4));
    }

    @Test
    void aRestartKillsTheOrphanOfALeaseThatIsNotLive() throws Exception
    {
        final List<GpuInfo> gpus = EightH200s.discover(dir);
        final WorkloadSupervisor crashed = supervisor(gpus);
        crashed.onLeaseStarted(6, 2, WorkloadSpec.process("sleep 300 & while true; do sleep 0.05; done", Map.of()), 1, null);
        final long pgid = pidOf(6);
        Await.until("the workload's group has its sleep", () -> ProcessGroups.members(pgid, 0).size() >= 2);
        supervisors.clear();

        final WorkloadSupervisor restarted = supervisor(gpus);
        assertEquals(new WorkloadSupervisor.Recovery(List.of(), List.of(6L)), restarted.recover(Set.of()));

        assertEquals(List.of(), ProcessGroups.members(pgid, 0));
        Await.until("the leader is reaped", () -> ProcessHandle.of(pgid).isEmpty());
        assertTrue(events.contains("6: killed the workload of lease 6, which is not live: left from before the agent's restart"),
            events.toString());
        assertEquals(new WorkloadSupervisor.Recovery(List.of(), List.of()), supervisor(gpus).recover(Set.of()));
    }

    @Test
    void aRestartTakesBackTheWorkloadOfALiveLeaseAndStopsItAtItsEnd() throws Exception
    {
        clock.update(T0);
        final List<GpuInfo> gpus = EightH200s.discover(dir);
        final WorkloadSupervisor crashed = supervisor(gpus);
        crashed.onLeaseStarted(7, 2, WorkloadSpec.process("sleep 300 & while true; do sleep 0.05; done", Map.of()), 1, null,
            T0 + 60_000);
        final long pgid = pidOf(7);
        Await.until("the workload's group has its sleep", () -> ProcessGroups.members(pgid, 0).size() >= 2);
        supervisors.clear();

        final WorkloadSupervisor restarted = supervisor(gpus);
        assertEquals(new WorkloadSupervisor.Recovery(List.of(7L), List.of()), restarted.recover(Set.of(7L)));
        assertEquals(WorkloadStatus.RUNNING, restarted.status(7));
        assertEquals(List.of(gpus.get(0), gpus.get(1)), restarted.gpusOf(7));
        assertTrue(restarted.logTail(7, 1).get(0).startsWith("gpux: lease 7 attempt 1 on GPUs 0,1: "),
            "the lease directory is known again from the state file");
        restarted.onLeaseStarted(8, 1, WorkloadSpec.process("sleep 300", Map.of()), 1, null);
        assertEquals(List.of(gpus.get(2)), restarted.gpusOf(8), "a taken-back lease's GPUs are not handed out again");
        restarted.onLeaseEnded(8);

        clock.update(T0 + 59_999);
        restarted.doWork();
        assertFalse(ProcessGroups.members(pgid, 0).isEmpty());
        clock.update(T0 + 60_000);
        restarted.doWork();
        assertEquals(List.of(), ProcessGroups.members(pgid, 0), "killed at the lease's end, known from the state file");
        assertEquals(WorkloadStatus.STOPPED, restarted.status(7));
    }

    private long pidOf(final long leaseId) throws Exception
    {
        final JsonNode state = new ObjectMapper().readTree(dir.resolve("state").resolve(StateFile.NAME).toFile());
        for (final JsonNode entry : state.get("workloads"))
        {
            if (entry.get("handle").get("leaseId").asLong() == leaseId)
            {
                return entry.get("handle").get("pid").asLong();
            }
        }
        throw new AssertionError("lease " + leaseId + " is not in the state file: " + state);
    }
}
