package io.gpux.client.agent.workload;

import io.gpux.client.workload.WorkloadSpec;

import java.util.List;
import java.util.OptionalInt;

/**
 * Starts, signals, stops and inspects workloads of one kind ({@code process} or {@code docker}).
 * Every call runs to completion on the caller's thread (at most a few seconds, or a container
 * image's pull for {@link #start}). Messages of {@link WorkloadException}s are one line for the user.
 */
public interface WorkloadRuntime
{
    /** The kind of workload this runtime starts. */
    WorkloadSpec.Runtime kind();

    /**
     * Starts a workload on the request's GPUs; it runs when this returns.
     *
     * @return how to find it again.
     * @throws WorkloadException if it cannot be started (an image not allowed, a command not found...).
     */
    WorkloadHandle start(LaunchRequest request) throws WorkloadException;

    /** Sends a signal to the workload and everything it started; nothing if it has ended. */
    void signal(WorkloadHandle handle, WorkloadSignal signal) throws WorkloadException;

    /**
     * Kills the workload and everything it started (SIGKILL) and waits until they are gone; nothing if
     * it has ended. Also for a handle from an earlier run of the agent.
     */
    void kill(WorkloadHandle handle) throws WorkloadException;

    /**
     * Sends TERM, waits up to graceSeconds for the workload to end, then kills it.
     */
    void stop(WorkloadHandle handle, int graceSeconds) throws WorkloadException;

    /**
     * Whether the workload has ended.
     *
     * @return empty while it runs; its exit status once it has ended, or
     *         {@link WorkloadStatus#UNKNOWN_EXIT_CODE} if that is not known.
     */
    OptionalInt exitCode(WorkloadHandle handle) throws WorkloadException;

    /** The last lines the workload printed (standard output and error), oldest first. */
    List<String> logTail(WorkloadHandle handle, int lines) throws WorkloadException;

    /** Where the workload's declared ports are reached on this machine. */
    List<Endpoint> endpoints(WorkloadHandle handle, List<Integer> ports) throws WorkloadException;

    /**
     * The workloads of this runtime running on this machine that this agent started, also in an
     * earlier run where the runtime can tell (docker labels); the supervisor kills those it is not
     * told are live.
     */
    List<WorkloadHandle> listRunning() throws WorkloadException;
}
