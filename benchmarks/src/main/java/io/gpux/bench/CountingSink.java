package io.gpux.bench;

import io.gpux.engine.event.Event;
import io.gpux.engine.event.EventSink;
import io.gpux.engine.event.EventType;

/** The benchmarks' event sink: counts events by type (no allocation), so nothing is dead code. */
public final class CountingSink implements EventSink
{
    static final int TYPES = EventType.values().length;

    final long[] counts = new long[TYPES];

    @Override
    public void onEvent(final Event event)
    {
        counts[event.type.ordinal()]++;
    }

    public long total()
    {
        long sum = 0;
        for (final long c : counts)
        {
            sum += c;
        }
        return sum;
    }

    public long count(final EventType type)
    {
        return counts[type.ordinal()];
    }

    long[] snapshot()
    {
        return counts.clone();
    }
}
