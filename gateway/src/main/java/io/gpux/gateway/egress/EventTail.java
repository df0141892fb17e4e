package io.gpux.gateway.egress;

import io.gpux.engine.event.Event;
import io.gpux.engine.event.EventType;
import io.gpux.core.journal.EventCodec;
import io.gpux.core.journal.Journal;
import io.gpux.core.journal.RecordDescriptor;
import io.gpux.gateway.metrics.GatewayCounters;
import io.gpux.gateway.session.Session;
import io.netty.buffer.ByteBuf;

import java.util.List;
import java.util.function.Consumer;

/**
 * The egress's live tail of the event journal: it reads the journaled events in order (so an event
 * leaves only once journaled) and routes each one: a trade to the price history (unless the
 * {@link HistoryLoader} still loads it) and to its market's subscribers; a private event to the live
 * sessions of each of its accounts, with the account's number of it, which it also records in
 * {@link AccountNumbers}. Allocation-free. On the egress thread only, but for {@link #tailedEventSeq()}.
 */
final class EventTail
{
    private final SessionTable sessions;
    private final AccountNumbers accounts;
    private final HistoryLoader historyLoader;
    private final Consumer<Event> onTrade;
    private final EventFrames frames;
    private final Consumer<String> log;
    private final EventCodec codec = new EventCodec();
    private final byte[] record = new byte[RecordDescriptor.MAX_RECORD_LENGTH];
    private final Event event = new Event();
    private final long[] recipients = new long[2];
    private GatewayCounters counters = GatewayCounters.inMemory();
    private Journal.Reader reader;
    private volatile long tailedEventSeq;

    /** @param onTrade told each trade tailed once the history loader is done (the loader tells it the ones before). */
    EventTail(
        final SessionTable sessions, final AccountNumbers accounts, final HistoryLoader historyLoader,
        final Consumer<Event> onTrade, final EventFrames frames, final Consumer<String> log)
    {
        this.sessions = sessions;
        this.accounts = accounts;
        this.historyLoader = historyLoader;
        this.onTrade = onTrade;
        this.frames = frames;
        this.log = log;
    }

    void counters(final GatewayCounters counters)
    {
        this.counters = counters;
    }

    /** Tails {@code reader} from the end of the journal; returns the engine sequence of the last event there (0: none). */
    long startAtEnd(final Journal.Reader reader)
    {
        this.reader = reader;
        tailedEventSeq = reader.startAtEnd(EventCodec::sequenceOf);
        counters.egressEventSequence.setRelease(tailedEventSeq);
        return tailedEventSeq;
    }

    /** Documents the reader has read so far. */
    long documentsRead()
    {
        return reader.documentsRead();
    }

    /** The engine sequence of the last event routed (any thread). */
    long tailedEventSeq()
    {
        return tailedEventSeq;
    }

    /** Routes up to {@code max} events from the journal; returns how many. */
    int tail(final int max)
    {
        int n = 0;
        while (n < max)
        {
            final int length = reader.next(record);
            if (length < 0)
            {
                break;
            }
            System.arraycopy(record, 0, codec.bytes(), 0, length);
            final String problem = codec.decode(length, event);
            if (problem != null)
            {
                log.accept("egress: event journal record at document " + reader.index() + " does not decode: " + problem);
                continue;
            }
            route(event);
            tailedEventSeq = event.sequence;
            n++;
        }
        if (n > 0)
        {
            counters.egressEventSequence.setRelease(tailedEventSeq);
        }
        return n;
    }

    private void route(final Event e)
    {
        if (e.type == EventType.TRADE)
        {
            routeTrade(e);
            return;
        }
        final int count = EventRouter.recipients(e, recipients);
        for (int i = 0; i < count; i++)
        {
            final long account = recipients[i];
            final long seq = e.accountSeq(i);
            if (seq == 0)
            {
                // an account the engine does not hold: no session of it can be logged in
                continue;
            }
            accounts.onEvent(account, seq, e.sequence);
            final List<Session> list = sessions.ofAccount(account);
            if (list != null)
            {
                for (int j = 0; j < list.size(); j++)
                {
                    final Session s = list.get(j);
                    if (s.live)
                    {
                        sendEvent(s, e, account, seq);
                    }
                }
            }
        }
    }

    private void routeTrade(final Event e)
    {
        if (!historyLoader.loading())
        {
            onTrade.accept(e);
        }
        final List<Session> list = sessions.subscribers(e.marketId);
        if (list != null)
        {
            for (int i = 0; i < list.size(); i++)
            {
                final ByteBuf out = sessions.outgoing(list.get(i));
                if (out != null)
                {
                    frames.trade(out, e);
                }
            }
        }
    }

    /** Frames a private event, the account's {@code seq}-th, into the session's outgoing buffer. */
    private void sendEvent(final Session s, final Event e, final long account, final long seq)
    {
        final ByteBuf out = sessions.outgoing(s);
        if (out != null)
        {
            frames.accountEvent(out, e, account, seq);
        }
    }
}
