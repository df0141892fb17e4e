package io.gpux.client.agent.workload;

import java.util.Objects;

/**
 * Where a lease's workload stands.
 *
 * @param state    the state.
 * @param exitCode {@link State#EXITED}: the exit status, or {@link #UNKNOWN_EXIT_CODE} when the
 *                 workload exited while no agent watched it; otherwise 0.
 * @param reason   {@link State#FAILED}: why, in one line; otherwise null.
 */
public record WorkloadStatus(State state, int exitCode, String reason)
{
    /** Exit status of a workload that ended while the agent was not running. */
    public static final int UNKNOWN_EXIT_CODE = -1;

    /** See {@link State#PENDING}. */
    public static final WorkloadStatus PENDING = new WorkloadStatus(State.PENDING, 0, null);
    /** See {@link State#STARTING}. */
    public static final WorkloadStatus STARTING = new WorkloadStatus(State.STARTING, 0, null);
    /** See {@link State#RUNNING}. */
    public static final WorkloadStatus RUNNING = new WorkloadStatus(State.RUNNING, 0, null);
    /** See {@link State#STOPPED}. */
    public static final WorkloadStatus STOPPED = new WorkloadStatus(State.STOPPED, 0, null);

    /** Checks the state is given. */
    public WorkloadStatus
    {
        Objects.requireNonNull(state, "state");
    }

    /** A workload that ended by itself with this status. */
    public static WorkloadStatus exited(final int exitCode)
    {
        return new WorkloadStatus(State.EXITED, exitCode, null);
    }

    /** A workload that could not start, for this reason. */
    public static WorkloadStatus failed(final String reason)
    {
        return new WorkloadStatus(State.FAILED, 0, reason);
    }

    /** The lifecycle of a lease's workload. */
    public enum State
    {
        /** The lease started; its GPUs are being assigned. */
        PENDING,
        /** The runtime is starting the workload. */
        STARTING,
        /** The workload runs on the lease's GPUs. */
        RUNNING,
        /** The workload ended by itself; the lease still holds its GPUs until it ends. */
        EXITED,
        /** The workload could not be started; the lease's GPUs are free again. */
        FAILED,
        /** The agent stopped the workload (the lease ended or its notice took effect); its GPUs are free. */
        STOPPED
    }

    @Override
    public String toString()
    {
        switch (state)
        {
            case EXITED:
                return exitCode == UNKNOWN_EXIT_CODE ? "EXITED (status unknown)" : "EXITED " + exitCode;
            case FAILED:
                return "FAILED: " + reason;
            default:
                return state.name();
        }
    }
}
