package io.gpux.gateway.egress;

import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Response;
import io.netty.buffer.ByteBuf;
import org.agrona.concurrent.OneToOneConcurrentArrayQueue;

import java.util.function.Consumer;

/**
 * Encodes portfolio answers on a thread of its own, so that the egress's thread (in the shared layout, the event
 * loop that also runs the core) never spends an account's size on one: a 200-machine portfolio is tens of
 * microseconds to encode at the median and a millisecond or more at its tail. The core copied the account at a
 * point of the event stream ({@link PortfolioView#copy}); the egress holds the session's later output behind the
 * answer ({@link SessionTable#hold}) and hands the copy here; the encoded frame, in a buffer ready to be written,
 * comes back through {@link #drain} on the egress's thread, which writes it ahead of what was held. The session's
 * frames leave in the order they would have left had the egress encoded the answer itself.
 *
 * <p>One encoder thread, started with the egress, parked while there is nothing to encode (an unpark per
 * answer handed over wakes it). It takes {@link #CAPACITY} answers at most at once: past that the egress encodes
 * the answer itself ({@link #offer} says so). The thread reads only the copy, the directory's names and the
 * machines' telemetry, which the egress's thread reads the same way.
 */
final class PortfolioEncoder extends ParkedWorker
{
    /** Answers handed over and not yet given back (waiting, being encoded, or encoded), at most. */
    static final int CAPACITY = 1024;

    /**
     * One answer: the copy to encode and, once encoded, its frame (the length and the Envelope) in a buffer of its
     * connection's allocator, ready to be written as it is: the egress's thread neither copies the answer nor
     * allocates for it (a buffer that size can take a fresh chunk of memory, page faults and all).
     */
    static final class Pending
    {
        final Egress.PortfolioAnswer answer;
        /** Set on the encoder's thread, published to the egress's thread by the queue the answer goes back on. */
        private ByteBuf frame;
        /** The egress's thread: the encoder has handed the answer back. */
        private boolean returned;
        /** The egress's thread: the answer was written or dropped; a frame handed back after that is let go. */
        private boolean done;

        Pending(final Egress.PortfolioAnswer answer)
        {
            this.answer = answer;
        }

        /** Encodes the answer (on whichever thread calls it; the copy is only read). */
        byte[] encode()
        {
            return envelope().toByteArray();
        }

        private Envelope envelope()
        {
            return Envelope.newBuilder().setRequestId(answer.requestId())
                .setPortfolio(answer.portfolio().encode().setLastSeq(answer.accountLastSeq())).build();
        }

        /** The answer to send when the portfolio could not be encoded: the request is refused with the reason. */
        private Envelope refusal(final Throwable why)
        {
            return Envelope.newBuilder().setRequestId(answer.requestId()).setResponse(Response.newBuilder()
                .setReason(Reason.UNAVAILABLE).setMessage("the portfolio could not be encoded: " + why)).build();
        }

        /** The encoder's thread: the answer, or its refusal, framed in a buffer of the session's connection. */
        void encodeFrame(final Consumer<String> log)
        {
            try
            {
                frame = framed(envelope());
            }
            catch (final RuntimeException | Error ex)
            {
                // the copy is plain data: an answer that cannot be encoded is a bug, said once, and refused
                log.accept("portfolio encoder: answer to request " + answer.requestId() + " failed: " + ex);
                try
                {
                    frame = framed(refusal(ex));
                }
                catch (final RuntimeException | Error again)
                {
                    // no frame: the egress encodes the answer itself
                    frame = null;
                }
            }
        }

        private ByteBuf framed(final Envelope envelope)
        {
            final ByteBuf buf = answer.session().channel.alloc().directBuffer(4 + envelope.getSerializedSize());
            try
            {
                Frames.write(envelope, buf);
                return buf;
            }
            catch (final RuntimeException | Error ex)
            {
                buf.release();
                throw ex;
            }
        }

        /** The egress's thread: the encoder handed the answer back. */
        void returned()
        {
            returned = true;
            if (done)
            {
                releaseFrame();
            }
        }

        /** The egress's thread: whether the encoder has handed the answer back. */
        boolean isReturned()
        {
            return returned;
        }

        /**
         * The egress's thread: the encoded frame, now the caller's to write (or release); null when the encoder has
         * not handed the answer back, or could not frame it.
         */
        ByteBuf takeFrame()
        {
            if (!returned || done)
            {
                return null;
            }
            final ByteBuf f = frame;
            frame = null;
            if (f != null)
            {
                done = true;
            }
            return f;
        }

        /** The egress's thread: the answer encoded there; the encoder's frame, if it comes back, is let go. */
        byte[] encodeHere()
        {
            drop();
            return encode();
        }

        /** The egress's thread: the answer will not be written (its session is gone); its frame is let go. */
        void drop()
        {
            done = true;
            if (returned)
            {
                releaseFrame();
            }
        }

        private void releaseFrame()
        {
            if (frame != null)
            {
                frame.release();
                frame = null;
            }
        }
    }

    private final OneToOneConcurrentArrayQueue<Pending> in = new OneToOneConcurrentArrayQueue<>(CAPACITY);
    private final OneToOneConcurrentArrayQueue<Pending> out = new OneToOneConcurrentArrayQueue<>(CAPACITY);
    private final Runnable wakeEgress;
    private final Consumer<String> log;
    /** Times each encode on the encoder's thread for a benchmark's probe; null: not timed. */
    private volatile WorkProbe.Timer timer;
    /** Answers handed over and not yet given back (the egress's thread only): at most {@link #CAPACITY}. */
    private int inFlight;

    /**
     * @param wakeEgress run on the encoder's thread after each answer encoded: wakes the egress's thread to drain it.
     */
    PortfolioEncoder(final Runnable wakeEgress, final Consumer<String> log)
    {
        super("gpux-portfolio-encoder");
        this.wakeEgress = wakeEgress;
        this.log = log;
    }

    void workProbe(final WorkProbe probe)
    {
        timer = WorkProbe.Timer.of(probe, WorkProbe.Work.PORTFOLIO_ENCODE);
    }

    /** Egress thread: hands an answer over; false when the encoder is full or closed (the egress then encodes it). */
    boolean offer(final Pending p)
    {
        start();
        if (!takesWork() || inFlight == CAPACITY)
        {
            return false;
        }
        in.offer(p);
        inFlight++;
        wake();
        return true;
    }

    /** Egress thread: gives each answer encoded since the last call to {@code encoded}, in the order handed over. */
    int drain(final Consumer<Pending> encoded)
    {
        final int n = out.drain(encoded);
        inFlight -= n;
        return n;
    }

    @Override
    void run()
    {
        while (running())
        {
            final Pending p = in.poll();
            if (p == null)
            {
                park();
                continue;
            }
            final WorkProbe.Timer t = timer;
            if (t != null)
            {
                t.start();
            }
            p.encodeFrame(log);
            if (t != null)
            {
                t.stop();
            }
            // never full: it holds no more than the answers in flight, CAPACITY at most
            out.offer(p);
            wakeEgress.run();
        }
    }

    /**
     * Stops the thread; the answers still in it are dropped (the egress is closing, and with it every session), their
     * frames let go once the thread is gone.
     */
    void close()
    {
        if (stop())
        {
            out.drain(p ->
            {
                p.returned();
                p.drop();
            });
        }
    }
}
