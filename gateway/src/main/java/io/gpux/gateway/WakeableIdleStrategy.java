package io.gpux.gateway;

import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.locks.LockSupport;

/**
 * The egress thread's idle strategy: spin a little, yield a little, then park, and be woken by the
 * exchange core after each batch it applies, instead of sleeping out a park period while events wait.
 *
 * <p>On 2 cores the egress cannot spin: the core thread has one core and the network the other. A
 * plain back-off parks it up to its maximum period (200 µs), and every event written in that time
 * waits for the end of the park. Here the core calls {@link #wake} after each batch: one volatile read
 * when the egress is awake, an {@code unpark} (a futex wake) only when it is parked. The park keeps a
 * timeout ({@code maxParkNs}, 200 µs in the gateway): the egress also serves its inbox (answers to
 * queries, market data, sessions), which nobody wakes it for, and a wake-up can race with the decision
 * to park.
 */
final class WakeableIdleStrategy implements IdleStrategy
{
    private final int spins;
    private final int yields;
    private final long maxParkNs;
    private volatile Thread parked;
    private int idleCount;

    WakeableIdleStrategy(final int spins, final int yields, final long maxParkNs)
    {
        this.spins = spins;
        this.yields = yields;
        this.maxParkNs = maxParkNs;
    }

    @Override
    public void idle(final int workCount)
    {
        if (workCount > 0)
        {
            reset();
        }
        else
        {
            idle();
        }
    }

    @Override
    public void idle()
    {
        if (idleCount < spins)
        {
            idleCount++;
            Thread.onSpinWait();
        }
        else if (idleCount < spins + yields)
        {
            idleCount++;
            Thread.yield();
        }
        else
        {
            parked = Thread.currentThread();
            LockSupport.parkNanos(this, maxParkNs);
            parked = null;
        }
    }

    @Override
    public void reset()
    {
        idleCount = 0;
    }

    /** From any thread: new work is ready; unparks the idle thread if it is parked. */
    void wake()
    {
        final Thread t = parked;
        if (t != null)
        {
            LockSupport.unpark(t);
        }
    }

    @Override
    public String alias()
    {
        return "wakeable";
    }
}
