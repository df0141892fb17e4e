package io.gpux.gateway.egress;

import io.gpux.engine.event.Event;
import io.gpux.engine.event.EventType;
import io.gpux.engine.journal.EventCodec;
import io.gpux.engine.journal.Journal;
import io.gpux.engine.journal.RecordDescriptor;
import io.gpux.gateway.session.Session;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.ResendComplete;
import io.netty.buffer.ByteBuf;

/**
 * One session's resend in progress: its own reader of the event journal, where it is (the engine
 * event last read, the account's number of the last of its events read), and what the session was
 * sent meanwhile by anything but the resend (answers, market data), held back until the resend has
 * caught up with the live stream. It numbers the account's events as the egress's live tail does
 * ({@link EventRouter}; trades go to no account). Owned by the egress thread.
 */
final class ResendCursor
{
    final Session session;
    final Journal.Reader reader;
    /** The last event the session holds (Login's last_seq): events after it are sent. */
    final long after;
    /** The account's last event when the session logged in: ResendComplete follows it. */
    final long last;
    /** Records before this engine event (in the checkpoint's document) are skipped. */
    final long firstEventSeq;
    /** The account's number of the last of its events read. */
    long seq;
    /** The engine sequence of the last event read. */
    long eventSeq;
    boolean completeSent;
    /** Frames for the session from anything else while it resends, in order; null until there is one. */
    ByteBuf held;
    private final EventCodec codec = new EventCodec();
    private final byte[] record = new byte[RecordDescriptor.MAX_RECORD_LENGTH];
    private final Event event = new Event();
    private final long[] recipients = new long[2];

    ResendCursor(
        final Session session, final Journal.Reader reader, final long after, final long last, final long seqBefore,
        final long firstEventSeq)
    {
        this.session = session;
        this.reader = reader;
        this.after = after;
        this.last = last;
        this.seq = seqBefore;
        this.firstEventSeq = firstEventSeq;
        this.eventSeq = firstEventSeq - 1;
    }

    /**
     * Reads up to {@code max} records, but none past the engine event {@code upTo} (what the live tail
     * has routed), framing the account's events after {@link #after} into {@code out}, and
     * ResendComplete right after its event {@link #last}.
     *
     * @return the records read.
     */
    int read(final int max, final long upTo, final ByteBuf out, final EventFrames frames)
    {
        final Event e = event;
        int n = 0;
        while (n < max && eventSeq < upTo)
        {
            final int length = reader.next(record);
            if (length < 0)
            {
                break;
            }
            n++;
            System.arraycopy(record, 0, codec.bytes(), 0, length);
            if (codec.decode(length, e) != null || e.sequence < firstEventSeq)
            {
                continue;
            }
            eventSeq = e.sequence;
            if (e.type == EventType.TRADE)
            {
                continue;
            }
            final int count = EventRouter.recipients(e, recipients);
            for (int i = 0; i < count; i++)
            {
                if (recipients[i] != session.accountId)
                {
                    continue;
                }
                seq++;
                if (seq > after)
                {
                    frames.accountEvent(out, e, session.accountId, seq);
                }
                if (seq == last)
                {
                    Frames.write(Envelope.newBuilder().setResendComplete(
                        ResendComplete.newBuilder().setLastSeq(last).setEventsResent(last - after)).build(), out);
                    completeSent = true;
                }
            }
        }
        return n;
    }

    /** The buffer for what must wait until the resend is done. */
    ByteBuf held()
    {
        if (held == null)
        {
            held = session.channel.alloc().directBuffer(4096);
        }
        return held;
    }

    int heldBytes()
    {
        return held == null ? 0 : held.readableBytes();
    }

    /** Lets go of the journal reader and anything held. */
    void close()
    {
        reader.close();
        if (held != null)
        {
            held.release();
            held = null;
        }
    }
}
