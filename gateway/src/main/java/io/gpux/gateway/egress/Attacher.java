package io.gpux.gateway.egress;

import io.gpux.core.journal.Journal;
import io.gpux.engine.command.Roles;
import io.gpux.gateway.session.Session;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.LoginAccepted;
import io.gpux.proto.v1.ResendComplete;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.SessionErrorCode;
import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Brings a logged-in session live ({@link Egress.Attach}): sends LoginAccepted with the account's last
 * event number, refuses a resend over the {@link Egress.ResendLimits}, and either puts the session on
 * the live stream at once or starts its resend ({@link ResendCursor}), which the {@link ResendReader} reads a
 * round at a time on its own thread while this writes each round to the session ({@link #writeRounds()}), until the
 * session has the account's newest event and goes live, between two events, with what waited behind the
 * resend. On the egress thread only.
 */
final class Attacher
{
    private final SessionTable sessions;
    private final AccountNumbers accounts;
    private final Resends resends;
    private final ResendReader reader;
    /** Writes a round the reader handed back (made once: no allocation per round). */
    private final Consumer<ResendCursor> onRound = this::written;
    private final Supplier<Journal.Reader> readerFactory;

    Attacher(
        final SessionTable sessions, final AccountNumbers accounts, final Resends resends, final ResendReader reader,
        final Supplier<Journal.Reader> readerFactory)
    {
        this.sessions = sessions;
        this.accounts = accounts;
        this.resends = resends;
        this.reader = reader;
        this.readerFactory = readerFactory;
    }

    void attach(final Egress.Attach a)
    {
        final Session s = a.session();
        if (s.closed)
        {
            return;
        }
        if (s.revoked())
        {
            // revoked between its login and now: it never goes live
            sessions.register(s);
            sessions.close(s, SessionErrorCode.KEY_REVOKED, "key " + s.keyId + " was revoked");
            return;
        }
        accounts.onLogin(s.accountId, a.accountLastSeq(), a.accountLastEvent());
        final long last = accounts.lastSeq(s.accountId);
        final boolean resend = a.lastSeq() >= 0 && a.lastSeq() < last;
        final String refusal = resend ? resends.refusal(s.accountId) : null;
        if (refusal != null)
        {
            s.refused = true;
            sessions.close(s, SessionErrorCode.TOO_MANY_RESENDS, refusal);
            return;
        }
        sessions.attach(s);
        sessions.send(s, Envelope.newBuilder().setLoginAccepted(accepted(a, last)).build());
        if (a.lastSeq() > last)
        {
            sessions.close(s, SessionErrorCode.RESEND_UNAVAILABLE,
                "last_seq " + a.lastSeq() + " is ahead of the account's last event " + last);
            return;
        }
        if (resend)
        {
            // the session stays off the live stream until its cursor has caught up
            resends.start(s, readerFactory.get(), a.lastSeq(), last);
            return;
        }
        if (a.lastSeq() >= 0)
        {
            sessions.send(s, Envelope.newBuilder().setResendComplete(
                ResendComplete.newBuilder().setLastSeq(last).setEventsResent(0)).build());
        }
        s.live = true;
    }

    private static LoginAccepted.Builder accepted(final Egress.Attach a, final long last)
    {
        final Session s = a.session();
        final LoginAccepted.Builder accepted = LoginAccepted.newBuilder()
            .setAccount(s.accountName)
            .setAccountId(s.accountId)
            .setLastSeq(last)
            .setHeartbeatIntervalMs(a.heartbeatIntervalMs())
            .setServerTimeMs(System.currentTimeMillis())
            .setMaxFrameBytes(a.maxFrameBytes())
            .setSessionId(s.id);
        for (final Role role : roles(s.roles))
        {
            accepted.addRoles(role);
        }
        return accepted;
    }

    private static List<Role> roles(final int roles)
    {
        final List<Role> list = new ArrayList<>(4);
        if ((roles & Roles.RENTER) != 0)
        {
            list.add(Role.RENTER);
        }
        if ((roles & Roles.OWNER) != 0)
        {
            list.add(Role.OWNER);
        }
        if ((roles & Roles.MARKET_MAKER) != 0)
        {
            list.add(Role.MARKET_MAKER);
        }
        if ((roles & Roles.ADMIN) != 0)
        {
            list.add(Role.ADMIN);
        }
        return list;
    }

    /**
     * Writes each round the {@link ResendReader} handed back to its session, and brings the session live once it
     * has the account's newest event. The egress flushes next, then {@link #handOver()}.
     *
     * @return the rounds written.
     */
    int writeRounds()
    {
        return reader.drain(onRound);
    }

    /**
     * Hands each resend not with the reader over for its next round, up to the account's newest event now; none
     * while its connection is not writable, its output so far flushed (a peer that does not read stops costing
     * anything, and is cut off as a slow consumer by the gateway's usual rule, or times out).
     *
     * @return the resends handed over or ended.
     */
    int handOver()
    {
        int work = 0;
        final ArrayList<ResendCursor> cursors = resends.cursors();
        for (int i = cursors.size() - 1; i >= 0; i--)
        {
            final ResendCursor c = cursors.get(i);
            if (!c.busy && handOver(c))
            {
                work++;
            }
        }
        return work;
    }

    /** A round read: its frames to the session, then live, or closed if the journal failed it, or on to the next. */
    private void written(final ResendCursor c)
    {
        final ByteBuf chunk = c.chunk;
        c.chunk = null;
        if (c.ended)
        {
            // the session went while the reader had its resend
            if (chunk != null)
            {
                chunk.release();
            }
            resends.close(c);
            return;
        }
        final Session s = c.session;
        if (chunk != null)
        {
            // the reader's buffer goes out as it is, after what the session was sent before it
            sessions.writeNow(s, chunk);
        }
        if (s.closed)
        {
            return;
        }
        if (c.failure != null)
        {
            sessions.close(s, SessionErrorCode.RESEND_UNAVAILABLE, c.failure);
            return;
        }
        if (c.caughtUp(accounts.lastSeq(s.accountId)))
        {
            goLive(c);
        }
    }

    /** Hands a resend to the reader for its next round; true if it was handed over or ended. */
    private boolean handOver(final ResendCursor c)
    {
        final Session s = c.session;
        if (c.heldBytes() > resends.limits().heldBytes())
        {
            sessions.close(s, SessionErrorCode.SLOW_CONSUMER, "more than " + resends.limits().heldBytes() +
                " bytes of answers and market data waited behind its resend");
            return true;
        }
        if (!s.channel.isWritable())
        {
            return false;
        }
        return reader.offer(c, accounts.lastSeq(s.accountId), accounts.lastEvent(s.accountId));
    }

    /** The resend has sent the account's newest event: what waited behind it follows, and the session is live. */
    private void goLive(final ResendCursor c)
    {
        final Session s = c.session;
        if (!c.completeSent)
        {
            sessions.close(s, SessionErrorCode.RESEND_UNAVAILABLE, "the event journal did not hold the account's events " +
                (c.after + 1) + " to " + c.last + " (sent up to " + c.seq + ")");
            return;
        }
        if (c.held != null)
        {
            final ByteBuf held = c.held;
            c.held = null;
            sessions.writeNow(s, held);
        }
        resends.end(c);
        s.live = true;
    }
}
