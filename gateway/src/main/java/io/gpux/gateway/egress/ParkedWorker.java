package io.gpux.gateway.egress;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A daemon thread of the egress's that parks while it has nothing to do and is unparked by whoever hands it work
 * ({@link #wake}); the egress starts it as it starts ({@link #start}: a thread's start costs a fraction of a
 * millisecond, which the egress would otherwise pay with the first piece of work) and stops it as it closes.
 */
abstract class ParkedWorker
{
    private final String name;
    /** Started by the egress's thread; read by the closing thread. */
    private volatile Thread thread;
    private volatile boolean running = true;

    ParkedWorker(final String name)
    {
        this.name = name;
    }

    /** The thread's loop: until {@link #running()} is false, its work, or {@link #park()} when there is none. */
    abstract void run();

    /** Starts the thread, once (from the first hand-over, if the egress did not start it). */
    final void start()
    {
        if (thread == null && running)
        {
            final Thread t = new Thread(this::run, name);
            t.setDaemon(true);
            thread = t;
            t.start();
        }
    }

    final boolean running()
    {
        return running;
    }

    /** Whether the thread is running and will take work handed over (else the caller does the work itself). */
    final boolean takesWork()
    {
        return running && thread != null;
    }

    /** Unparks the thread, if started (it finds the work handed over, or that it must stop). */
    final void wake()
    {
        final Thread t = thread;
        if (t != null)
        {
            LockSupport.unpark(t);
        }
    }

    /** On the thread: parks until woken. */
    final void park()
    {
        LockSupport.park(this);
    }

    /**
     * Stops the thread and waits for it, 5 seconds at most.
     *
     * @return whether the thread is gone (or never started): what it held is the caller's.
     */
    final boolean stop()
    {
        running = false;
        final Thread t = thread;
        if (t == null)
        {
            return true;
        }
        LockSupport.unpark(t);
        try
        {
            t.join(TimeUnit.SECONDS.toMillis(5));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        return !t.isAlive();
    }
}
