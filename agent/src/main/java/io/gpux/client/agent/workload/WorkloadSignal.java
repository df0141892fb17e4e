package io.gpux.client.agent.workload;

/** The signals the agent sends a workload, by the names {@code kill -s} and {@code docker kill --signal} take. */
public enum WorkloadSignal
{
    /** Asks the workload to stop: the usual notice signal. */
    TERM,
    /** Interrupt, as Ctrl-C. */
    INT,
    /** Hang-up; some servers reload or checkpoint on it. */
    HUP,
    /** User-defined signal 1. */
    USR1,
    /** User-defined signal 2. */
    USR2,
    /** Ends the workload at once; it cannot be caught. */
    KILL
}
