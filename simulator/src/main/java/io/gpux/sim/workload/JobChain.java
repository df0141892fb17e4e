package io.gpux.sim.workload;

import java.util.concurrent.Callable;

/**
 * One lane renter's jobs, one after another, until the chain is closed. Starting a job and closing the chain exclude
 * each other: a job starts only while the chain is open, and {@link #close} waits for a start under way, so whoever
 * closes the chain gets the last job started and can see it to its end. (A job started while the lane was
 * finishing, past its cancel, would bid and lease on after the wind-down.)
 *
 * @param <J> the job.
 */
final class JobChain<J>
{
    private volatile J current;
    private boolean closed;

    /**
     * Starts the next job, unless the chain is closed.
     *
     * @return false if the chain was closed (nothing started).
     */
    synchronized boolean start(final Callable<J> job) throws Exception
    {
        if (closed)
        {
            return false;
        }
        current = job.call();
        return true;
    }

    /** Closes the chain: no job starts any more. Returns the last job started (null: none), once it has started. */
    synchronized J close()
    {
        closed = true;
        return current;
    }

    /** The last job started, null before the first. */
    J current()
    {
        return current;
    }
}
