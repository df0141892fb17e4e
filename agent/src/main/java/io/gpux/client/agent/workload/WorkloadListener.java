package io.gpux.client.agent.workload;

/** Told of what the {@link WorkloadSupervisor} does, on the thread that calls it. */
public interface WorkloadListener
{
    /** A lease's workload changed state. */
    void onStatus(long leaseId, WorkloadStatus status);

    /** A line for the agent's log about a lease's workload, e.g. what a runtime does not isolate. */
    default void onMessage(final long leaseId, final String message)
    {
    }
}
