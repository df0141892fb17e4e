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
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Brings a logged-in session live ({@link Egress.Attach}): sends LoginAccepted with the account's last
 * event number, refuses a resend over the {@link Egress.ResendLimits}, and either puts the session on
 * the live stream at once or starts its resend ({@link ResendCursor}), which it then advances a slice
 * at a time ({@link #advance(ResendCursor, int)}, the {@link Resends.Step}) until the session has the
 * account's newest event and goes live, between two events, with what waited behind the resend. On the
 * egress thread only.
 */
final class Attacher
{
    private final SessionTable sessions;
    private final AccountNumbers accounts;
    private final Resends resends;
    /** Whether the duty cycle's time for resends is gone (made once: no allocation per turn). */
    private final BooleanSupplier sliceOver;
    private final Supplier<Journal.Reader> readerFactory;
    private final EventFrames frames;

    Attacher(
        final SessionTable sessions, final AccountNumbers accounts, final Resends resends,
        final Supplier<Journal.Reader> readerFactory, final EventFrames frames)
    {
        this.sessions = sessions;
        this.accounts = accounts;
        this.resends = resends;
        this.sliceOver = resends::sliceOver;
        this.readerFactory = readerFactory;
        this.frames = frames;
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
     * Advances a resend by about {@code max} documents read (none while its connection is not writable);
     * live once it has sent the account's newest event.
     *
     * @return the work done, plus one if the resend finished.
     */
    int advance(final ResendCursor c, final int max)
    {
        final Session s = c.session;
        if (c.heldBytes() > resends.limits().heldBytes())
        {
            sessions.close(s, SessionErrorCode.SLOW_CONSUMER, "more than " + resends.limits().heldBytes() +
                " bytes of answers and market data waited behind its resend");
            return 1;
        }
        if (!s.channel.isWritable())
        {
            return 0;
        }
        final ByteBuf out = sessions.outgoingNow(s);
        final long newest = accounts.lastSeq(s.accountId);
        final int n = c.read(max, newest, accounts.lastEvent(s.accountId), out, frames, sliceOver);
        if (c.failure != null)
        {
            sessions.close(s, SessionErrorCode.RESEND_UNAVAILABLE, c.failure);
            return n + 1;
        }
        if (c.caughtUp(newest))
        {
            goLive(c, out);
            return n + 1;
        }
        return n;
    }

    /** The resend has sent the account's newest event: what waited behind it follows, and the session is live. */
    private void goLive(final ResendCursor c, final ByteBuf out)
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
            out.writeBytes(c.held);
        }
        resends.end(c);
        s.live = true;
    }
}
