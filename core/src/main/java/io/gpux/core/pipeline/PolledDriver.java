package io.gpux.core.pipeline;

import com.lmax.disruptor.EventPoller;
import com.lmax.disruptor.RingBuffer;

/**
 * Drives the core stage from the caller's thread instead of a core thread of its own: the same
 * {@link CoreHandler}, fed from a poller of the input ring, each call's commands ending a batch at its limit.
 */
final class PolledDriver implements EventPoller.Handler<CommandSlot>
{
    private final CoreHandler core;
    private final StopOnError<CommandSlot> onError;
    private final EventPoller<CommandSlot> poller;
    private boolean started;
    private int limit;
    private int taken;
    private long current;

    PolledDriver(final RingBuffer<CommandSlot> inputRing, final CoreHandler core, final StopOnError<CommandSlot> onError)
    {
        this.core = core;
        this.onError = onError;
        poller = inputRing.newPoller();
        inputRing.addGatingSequences(poller.getSequence());
    }

    /**
     * Applies up to {@code limit} published commands (as one batch, or several).
     *
     * @return how many commands and queries were taken from the ring (0: none was waiting, or the
     *     pipeline has failed).
     */
    int poll(final int limit)
    {
        try
        {
            if (!started)
            {
                started = true;
                core.onStart();
            }
            taken = 0;
            this.limit = limit;
            poller.poll(this);
            return taken;
        }
        catch (final Throwable ex)
        {
            try
            {
                onError.handleEventException(ex, current, null);
            }
            catch (final RuntimeException reported)
            {
                // reported and remembered: the pipeline accepts nothing more; the polling thread goes on
            }
            // the command that failed has been answered with its batch: it is not taken again
            poller.getSequence().set(current);
            return 0;
        }
    }

    /** The last ring sequence taken. */
    long sequence()
    {
        return poller.getSequence().get();
    }

    @Override
    public boolean onEvent(final CommandSlot slot, final long sequence, final boolean endOfBatch)
    {
        current = sequence;
        taken++;
        final boolean last = endOfBatch || taken >= limit;
        core.onEvent(slot, sequence, last);
        return !last;
    }
}
