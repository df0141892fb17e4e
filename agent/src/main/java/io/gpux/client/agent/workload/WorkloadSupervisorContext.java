package io.gpux.client.agent.workload;

import io.gpux.client.agent.GpuInfo;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.SystemEpochClock;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Settings of a {@link WorkloadSupervisor}: fluent same-name getters and setters, checked by
 * {@link #conclude()}.
 */
public final class WorkloadSupervisorContext
{
    /** How often running workloads are checked for having exited, by default. */
    public static final long DEFAULT_POLL_INTERVAL_MS = 1000;

    private Path stateDir;
    private List<GpuInfo> gpus;
    private final List<WorkloadRuntime> runtimes = new ArrayList<>();
    private EpochClock clock = SystemEpochClock.INSTANCE;
    private WorkloadListener listener = (leaseId, status) -> { };
    private WorkloadSignal noticeSignal = WorkloadSignal.TERM;
    private long pollIntervalMs = DEFAULT_POLL_INTERVAL_MS;
    private final List<Path> checkpointPathPrefixes = new ArrayList<>();

    /** The agent's state directory: the state file and one directory per lease. */
    public Path stateDir()
    {
        return stateDir;
    }

    /** @see #stateDir() */
    public WorkloadSupervisorContext stateDir(final Path stateDir)
    {
        this.stateDir = stateDir;
        return this;
    }

    /** The machine's GPUs, as nvidia-smi reported them. */
    public List<GpuInfo> gpus()
    {
        return gpus;
    }

    /** @see #gpus() */
    public WorkloadSupervisorContext gpus(final List<GpuInfo> gpus)
    {
        this.gpus = List.copyOf(gpus);
        return this;
    }

    /** The runtimes workloads may use, one per kind; a job for a kind not here fails. */
    public List<WorkloadRuntime> runtimes()
    {
        return List.copyOf(runtimes);
    }

    /** Adds a runtime. */
    public WorkloadSupervisorContext runtime(final WorkloadRuntime runtime)
    {
        runtimes.add(runtime);
        return this;
    }

    /** The clock notices and lease ends are timed by, epoch milliseconds. */
    public EpochClock clock()
    {
        return clock;
    }

    /** @see #clock() */
    public WorkloadSupervisorContext clock(final EpochClock clock)
    {
        this.clock = clock;
        return this;
    }

    /** Told of every status change. */
    public WorkloadListener listener()
    {
        return listener;
    }

    /** @see #listener() */
    public WorkloadSupervisorContext listener(final WorkloadListener listener)
    {
        this.listener = listener;
        return this;
    }

    /** The signal a notice sends the workload, TERM by default; null sends none (the notice file only). */
    public WorkloadSignal noticeSignal()
    {
        return noticeSignal;
    }

    /** @see #noticeSignal() */
    public WorkloadSupervisorContext noticeSignal(final WorkloadSignal noticeSignal)
    {
        this.noticeSignal = noticeSignal;
        return this;
    }

    /** How often running workloads are checked for having exited, in milliseconds. */
    public long pollIntervalMs()
    {
        return pollIntervalMs;
    }

    /** @see #pollIntervalMs() */
    public WorkloadSupervisorContext pollIntervalMs(final long pollIntervalMs)
    {
        this.pollIntervalMs = pollIntervalMs;
        return this;
    }

    /**
     * The absolute directories under which a launch may name its own checkpoint path (shared storage
     * the workload reaches itself); none by default, so such a launch fails.
     */
    public List<Path> checkpointPathPrefixes()
    {
        return checkpointPathPrefixes;
    }

    /** Allows launches to name a checkpoint path under {@code prefix} (absolute); see {@link #checkpointPathPrefixes()}. */
    public WorkloadSupervisorContext allowCheckpointPath(final Path prefix)
    {
        if (!prefix.isAbsolute())
        {
            throw new IllegalArgumentException("a checkpoint path prefix must be absolute, got " + prefix);
        }
        checkpointPathPrefixes.add(prefix.normalize());
        return this;
    }

    /**
     * Checks the settings.
     *
     * @throws IllegalStateException if the state directory, the GPUs or the runtimes are missing, two
     *                               runtimes are of one kind, or the poll interval is not positive.
     */
    public WorkloadSupervisorContext conclude()
    {
        if (stateDir == null || gpus == null || clock == null || listener == null)
        {
            throw new IllegalStateException("a workload supervisor needs a state directory, GPUs, a clock and a listener");
        }
        if (runtimes.isEmpty() || runtimes.stream().map(WorkloadRuntime::kind).distinct().count() != runtimes.size())
        {
            throw new IllegalStateException("a workload supervisor needs one runtime per kind, got " + runtimes.size());
        }
        if (pollIntervalMs <= 0)
        {
            throw new IllegalStateException("pollIntervalMs must be positive, got " + pollIntervalMs);
        }
        return this;
    }
}
