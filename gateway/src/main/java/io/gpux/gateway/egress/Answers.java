package io.gpux.gateway.egress;

import io.gpux.engine.event.RejectReason;
import io.gpux.gateway.marketdata.PriceHistory;
import io.gpux.gateway.metrics.GatewayCounters;
import io.gpux.gateway.session.Session;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Response;
import io.netty.buffer.ByteBuf;

import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * The egress's answers that wait for the events before them: each finished command's Response, once
 * its events are out ({@link Completions}), and the deferred reads ({@link Egress.Deferred}: a
 * portfolio, a price history read), once the events up to theirs are out and, for a history read, the
 * {@link HistoryLoader} is done. A plain command's Response is written straight into the frame; the
 * others go through the {@link Egress.CompletionHook}. On the egress thread only.
 */
final class Answers
{
    private final SessionTable sessions;
    private final Completions completions;
    private final HistoryLoader historyLoader;
    private final PriceHistory history;
    private final Egress.CompletionHook completionHook;
    private final ArrayDeque<Egress.Deferred> waiting = new ArrayDeque<>();
    private final Completions.Handler onCompleted = new Completions.Handler()
    {
        @Override
        public void onCompleted(final long correlation, final long commandSeq, final RejectReason reject)
        {
            complete(correlation, commandSeq, reject);
        }

        @Override
        public void onRefused(final long correlation, final String reason)
        {
            refused(correlation, reason);
        }
    };
    private GatewayCounters counters = GatewayCounters.inMemory();
    /** Times each encoded portfolio answer's write (or, when the encoder is full, encode and write) for a benchmark's probe; null: not timed. */
    private volatile WorkProbe.Timer portfolioWrite;
    private final PortfolioEncoder encoder;
    private final Consumer<PortfolioEncoder.Pending> onEncoded;

    Answers(
        final SessionTable sessions, final Completions completions, final HistoryLoader historyLoader,
        final PriceHistory history, final Egress.CompletionHook completionHook, final PortfolioEncoder encoder)
    {
        this.encoder = encoder;
        this.onEncoded = this::writeEncoded;
        this.sessions = sessions;
        this.completions = completions;
        this.historyLoader = historyLoader;
        this.history = history;
        this.completionHook = completionHook;
    }

    void counters(final GatewayCounters counters)
    {
        this.counters = counters;
    }

    void workProbe(final WorkProbe probe)
    {
        portfolioWrite = WorkProbe.Timer.of(probe, WorkProbe.Work.PORTFOLIO_WRITE);
        encoder.workProbe(probe);
    }

    private void writeEncoded(final PortfolioEncoder.Pending p)
    {
        final WorkProbe.Timer timer = portfolioWrite;
        if (timer != null)
        {
            timer.start();
        }
        p.returned();
        sessions.encoded(p);
        if (timer != null)
        {
            timer.stop();
        }
    }

    /** Holds a deferred read until the events up to its {@link Egress.Deferred#lastEventSeq()} are out. */
    void defer(final Egress.Deferred d)
    {
        waiting.addLast(d);
    }

    /**
     * Answers the commands and the deferred reads whose events are out, those up to {@code tailedEventSeq}, in order.
     *
     * @return how many.
     */
    int release(final long tailedEventSeq)
    {
        int n = completions.release(tailedEventSeq, onCompleted);
        while (!waiting.isEmpty() && waiting.peekFirst().lastEventSeq() <= tailedEventSeq &&
            !(historyLoader.loading() && waiting.peekFirst() instanceof Egress.HistoryRead))
        {
            final Egress.Deferred d = waiting.removeFirst();
            if (d instanceof Egress.PortfolioAnswer p && sessions.contains(p.session().id))
            {
                answer(p);
            }
            else if (d instanceof Egress.HistoryRead h && sessions.contains(h.session().id))
            {
                sessions.send(h.session(), h.answer().apply(history));
            }
            n++;
        }
        return n;
    }

    /**
     * A portfolio answer is due: the encoder encodes it while what the session is sent next waits behind it; when the
     * encoder is full, it is encoded here (behind the session's answers still in the encoder, if any).
     */
    private void answer(final Egress.PortfolioAnswer a)
    {
        final PortfolioEncoder.Pending p = new PortfolioEncoder.Pending(a);
        if (encoder.offer(p))
        {
            sessions.hold(a.session(), p);
            return;
        }
        final WorkProbe.Timer timer = portfolioWrite;
        if (timer != null)
        {
            timer.start();
        }
        final ByteBuf out = sessions.outgoing(a.session());
        if (out != null)
        {
            Frames.write(p.encode(), out);
        }
        if (timer != null)
        {
            timer.stop();
        }
    }

    /** Writes the answers the encoder has encoded since the last call, each with what waited behind it. */
    int encoded()
    {
        return encoder.drain(onEncoded);
    }

    private void complete(final long correlation, final long commandSeq, final RejectReason reject)
    {
        final Session s = sessions.get(Session.sessionOf(correlation));
        if (s == null)
        {
            return;
        }
        final int slot = Session.slotOf(correlation);
        final long receivedNs = s.receivedNs(slot);
        if (s.kind(slot) == Session.KIND_COMMAND)
        {
            // the common answer, written without building messages; the others go by the hook
            final long requestId = s.requestId(slot);
            s.completed();
            final ByteBuf out = sessions.outgoing(s);
            if (out != null)
            {
                EventFrames.response(out, requestId, reject, commandSeq);
            }
        }
        else
        {
            final Response.Builder response = Response.newBuilder()
                .setReason(ProtoMapping.reason(reject))
                .setCommandSeq(commandSeq);
            completionHook.onCompleted(s, slot, reject, response);
            respond(s, slot, response);
        }
        timed(receivedNs);
    }

    /** A timed command's round trip, from the gateway reading it to its answer written here. */
    private void timed(final long receivedNs)
    {
        if (receivedNs != 0)
        {
            counters.requestNs.record(System.nanoTime() - receivedNs);
        }
    }

    private void refused(final long correlation, final String reason)
    {
        final Session s = sessions.get(Session.sessionOf(correlation));
        if (s == null)
        {
            return;
        }
        final int slot = Session.slotOf(correlation);
        final Response.Builder response = Response.newBuilder().setReason(Reason.UNAVAILABLE).setMessage(reason);
        counters.answered(Reason.UNAVAILABLE);
        if (s.kind(slot) != Session.KIND_COMMAND)
        {
            completionHook.onCompleted(s, slot, null, response);
        }
        respond(s, slot, response);
    }

    /**
     * Gives the request's slot back and sends its Response; a revoke's answer then closes the key's
     * sessions (the gateway revoked the key before publishing the revoke, whatever the exchange answers).
     */
    private void respond(final Session s, final int slot, final Response.Builder response)
    {
        // the slot is read before it is given back: the event loop may take it again at once
        final byte kind = s.kind(slot);
        final long requestId = s.requestId(slot);
        final long assignedId = s.assignedId(slot);
        s.completed();
        sessions.send(s, Envelope.newBuilder().setRequestId(requestId).setResponse(response).build());
        if (kind == Session.KIND_REVOKE_KEY)
        {
            sessions.closeRevoked(assignedId);
        }
    }
}
