package io.gpux.client.agent.workload;

import io.gpux.client.agent.GpuInfo;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The environment every workload sees. The GPUs go to {@code CUDA_VISIBLE_DEVICES} and
 * {@code NVIDIA_VISIBLE_DEVICES} by UUID, not index: CUDA numbers GPUs fastest first unless told
 * otherwise, nvidia-smi by PCI bus, and a container renumbers its GPUs from 0, so an index can name
 * another GPU than the lease's; a UUID names the same GPU everywhere. {@code GPUX_GPUS} gives the
 * nvidia-smi indices, for people reading logs.
 */
final class WorkloadEnv
{
    static final String LEASE_ID = "GPUX_LEASE_ID";
    static final String GPUS = "GPUX_GPUS";
    static final String ATTEMPT = "GPUX_ATTEMPT";
    static final String CHECKPOINT_DIR = "GPUX_CHECKPOINT_DIR";
    static final String NOTICE_FILE = "GPUX_NOTICE_FILE";

    private WorkloadEnv()
    {
    }

    /**
     * The job's variables, then the agent's, which win.
     *
     * @param noticeFile    the notice file as the workload sees it.
     * @param checkpointDir the checkpoint directory as the workload sees it, or null for none.
     */
    static Map<String, String> of(final LaunchRequest request, final String noticeFile, final String checkpointDir)
    {
        final Map<String, String> env = new LinkedHashMap<>(request.spec().env());
        final String uuids = request.gpus().stream().map(GpuInfo::uuid).collect(Collectors.joining(","));
        env.put("CUDA_VISIBLE_DEVICES", uuids);
        env.put("NVIDIA_VISIBLE_DEVICES", uuids);
        env.put(LEASE_ID, Long.toString(request.leaseId()));
        env.put(GPUS, indices(request));
        env.put(ATTEMPT, Integer.toString(request.attempt()));
        env.put(CHECKPOINT_DIR, checkpointDir == null ? "" : checkpointDir);
        env.put(NOTICE_FILE, noticeFile);
        return env;
    }

    /** The GPUs' nvidia-smi indices, comma-separated: {@code 2,3}. */
    static String indices(final LaunchRequest request)
    {
        return request.gpus().stream().map(gpu -> Integer.toString(gpu.index())).collect(Collectors.joining(","));
    }
}
