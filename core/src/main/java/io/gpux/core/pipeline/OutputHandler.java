package io.gpux.core.pipeline;

import com.lmax.disruptor.EventHandler;
import io.gpux.engine.event.Event;
import io.gpux.core.journal.EventCodec;
import io.gpux.core.journal.Journal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/** The output stage, on the output thread: event journal, then every publisher. */
final class OutputHandler implements EventHandler<EventSlot>
{
    /** Counted down when the output thread leaves its loop. */
    final CountDownLatch stopped = new CountDownLatch(1);
    private final Journal journal;
    private final EventPublisher[] publishers;
    private final EventCodec codec = new EventCodec();
    private final Event event = new Event();
    private final EventSlot[] pending;
    private int pendingCount;

    OutputHandler(final Journal journal, final List<EventPublisher> publishers, final int ringSize)
    {
        this.journal = journal;
        this.publishers = publishers.toArray(new EventPublisher[0]);
        pending = new EventSlot[ringSize];
    }

    @Override
    public void onStart()
    {
        journal.takeOverWriting();
    }

    @Override
    public void onShutdown()
    {
        stopped.countDown();
    }

    @Override
    public void onEvent(final EventSlot slot, final long sequence, final boolean endOfBatch)
    {
        if (!slot.completion)
        {
            journal.add(slot.bytes, slot.length);
        }
        pending[pendingCount++] = slot;
        if (endOfBatch || pendingCount == pending.length || journal.pendingBytes() >= CoreHandler.BATCH_BYTES)
        {
            journal.endBatch();
            for (int i = 0; i < pendingCount; i++)
            {
                publish(pending[i]);
                pending[i] = null;
            }
            pendingCount = 0;
        }
    }

    private void publish(final EventSlot slot)
    {
        if (publishers.length == 0)
        {
            return;
        }
        if (slot.completion)
        {
            for (final EventPublisher p : publishers)
            {
                if (slot.refusal != null)
                {
                    p.onCommandRefused(slot.correlation, slot.refusal);
                }
                else
                {
                    p.onCommandComplete(slot.commandSequence, slot.correlation);
                }
            }
            return;
        }
        System.arraycopy(slot.bytes, 0, codec.bytes(), 0, slot.length);
        final String problem = codec.decode(slot.length, event);
        if (problem != null)
        {
            throw new UncheckedIOException(new IOException("event record does not decode: " + problem));
        }
        for (final EventPublisher p : publishers)
        {
            p.onEvent(event);
        }
    }
}
