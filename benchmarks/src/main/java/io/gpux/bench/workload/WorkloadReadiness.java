package io.gpux.bench.workload;

import io.gpux.client.agent.GpuInfo;
import io.gpux.client.agent.workload.ProcessRuntime;
import io.gpux.client.agent.workload.WorkloadStatus;
import io.gpux.client.agent.workload.WorkloadSupervisor;
import io.gpux.client.agent.workload.WorkloadSupervisorContext;
import io.gpux.client.workload.WorkloadSpec;
import org.HdrHistogram.Histogram;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How soon a lease's {@code process} workload runs: the time from
 * {@link WorkloadSupervisor#onLeaseStarted} to RUNNING (the call returns once the process group is
 * started, the GPUs assigned and the state file written), and to the workload's first own action
 * (a file it creates, seen by a spinning check). Each round starts one workload on 2 of 8 GPUs and
 * ends its lease (a kill of its group) before the next.
 * <p>
 * {@code java -cp benchmarks.jar io.gpux.bench.workload.WorkloadReadiness [rounds] [warmup]}
 */
public final class WorkloadReadiness
{
    private WorkloadReadiness()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        final int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        final Path dir = Files.createTempDirectory("gpux-readiness");
        final List<GpuInfo> gpus = new ArrayList<>();
        for (int i = 0; i < 8; i++)
        {
            gpus.add(new GpuInfo(i, "NVIDIA H200", "GPU-" + i, null, null, null, 143_771, "9.0", 700_000, 1980));
        }
        final WorkloadSupervisor supervisor = new WorkloadSupervisor(new WorkloadSupervisorContext()
            .stateDir(dir.resolve("state"))
            .gpus(gpus)
            .runtime(new ProcessRuntime(null, line -> { })));
        final Histogram running = new Histogram(3);
        final Histogram firstAction = new Histogram(3);
        for (int round = 0; round < warmup + rounds; round++)
        {
            final Path marker = dir.resolve("ready-" + round);
            final WorkloadSpec spec = WorkloadSpec.process("touch " + marker + "; sleep 60", Map.of());
            final long start = System.nanoTime();
            final WorkloadStatus status = supervisor.onLeaseStarted(round + 1, 2, spec, 1, null);
            final long toRunning = System.nanoTime() - start;
            if (status.state() != WorkloadStatus.State.RUNNING)
            {
                throw new IllegalStateException("round " + round + ": " + status);
            }
            while (!Files.exists(marker))
            {
                Thread.onSpinWait();
            }
            final long toFirstAction = System.nanoTime() - start;
            supervisor.onLeaseEnded(round + 1);
            if (round >= warmup)
            {
                running.recordValue(toRunning / 1000);
                firstAction.recordValue(toFirstAction / 1000);
            }
        }
        System.out.println("process workload readiness, " + rounds + " rounds after " + warmup + " warm-up, "
            + Runtime.getRuntime().availableProcessors() + " CPU(s), java " + System.getProperty("java.version"));
        print("onLeaseStarted -> RUNNING", running);
        print("onLeaseStarted -> the workload's first action", firstAction);
    }

    private static void print(final String what, final Histogram histogram)
    {
        System.out.printf("%s, ms: p50 %.2f  p90 %.2f  p99 %.2f  max %.2f%n", what,
            histogram.getValueAtPercentile(50) / 1000.0, histogram.getValueAtPercentile(90) / 1000.0,
            histogram.getValueAtPercentile(99) / 1000.0, histogram.getMaxValue() / 1000.0);
    }
}
