package io.gpux.gateway.egress;

import io.gpux.core.journal.Journal;
import io.gpux.gateway.session.Session;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

import java.util.ArrayList;

/**
 * The resends in progress, one {@link ResendCursor} per resending session: who may start one (the
 * {@link Egress.ResendLimits}), and their turns, round-robin, within a slice per duty cycle: a budget
 * of journal documents ({@link #BUDGET} across every resending session, {@link #QUANTUM} at a time)
 * and of time ({@link #SLICE_NS}), so that no resend holds the egress thread (in the shared layout,
 * the core's too) for more than a slice, however long the history, many the resends or costly the
 * documents. On the egress thread only, but {@link #inProgress()}.
 */
final class Resends
{
    /** Journal documents all resends together read per duty cycle at most. */
    static final int BUDGET = 512;
    /** Documents one resend reads before the next resending session has its turn. */
    static final int QUANTUM = 64;
    /**
     * A duty cycle's slice ends once this much time has gone since it began: no new turn starts, and a turn
     * in progress stops after the document it is reading ({@link #sliceOver()}). A document read for a
     * resend (a seek for an event far from the last, its decoding and framing) costs the egress thread from
     * a few to some tens of microseconds of CPU, so the document budget alone lets a slice run for
     * milliseconds; with this, a slice is this long plus one document.
     */
    static final long SLICE_NS = 200_000;

    /** Advances one resend by about {@code max} documents read; returns the work done, plus one if it finished. */
    @FunctionalInterface
    interface Step
    {
        int advance(ResendCursor cursor, int max);
    }

    private final Egress.ResendLimits limits;
    private final NanoClock clock;
    /** Resends in progress, in turn order, and by session id; how many each account has. */
    private final ArrayList<ResendCursor> cursors = new ArrayList<>();
    private final Long2ObjectHashMap<ResendCursor> bySession = new Long2ObjectHashMap<>();
    private final Long2LongHashMap perAccount = new Long2LongHashMap(0);
    private int turn;
    private volatile int inProgress;
    /** When the current duty cycle's slice ends, on {@link #clock}. */
    private long sliceEnd;

    Resends(final Egress.ResendLimits limits)
    {
        this(limits, SystemNanoClock.INSTANCE);
    }

    /** With the clock that times each slice ({@link #SLICE_NS}). */
    Resends(final Egress.ResendLimits limits, final NanoClock clock)
    {
        this.limits = limits;
        this.clock = clock;
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

    /** Forgets a resend (finished, or its session gone) and lets go of its reader. */
    void end(final ResendCursor c)
    {
        final int at = cursors.indexOf(c);
        cursors.remove(at);
        if (at < turn)
        {
            turn--;
        }
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
        c.close();
    }

    /** Ends every resend (the egress closes). */
    void endAll()
    {
        while (!cursors.isEmpty())
        {
            end(cursors.get(cursors.size() - 1));
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

    /**
     * Gives the resends their turns, round-robin, {@link #QUANTUM} documents each, until {@link #BUDGET}
     * documents are read, {@link #SLICE_NS} have gone by, or none of them has work to do.
     *
     * @return the documents read, plus one for each resend finished.
     */
    int run(final Step step)
    {
        int budget = BUDGET;
        int work = 0;
        int idle = 0;
        sliceEnd = clock.nanoTime() + SLICE_NS;
        while (budget > 0 && !cursors.isEmpty() && idle < cursors.size() && !sliceOver())
        {
            if (turn >= cursors.size())
            {
                turn = 0;
            }
            final ResendCursor c = cursors.get(turn);
            final int done = step.advance(c, Math.min(QUANTUM, budget));
            if (bySession.get(c.session.id) == c)
            {
                turn++;
            }
            budget -= done;
            work += done;
            idle = done == 0 ? idle + 1 : 0;
        }
        return work;
    }

    /** Whether the current duty cycle's slice has used its time ({@link #SLICE_NS}); a turn reading documents asks after each. */
    boolean sliceOver()
    {
        return clock.nanoTime() - sliceEnd >= 0;
    }
}
