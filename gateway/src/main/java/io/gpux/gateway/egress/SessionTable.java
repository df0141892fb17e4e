package io.gpux.gateway.egress;

import io.gpux.gateway.GatewayConfiguration;
import io.gpux.gateway.metrics.GatewayCounters;
import io.gpux.gateway.session.Session;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.SessionError;
import io.gpux.proto.v1.SessionErrorCode;
import io.netty.buffer.ByteBuf;
import org.agrona.collections.Long2ObjectHashMap;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The egress's sessions: by id, by account and by subscribed market; and each one's output buffer of a
 * duty cycle, written to its connection at the cycle's end ({@link #flush()}), or, while the session
 * resends, what waits behind its resend; while a portfolio answer of the session is being encoded off this
 * thread, what waits behind the answer ({@link #hold}). A session whose connection stops draining (its outbound
 * buffer passes the high-water mark) is sent SLOW_CONSUMER and closed; nothing here ever waits for a
 * connection. On the egress thread only.
 */
final class SessionTable
{
    private final Resends resends;
    private final Consumer<String> log;
    private GatewayCounters counters = GatewayCounters.inMemory();
    private long closeGraceMs = GatewayConfiguration.CLOSE_GRACE_DEFAULT;
    private final Long2ObjectHashMap<Session> sessions = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<List<Session>> accountSessions = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<List<Session>> subscribers = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<ByteBuf> outgoing = new Long2ObjectHashMap<>();
    private final ArrayList<Session> touched = new ArrayList<>();
    /**
     * Per session held behind answers being encoded: its answers ({@link PortfolioEncoder.Pending}) and, after each,
     * the buffer of what the session was sent since, in order.
     */
    private final Long2ObjectHashMap<ArrayDeque<Object>> held = new Long2ObjectHashMap<>();

    SessionTable(final Resends resends, final Consumer<String> log)
    {
        this.resends = resends;
        this.log = log;
    }

    void counters(final GatewayCounters counters)
    {
        this.counters = counters;
    }

    /** How long a closed session's connection is given to take its last frame (set before the egress starts). */
    void closeGraceMs(final long graceMs)
    {
        this.closeGraceMs = graceMs;
    }

    /** The session of the id, or null if it is not (or no longer) attached. */
    Session get(final long sessionId)
    {
        return sessions.get(sessionId);
    }

    boolean contains(final long sessionId)
    {
        return sessions.containsKey(sessionId);
    }

    /** Known by its id only (so that it can be closed with its answers), not yet sent any account's events. */
    void register(final Session s)
    {
        sessions.put(s.id, s);
    }

    /** Attached: by its id and among its account's sessions. */
    void attach(final Session s)
    {
        sessions.put(s.id, s);
        accountSessions.computeIfAbsent(s.accountId, k -> new ArrayList<>()).add(s);
    }

    /** The account's attached sessions, or null if none ever was. */
    List<Session> ofAccount(final long accountId)
    {
        return accountSessions.get(accountId);
    }

    /** The market's subscribers, or null if none ever was. */
    List<Session> subscribers(final long marketId)
    {
        return subscribers.get(marketId);
    }

    /** Adds the session to the market's subscribers; false if the session is not attached (nothing to send it). */
    boolean subscribe(final Session s, final long marketId)
    {
        if (s.closed || !sessions.containsKey(s.id))
        {
            return false;
        }
        final List<Session> list = subscribers.computeIfAbsent(marketId, k -> new ArrayList<>());
        if (!list.contains(s))
        {
            list.add(s);
        }
        return true;
    }

    void unsubscribe(final Session s, final long marketId)
    {
        final List<Session> list = subscribers.get(marketId);
        if (list != null)
        {
            list.remove(s);
        }
    }

    /** Forgets the session: its resend, its lists, its output buffer. */
    void detach(final Session s)
    {
        s.closed = true;
        final ResendCursor resend = resends.of(s.id);
        if (resend != null)
        {
            resends.end(resend);
        }
        sessions.remove(s.id);
        final List<Session> list = accountSessions.get(s.accountId);
        if (list != null)
        {
            list.remove(s);
        }
        for (final List<Session> subs : subscribers.values())
        {
            subs.remove(s);
        }
        final ByteBuf pending = outgoing.remove(s.id);
        if (pending != null)
        {
            pending.release();
        }
        releaseHeld(s.id);
    }

    /** Frames an envelope into the session's outgoing buffer for this duty cycle. */
    void send(final Session s, final Envelope envelope)
    {
        final ByteBuf out = outgoing(s);
        if (out != null)
        {
            Frames.write(envelope, out);
        }
    }

    /** Frames an envelope for the session of the id, if it is attached. */
    void sendTo(final long sessionId, final Envelope envelope)
    {
        final Session s = sessions.get(sessionId);
        if (s != null)
        {
            send(s, envelope);
        }
    }

    /** Frames an envelope for every attached session of the account. */
    void sendToAccount(final long accountId, final Envelope envelope)
    {
        sendToEach(accountSessions.get(accountId), envelope);
    }

    /** Frames an envelope for every subscriber of the market. */
    void sendToSubscribers(final long marketId, final Envelope envelope)
    {
        sendToEach(subscribers.get(marketId), envelope);
    }

    private void sendToEach(final List<Session> list, final Envelope envelope)
    {
        if (list != null)
        {
            for (int i = 0; i < list.size(); i++)
            {
                send(list.get(i), envelope);
            }
        }
    }

    /**
     * The session's outgoing buffer for this duty cycle, or null when the session is closed; while
     * it resends, the buffer of what waits behind the resend; while an answer of it is being encoded,
     * the buffer of what waits behind that answer.
     */
    ByteBuf outgoing(final Session s)
    {
        final ArrayDeque<Object> behind = held.get(s.id);
        if (behind != null && !s.closed)
        {
            if (behind.peekLast() instanceof ByteBuf buf)
            {
                return buf;
            }
            final ByteBuf buf = s.channel.alloc().directBuffer(4096);
            behind.addLast(buf);
            return buf;
        }
        return outgoingPastHolds(s);
    }

    /** {@link #outgoing}, leaving out the holds: where a session's output goes once the answers ahead of it are written. */
    private ByteBuf outgoingPastHolds(final Session s)
    {
        if (!s.live && !s.closed)
        {
            final ResendCursor c = resends.of(s.id);
            if (c != null)
            {
                return c.held();
            }
        }
        return outgoingNow(s);
    }

    /** The session's outgoing buffer for this duty cycle, written at its end; null when the session is closed. */
    ByteBuf outgoingNow(final Session s)
    {
        if (s.closed)
        {
            return null;
        }
        ByteBuf buf = outgoing.get(s.id);
        if (buf == null)
        {
            buf = s.channel.alloc().directBuffer(4096);
            outgoing.put(s.id, buf);
            touched.add(s);
        }
        return buf;
    }

    /** Writes the duty cycle's output buffers to their connections. */
    void flush()
    {
        for (int i = 0; i < touched.size(); i++)
        {
            final Session s = touched.get(i);
            final ByteBuf buf = outgoing.remove(s.id);
            if (buf == null || s.closed)
            {
                if (buf != null)
                {
                    buf.release();
                }
                else if (!s.closed)
                {
                    // frames handed to the connection as they were this cycle (writeNow)
                    s.channel.flush();
                }
                continue;
            }
            if (!s.channel.isWritable())
            {
                buf.release();
                close(s, SessionErrorCode.SLOW_CONSUMER, "the connection's outbound buffer passed its high-water mark");
                continue;
            }
            s.channel.writeAndFlush(buf, s.channel.voidPromise());
        }
        touched.clear();
    }

    /**
     * A key's revoke is answered: every session of the key (marked revoked before the revoke was
     * published, so nothing it sent since reached the engine) has had its answers and now gets
     * KEY_REVOKED and is closed.
     */
    void closeRevoked(final long keyId)
    {
        final ArrayList<Session> revoked = new ArrayList<>();
        for (final Session s : sessions.values())
        {
            if (s.keyId == keyId && s.revoked())
            {
                revoked.add(s);
            }
        }
        for (final Session s : revoked)
        {
            writeAllHeld(s);
            final ByteBuf answers = outgoing.remove(s.id);
            if (answers != null)
            {
                s.channel.write(answers, s.channel.voidPromise());
            }
            close(s, SessionErrorCode.KEY_REVOKED, "key " + keyId + " was revoked");
        }
    }

    /** Sends a SessionError and closes the connection; the session is detached at once. */
    void close(final Session s, final SessionErrorCode code, final String message)
    {
        log.accept("closing " + s + ": " + code + " " + message);
        final ByteBuf pending = outgoing.remove(s.id);
        if (pending != null)
        {
            pending.release();
        }
        final ByteBuf buf = s.channel.alloc().directBuffer(256);
        Frames.write(Envelope.newBuilder().setSessionError(
            SessionError.newBuilder().setCode(code).setMessage(message)).build(), buf);
        if (code == SessionErrorCode.SLOW_CONSUMER)
        {
            if (Frames.claimCutOff(s.channel))
            {
                counters.slowConsumers.increment();
                Frames.cutOff(s.channel, buf, closeGraceMs);
            }
            else
            {
                buf.release();
            }
        }
        else
        {
            Frames.writeLastAndClose(s.channel, buf, closeGraceMs);
        }
        detach(s);
    }

    /**
     * The answer {@code p} of session {@code s} is being encoded off this thread: from now on what the session is sent
     * waits behind it, until {@link #encoded} writes it.
     */
    void hold(final Session s, final PortfolioEncoder.Pending p)
    {
        ArrayDeque<Object> behind = held.get(s.id);
        if (behind == null)
        {
            behind = new ArrayDeque<>();
            held.put(s.id, behind);
        }
        behind.addLast(p);
    }

    /** Whether something of the session waits behind an answer being encoded. */
    boolean holding(final Session s)
    {
        return held.containsKey(s.id);
    }

    /**
     * An answer is encoded: writes, in order, every encoded answer of its session and what waits behind each, up to
     * the first answer still being encoded. An answer of a session no longer attached is dropped.
     *
     * @return the bytes of answers written.
     */
    int encoded(final PortfolioEncoder.Pending p)
    {
        final Session s = p.answer.session();
        final ArrayDeque<Object> behind = held.get(s.id);
        if (behind == null || s.closed)
        {
            p.drop();
            return 0;
        }
        return writeHeld(s, behind, false);
    }

    /**
     * Writes what the session holds, answers encoded or not: those the encoder has not handed back are encoded here
     * (a revoked key's session gets the answers to what it asked before the revoke, then its close).
     */
    private void writeAllHeld(final Session s)
    {
        final ArrayDeque<Object> behind = held.get(s.id);
        if (behind != null)
        {
            writeHeld(s, behind, true);
        }
    }

    /** Writes what the session holds, in order, up to the first answer not encoded (or, {@code encodeRest}, all of it). */
    private int writeHeld(final Session s, final ArrayDeque<Object> behind, final boolean encodeRest)
    {
        int bytes = 0;
        while (!behind.isEmpty())
        {
            final Object first = behind.peekFirst();
            final ByteBuf out;
            if (first instanceof PortfolioEncoder.Pending p)
            {
                if (!p.isReturned() && !encodeRest)
                {
                    break;
                }
                behind.pollFirst();
                bytes += writeAnswer(s, p);
            }
            else
            {
                final ByteBuf buf = (ByteBuf)behind.pollFirst();
                out = outgoingPastHolds(s);
                if (out != null)
                {
                    out.writeBytes(buf);
                }
                buf.release();
            }
        }
        if (behind.isEmpty())
        {
            held.remove(s.id);
        }
        return bytes;
    }

    /**
     * Writes an answer the encoder framed straight to the connection, after what the session was sent this cycle (the
     * frame is neither copied nor grown here); into the buffer behind a resend if the session resends; encoded here if
     * the encoder has not handed it back (or could not frame it).
     *
     * @return the answer's bytes.
     */
    private int writeAnswer(final Session s, final PortfolioEncoder.Pending p)
    {
        final ByteBuf frame = p.takeFrame();
        if (frame == null)
        {
            final byte[] bytes = p.encodeHere();
            final ByteBuf out = outgoingPastHolds(s);
            if (out != null)
            {
                Frames.write(bytes, out);
            }
            return bytes.length;
        }
        final int bytes = frame.readableBytes();
        final ResendCursor resend = s.live || s.closed ? null : resends.of(s.id);
        if (resend != null)
        {
            resend.held().writeBytes(frame);
            frame.release();
            return bytes;
        }
        writeNow(s, frame);
        return bytes;
    }

    /**
     * Hands frames made on another thread (an encoded answer, a resend's round) to the session's connection as they
     * are, after what the session was sent this duty cycle, ahead of what it is sent next; flushed at the cycle's end.
     * Neither copied nor grown here: a buffer of that size could take a fresh chunk of memory on this thread. The
     * buffer is the connection's now, or released if the session is closed.
     */
    void writeNow(final Session s, final ByteBuf frames)
    {
        if (s.closed || !frames.isReadable())
        {
            frames.release();
            return;
        }
        final ByteBuf before = outgoing.remove(s.id);
        if (before != null)
        {
            s.channel.write(before, s.channel.voidPromise());
        }
        else
        {
            touched.add(s);
        }
        s.channel.write(frames, s.channel.voidPromise());
    }

    private void releaseHeld(final long sessionId)
    {
        final ArrayDeque<Object> behind = held.remove(sessionId);
        if (behind != null)
        {
            releaseBuffers(behind);
        }
    }

    private static void releaseBuffers(final ArrayDeque<Object> behind)
    {
        for (final Object o : behind)
        {
            if (o instanceof ByteBuf buf)
            {
                buf.release();
            }
            else if (o instanceof PortfolioEncoder.Pending p)
            {
                p.drop();
            }
        }
    }

    /** Lets go of every output buffer (the egress closes). */
    void releaseAll()
    {
        for (final ByteBuf buf : outgoing.values())
        {
            buf.release();
        }
        outgoing.clear();
        for (final ArrayDeque<Object> behind : held.values())
        {
            releaseBuffers(behind);
        }
        held.clear();
    }
}
