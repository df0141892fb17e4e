package io.gpux.core.pipeline;

import com.lmax.disruptor.RingBuffer;
import io.gpux.engine.MatchingEngine;
import io.gpux.engine.event.Event;
import io.gpux.core.journal.EventCodec;
import io.gpux.core.journal.Journal;

import java.util.List;

/**
 * The core's output, on the core thread: each event encoded, then either written to the event journal's
 * batch and kept, with the commands' completions, until the batch's events are journaled, and then handed
 * to the publishers in order (inline output); or handed to the output thread through the output ring.
 */
final class CoreOutput
{
    private final Journal eventJournal;
    private final EventPublisher[] publishers;
    /** Null for inline output. */
    private final RingBuffer<EventSlot> outputRing;
    private final EventCodec eventCodec = new EventCodec();
    /** Inline output: the batch's events and completions, in order, published once the batch's events are journaled. */
    private Output[] outputs = new Output[1024];
    private int outputCount;
    /** The next output to hand to the publishers (those before it were handed over). */
    private int outputsPublished;

    CoreOutput(final Journal eventJournal, final List<EventPublisher> publishers, final RingBuffer<EventSlot> outputRing)
    {
        this.eventJournal = eventJournal;
        this.publishers = publishers.toArray(new EventPublisher[0]);
        this.outputRing = outputRing;
    }

    /** Whether the event journal is written on the core thread. */
    boolean inline()
    {
        return outputRing == null;
    }

    /** On the core thread, before its first command. */
    void onStart(final MatchingEngine engine)
    {
        if (outputRing == null)
        {
            eventJournal.takeOverWriting();
        }
        for (final EventPublisher p : publishers)
        {
            p.onRecovered(engine);
        }
    }

    void event(final Event event)
    {
        final int length = eventCodec.encode(event);
        if (outputRing == null)
        {
            eventJournal.add(eventCodec.bytes(), length);
            if (publishers.length > 0)
            {
                nextOutput().event.copyFrom(event);
            }
            return;
        }
        final long at = outputRing.next();
        outputRing.get(at).set(eventCodec.bytes(), length);
        outputRing.publish(at);
    }

    void completion(final long commandSequence, final long correlation)
    {
        if (outputRing == null)
        {
            if (publishers.length > 0)
            {
                nextOutput().completion(commandSequence, correlation);
            }
            return;
        }
        final long at = outputRing.next();
        outputRing.get(at).completion(commandSequence, correlation);
        outputRing.publish(at);
    }

    void refused(final long correlation, final String reason)
    {
        if (outputRing == null)
        {
            for (final EventPublisher p : publishers)
            {
                p.onCommandRefused(correlation, reason);
            }
            return;
        }
        final long at = outputRing.next();
        outputRing.get(at).refusal(correlation, reason);
        outputRing.publish(at);
    }

    /** The batch is applied: inline, its events are journaled, then handed to the publishers in order. */
    void endBatch()
    {
        if (outputRing == null)
        {
            eventJournal.endBatch();
            publishOutputs();
        }
    }

    void onBatchApplied(final MatchingEngine engine)
    {
        for (final EventPublisher p : publishers)
        {
            p.onBatchApplied(engine);
        }
    }

    /** The engine failed in the batch: inline, nothing of its output is written or leaves. */
    void discardBatch()
    {
        if (outputRing == null)
        {
            eventJournal.discardBatch();
            outputCount = 0;
        }
    }

    /** After a failure: the completions not handed over yet are answered as refused, and the rest dropped. */
    void abandon(final String reason)
    {
        for (int i = outputsPublished; i < outputCount; i++)
        {
            if (outputs[i].completion)
            {
                refused(outputs[i].correlation, reason);
            }
        }
        outputCount = 0;
        outputsPublished = 0;
    }

    /** Events waiting in the output ring for the output thread; 0 inline. */
    long ringOccupancy()
    {
        return outputRing == null ? 0 : outputRing.getCursor() - outputRing.getMinimumGatingSequence();
    }

    private Output nextOutput()
    {
        if (outputCount == outputs.length)
        {
            outputs = java.util.Arrays.copyOf(outputs, outputCount * 2);
        }
        Output out = outputs[outputCount];
        if (out == null)
        {
            out = new Output();
            outputs[outputCount] = out;
        }
        outputCount++;
        out.completion = false;
        return out;
    }

    /** Inline output, after the batch's events are in the event journal: to the publishers, in order. */
    private void publishOutputs()
    {
        for (; outputsPublished < outputCount; outputsPublished++)
        {
            final Output out = outputs[outputsPublished];
            for (final EventPublisher p : publishers)
            {
                if (out.completion)
                {
                    p.onCommandComplete(out.commandSequence, out.correlation);
                }
                else
                {
                    p.onEvent(out.event);
                }
            }
        }
        outputCount = 0;
        outputsPublished = 0;
    }

    /** An event or a command's completion waiting for its batch's events to be journaled (inline output). */
    private static final class Output
    {
        final Event event = new Event();
        boolean completion;
        long commandSequence;
        long correlation;

        void completion(final long commandSequence, final long correlation)
        {
            completion = true;
            this.commandSequence = commandSequence;
            this.correlation = correlation;
        }
    }

    /** The event journal or the output ring failed while the engine was emitting an event. */
    static final class OutputFailure extends RuntimeException
    {
        OutputFailure(final RuntimeException cause)
        {
            super("writing an event failed: " + cause, cause);
        }
    }
}
