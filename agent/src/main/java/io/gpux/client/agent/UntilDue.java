package io.gpux.client.agent;

import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The owner agent's idle strategy: waits until the next cycle is due, or until a wake-up, whichever is
 * first (never spinning: an owner's machine is for its renters). Runs on the agent's thread.
 */
final class UntilDue implements IdleStrategy
{
    private final NanoClock clock;
    private final Semaphore wakeups;
    private final LongSupplier nextCycleNs;
    private final Runnable onInterrupt;

    /**
     * @param wakeups     released to end a wait early.
     * @param nextCycleNs when the next cycle is due, on {@code clock}.
     * @param onInterrupt called when the wait is interrupted (the agent is being stopped now).
     */
    UntilDue(final NanoClock clock, final Semaphore wakeups, final LongSupplier nextCycleNs, final Runnable onInterrupt)
    {
        this.clock = clock;
        this.wakeups = wakeups;
        this.nextCycleNs = nextCycleNs;
        this.onInterrupt = onInterrupt;
    }

    @Override
    public void idle(final int workCount)
    {
        if (workCount <= 0)
        {
            idle();
        }
    }

    @Override
    public void idle()
    {
        final long waitNs = nextCycleNs.getAsLong() - clock.nanoTime();
        try
        {
            if (waitNs > 0 && wakeups.tryAcquire(waitNs, TimeUnit.NANOSECONDS))
            {
                wakeups.drainPermits();
            }
        }
        catch (final InterruptedException ex)
        {
            onInterrupt.run();
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void reset()
    {
    }
}
