package io.gpux.gateway.egress;

import io.gpux.core.journal.Journal;
import io.gpux.gateway.session.Session;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.Long2ObjectHashMap;

import java.util.ArrayList;
import java.util.function.Consumer;

/**
 * The resends in progress, one {@link ResendCursor} per resending session, and who may start one (the
 * {@link Egress.ResendLimits}). Their reading is the {@link ResendReader}'s, on its own thread, a round at a time:
 * a budget of journal documents ({@link #BUDGET}) and of time ({@link #SLICE_NS}) per round, so that a resend
 * shares the reader fairly with the others however long its history or costly its documents. On the egress
 * thread only, but {@link #inProgress()}.
 */
final class Resends
{
    /** Journal documents a resend reads per round at most. */
    static final int BUDGET = 512;
    /**
     * A round ends once this much time has gone since it began: the cursor stops after the document it is
     * reading. A document read for a resend (a seek for an event far from the last, its decoding and framing)
     * costs from a few to some tens of microseconds, so the document budget alone would let a round run for
     * milliseconds; with this, a round is this long plus one document.
     */
    static final long SLICE_NS = 200_000;

    private final Egress.ResendLimits limits;
    /** Resends in progress, in the order started, and by session id; how many each account has. */
    private final ArrayList<ResendCursor> cursors = new ArrayList<>();
    private final Long2ObjectHashMap<ResendCursor> bySession = new Long2ObjectHashMap<>();
    private final Long2LongHashMap perAccount = new Long2LongHashMap(0);
    private volatile int inProgress;
    private Consumer<Journal.Reader> readerCloser = r ->
    {
        r.handOver();
        r.close();
    };

    Resends(final Egress.ResendLimits limits)
    {
        this.limits = limits;
    }

    Egress.ResendLimits limits()
    {
        return limits;
    }

    /** Why the account may not start one more resend now, or null if it may. */
    String refusal(final long accountId)
    {
        final long ofAccount = perAccount.get(accountId);
        if (ofAccount >= limits.perAccount())
        {
            return "the account has " + ofAccount + " resends in progress, the most allowed; log in again once one has finished";
        }
        if (cursors.size() >= limits.total())
        {
            return "the gateway has " + cursors.size() + " resends in progress, the most allowed; log in again shortly";
        }
        return null;
    }

    /**
     * Starts a cursor over the journal, on its own reader, for the session's missing events (after
     * {@code after} up to {@code last}, then on to the account's newest).
     */
    void start(final Session s, final Journal.Reader reader, final long after, final long last)
    {
        final ResendCursor c = new ResendCursor(s, reader, after, last);
        cursors.add(c);
        bySession.put(s.id, c);
        perAccount.put(s.accountId, perAccount.get(s.accountId) + 1);
        inProgress = cursors.size();
    }

    /** The session's resend in progress, or null. */
    ResendCursor of(final long sessionId)
    {
        return bySession.get(sessionId);
    }

    /** The resends in progress, in the order started (not to be changed by the caller). */
    ArrayList<ResendCursor> cursors()
    {
        return cursors;
    }

    /**
     * Forgets a resend (finished, or its session gone) and lets go of its reader, at once or, while the
     * {@link ResendReader} has it, as soon as it is handed back ({@link ResendCursor#ended}).
     */
    void end(final ResendCursor c)
    {
        cursors.remove(c);
        bySession.remove(c.session.id);
        final long left = perAccount.get(c.session.accountId) - 1;
        if (left <= 0)
        {
            perAccount.remove(c.session.accountId);
        }
        else
        {
            perAccount.put(c.session.accountId, left);
        }
        inProgress = cursors.size();
        if (c.busy)
        {
            c.ended = true;
        }
        else
        {
            close(c);
        }
    }

    /**
     * Lets go of an ended resend: its buffers here, its journal reader by {@link #closeReadersWith} (closing a
     * reader can unmap journal files: the reader's thread does it).
     */
    void close(final ResendCursor c)
    {
        c.release();
        if (c.reader != null)
        {
            readerCloser.accept(c.reader);
        }
    }

    /** Who closes the journal readers of ended resends (default: this thread, at once). */
    void closeReadersWith(final Consumer<Journal.Reader> closer)
    {
        this.readerCloser = closer;
    }

    /** Ends every resend and lets go of every reader (the egress closes, its {@link ResendReader} stopped). */
    void endAll()
    {
        while (!cursors.isEmpty())
        {
            final ResendCursor c = cursors.get(cursors.size() - 1);
            c.busy = false;
            end(c);
        }
    }

    boolean isEmpty()
    {
        return cursors.isEmpty();
    }

    int size()
    {
        return cursors.size();
    }

    /** Resends in progress (any thread). */
    int inProgress()
    {
        return inProgress;
    }
}
