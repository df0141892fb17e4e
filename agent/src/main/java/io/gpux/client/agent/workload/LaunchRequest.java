package io.gpux.client.agent.workload;

import io.gpux.client.agent.GpuInfo;
import io.gpux.client.workload.WorkloadSpec;

import java.nio.file.Path;
import java.util.List;

/**
 * Everything a {@link WorkloadRuntime} needs to start one lease's workload.
 *
 * @param leaseId       the lease.
 * @param attempt       which attempt of the job this is, from 1.
 * @param gpus          the lease's GPUs, in index order.
 * @param spec          what to run.
 * @param leaseDir      the lease's directory under the agent's state directory: the log file, the
 *                      working directory and the notice directory live here.
 * @param checkpointDir the directory the workload keeps its checkpoint in, shared by its attempts.
 */
public record LaunchRequest(
    long leaseId, int attempt, List<GpuInfo> gpus, WorkloadSpec spec, Path leaseDir, Path checkpointDir)
{
    /** Name of the workload's log file in the lease directory. */
    public static final String LOG_FILE = "workload.log";
    /** Name of the notice directory in the lease directory. */
    public static final String NOTICE_DIR = "notice";
    /** Name of the notice file in the notice directory. */
    public static final String NOTICE_FILE = "notice.json";

    /** Copies the GPU list. */
    public LaunchRequest
    {
        gpus = List.copyOf(gpus);
    }

    /** The workload's log file on the agent's machine. */
    public Path logFile()
    {
        return leaseDir.resolve(LOG_FILE);
    }

    /** The notice file on the agent's machine. */
    public Path noticeFile()
    {
        return leaseDir.resolve(NOTICE_DIR).resolve(NOTICE_FILE);
    }
}
