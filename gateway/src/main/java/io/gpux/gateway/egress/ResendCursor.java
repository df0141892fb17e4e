package io.gpux.gateway.egress;

import io.gpux.engine.event.Event;
import io.gpux.engine.event.Recipients;
import io.gpux.core.journal.EventCodec;
import io.gpux.core.journal.Journal;
import io.gpux.core.journal.RecordDescriptor;
import io.gpux.gateway.session.Session;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.ResendComplete;
import io.netty.buffer.ByteBuf;
import org.agrona.collections.LongArrayList;

import java.util.function.BooleanSupplier;

/**
 * One session's resend in progress: its own reader of the event journal, the account's events still to
 * send, and what the session was sent meanwhile by anything but the resend (answers, market data), held
 * back until the resend has caught up with the live stream.
 *
 * <p>Every private event carries, per recipient account, the account's number of it and the engine
 * sequence of the account's previous event. The cursor walks back along these links from the account's
 * newest event to the first one the session lacks, noting each event's engine sequence (8 bytes per
 * missing event), then reads them forward, in order; each read is a seek of the journal by engine
 * sequence ({@link Journal.Reader#seek}, O(log n) documents, none when the event is in the document
 * last read). So a resend reads what the account missed, not the journal between its events. Events
 * that came meanwhile are fetched the same way, until the cursor has sent the account's newest event.
 *
 * <p>The egress's thread owns the cursor, and hands it to the {@link ResendReader}'s thread for each round of
 * reading ({@link #busy}); the two never use it at once.
 */
final class ResendCursor
{
    final Session session;
    final Journal.Reader reader;
    /** The last event the session holds (Login's last_seq): events after it are sent. */
    final long after;
    /** The account's last event when the session logged in: ResendComplete follows it. */
    final long last;
    /** The account's number of the last event sent. */
    long seq;
    boolean completeSent;
    /** Why the resend cannot go on (the journal lacks an event), or null. */
    String failure;
    /** Frames for the session from anything else while it resends, in order; null until there is one. */
    ByteBuf held;
    /**
     * With the {@link ResendReader} (from the egress's hand-over to its hand-back): the cursor's reading state, its
     * reader and {@link #chunk} are the reader thread's meanwhile. The egress's thread only.
     */
    boolean busy;
    /** The resend was ended while {@link #busy}: the egress closes it when the reader hands it back. */
    boolean ended;
    /** The account's newest event when the egress handed the cursor over (its number, its engine sequence). */
    long targetSeq;
    long targetEvent;
    /** What the reader framed in its last round (the session's next frames), handed back with the cursor; null after. */
    ByteBuf chunk;
    /** Engine sequences of the events to send, newest first (the walk back's order); sent from the end. */
    private final LongArrayList toSend = new LongArrayList();
    /** The walk back: the next event to read (engine sequence, the account's number), 0 when not walking. */
    private long walkEvent;
    private long walkSeq;
    private final EventCodec codec = new EventCodec();
    private final byte[] record = new byte[RecordDescriptor.MAX_RECORD_LENGTH];
    private final Event event = new Event();
    private final long[] recipients = new long[2];

    ResendCursor(final Session session, final Journal.Reader reader, final long after, final long last)
    {
        this.session = session;
        this.reader = reader;
        this.after = after;
        this.last = last;
        this.seq = after;
    }

    /** True when every event up to the account's {@code newestSeq} has been sent. */
    boolean caughtUp(final long newestSeq)
    {
        return seq >= newestSeq && walkEvent == 0 && toSend.isEmpty();
    }

    /**
     * Works for about {@code max} journal documents read (each step reads at least one unit): walks back
     * from the account's newest event ({@code newestSeq}, at engine sequence {@code newestEvent}) when
     * there is nothing left to send, else frames the next event into {@code out}, with ResendComplete
     * right after its event {@link #last}. Stops at a failure ({@link #failure}), and after the first step
     * once {@code sliceOver} says the duty cycle's time for resends is gone.
     *
     * @return the work done.
     */
    int read(final int max, final long newestSeq, final long newestEvent, final ByteBuf out, final EventFrames frames,
        final BooleanSupplier sliceOver)
    {
        int n = 0;
        while (n < max && failure == null && !caughtUp(newestSeq) && (n == 0 || !sliceOver.getAsBoolean()))
        {
            final long before = reader.documentsRead();
            if (toSend.isEmpty() && walkEvent == 0)
            {
                walkEvent = newestEvent;
                walkSeq = newestSeq;
            }
            if (walkEvent != 0)
            {
                walkBack();
            }
            else
            {
                sendNext(out, frames);
            }
            n += (int)Math.max(1, reader.documentsRead() - before);
        }
        return n;
    }

    /** Reads the event the walk is at, notes it, and steps to the account's previous event. */
    private void walkBack()
    {
        final int at = readEvent(walkEvent, walkSeq);
        if (at < 0)
        {
            return;
        }
        toSend.addLong(walkEvent);
        if (walkSeq == seq + 1)
        {
            walkEvent = 0;
            return;
        }
        final long previous = event.previous(at);
        if (previous == 0)
        {
            failure = "the event journal does not link the account's event " + walkSeq + " to its event " + (walkSeq - 1);
            return;
        }
        walkEvent = previous;
        walkSeq--;
    }

    private void sendNext(final ByteBuf out, final EventFrames frames)
    {
        final long eventSeq = toSend.removeAt(toSend.size() - 1);
        if (readEvent(eventSeq, seq + 1) < 0)
        {
            return;
        }
        seq++;
        frames.accountEvent(out, event, session.accountId, seq);
        if (seq == last)
        {
            Frames.write(Envelope.newBuilder().setResendComplete(
                ResendComplete.newBuilder().setLastSeq(last).setEventsResent(last - after)).build(), out);
            completeSent = true;
        }
    }

    /**
     * Reads the event at engine sequence {@code eventSeq} into {@link #event}, checking that it is the
     * account's {@code accountSeq}-th.
     *
     * @return the account's place among the event's recipients, or -1 with {@link #failure} set.
     */
    private int readEvent(final long eventSeq, final long accountSeq)
    {
        final int length = reader.read(eventSeq, EventCodec::sequenceOf, record);
        if (length < 0)
        {
            failure = "the event journal no longer holds the account's event " + accountSeq;
            return -1;
        }
        System.arraycopy(record, 0, codec.bytes(), 0, length);
        final String problem = codec.decode(length, event);
        final int at = problem == null ? Recipients.indexOf(event, session.accountId, recipients) : -1;
        if (at < 0 || event.accountSeq(at) != accountSeq)
        {
            failure = "the event journal's event " + eventSeq + " is not the account's event " + accountSeq +
                (problem == null ? "" : " (" + problem + ")");
            return -1;
        }
        return at;
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

    /** Lets go of anything held and a chunk not written (the journal reader is the caller's to close). */
    void release()
    {
        if (chunk != null)
        {
            chunk.release();
            chunk = null;
        }
        if (held != null)
        {
            held.release();
            held = null;
        }
    }

    /** Lets go of the journal reader, anything held and a chunk not written, on this thread. */
    void close()
    {
        release();
        if (reader != null)
        {
            reader.handOver();
            reader.close();
        }
    }
}
