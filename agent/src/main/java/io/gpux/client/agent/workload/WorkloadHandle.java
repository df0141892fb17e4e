package io.gpux.client.agent.workload;

import java.nio.file.Path;
import java.util.List;

/**
 * A started workload, as a runtime finds it again, also from another run of the agent: this is what
 * the supervisor's state file records.
 *
 * @param leaseId    the lease.
 * @param runtime    the runtime that started it: {@code process} or {@code docker}.
 * @param pid        {@code process}: the process id, which is also its process group and session
 *                   id; {@code docker}: 0.
 * @param startTicks {@code process}: the process's start time in clock ticks since boot
 *                   ({@code /proc/PID/stat} field 22), which tells it from a later process that
 *                   reuses the id; {@code docker}: 0.
 * @param container  {@code docker}: the container's name; {@code process}: null.
 * @param gpus       the indices of the lease's GPUs.
 * @param leaseDir   the lease's directory.
 */
public record WorkloadHandle(
    long leaseId, String runtime, long pid, long startTicks, String container, List<Integer> gpus, Path leaseDir)
{
    /** Copies the GPU list. */
    public WorkloadHandle
    {
        gpus = List.copyOf(gpus);
    }
}
