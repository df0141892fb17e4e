package io.gpux.gateway.egress;

import io.gpux.engine.event.Event;
import io.gpux.engine.event.EventType;
import io.gpux.core.journal.EventCodec;
import io.gpux.core.journal.Journal;
import io.gpux.core.journal.RecordDescriptor;

import java.util.function.Consumer;

/**
 * Rebuilds the price history after a start: reads the journal's trades from its start, on a reader of
 * its own, a bounded slice per duty cycle ({@link #BUDGET} records), up to what the live tail has
 * routed; from then on the live tail feeds the history. On the egress thread only.
 */
final class HistoryLoader
{
    /** Journal records the loader reads per duty cycle at most. */
    static final int BUDGET = 4096;

    private final Consumer<Event> onTrade;
    private final EventCodec codec = new EventCodec();
    private final byte[] record = new byte[RecordDescriptor.MAX_RECORD_LENGTH];
    private final Event event = new Event();
    /** Null once the loader has caught up with the tail (or had nothing to load). */
    private Journal.Reader reader;
    private long eventSeq;

    /** @param onTrade told each trade loaded, in journal order. */
    HistoryLoader(final Consumer<Event> onTrade)
    {
        this.onTrade = onTrade;
    }

    /** Loads the journal's trades with {@code reader}, from its start (the tail starts after a non-empty journal). */
    void start(final Journal.Reader reader)
    {
        this.reader = reader;
    }

    /** Whether it still loads: until then the live tail does not feed the history, and history reads wait. */
    boolean loading()
    {
        return reader != null;
    }

    /**
     * Feeds the trades of up to {@link #BUDGET} records, until it has read what the live tail has
     * ({@code tailedEventSeq}).
     *
     * @return the records read.
     */
    int load(final long tailedEventSeq)
    {
        if (reader == null)
        {
            return 0;
        }
        int n = 0;
        while (n < BUDGET && eventSeq < tailedEventSeq)
        {
            final int length = reader.next(record);
            if (length < 0)
            {
                break;
            }
            n++;
            System.arraycopy(record, 0, codec.bytes(), 0, length);
            if (codec.decode(length, event) != null)
            {
                continue;
            }
            eventSeq = event.sequence;
            if (event.type == EventType.TRADE && eventSeq <= tailedEventSeq)
            {
                onTrade.accept(event);
            }
        }
        if (eventSeq >= tailedEventSeq)
        {
            close();
        }
        return n;
    }

    /** Lets go of the reader. */
    void close()
    {
        if (reader != null)
        {
            reader.close();
            reader = null;
        }
    }
}
