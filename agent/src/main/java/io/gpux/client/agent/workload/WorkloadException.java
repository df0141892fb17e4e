package io.gpux.client.agent.workload;

/** A workload could not be started, signalled or inspected; the message is one line saying why. */
public final class WorkloadException extends Exception
{
    private static final long serialVersionUID = 1L;

    /** @param message why, in one line. */
    public WorkloadException(final String message)
    {
        super(message);
    }
}
