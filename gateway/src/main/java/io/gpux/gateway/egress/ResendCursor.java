package io.gpux.gateway.egress;

import io.gpux.engine.journal.Journal;
import io.gpux.gateway.session.Session;
import io.netty.buffer.ByteBuf;

/**
 * One session's resend in progress: its own reader of the event journal, where it is (the engine
 * event last read, the account's number of the last of its events read), and what the session was
 * sent meanwhile by anything but the resend (answers, market data), held back until the resend has
 * caught up with the live stream. Owned by the egress thread.
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
