package io.gpux.gateway;

import io.gpux.core.pipeline.ExchangePipeline;
import io.gpux.core.pipeline.PipelineContext;
import io.gpux.gateway.egress.Egress;
import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import io.netty.util.concurrent.ThreadAwareExecutor;

/**
 * The thread layout for two cores: the gateway's one event loop also runs the exchange core (a
 * {@linkplain PipelineContext#polled(Runnable) polled} pipeline) and the egress. Each turn
 * of the loop reads the sockets (frames are decoded, checked and published to the input ring), then
 * applies what the ring holds (command journal, engine, event journal), then lets the egress send the
 * events and answers out, on the same thread: a bid crosses no thread between the socket it came in
 * on and the socket its fill goes out on, so no thread waits to be woken on the way.
 *
 * <p>Netty's own handler (epoll or NIO) does the I/O; this one wraps it. While there is work, or
 * there was some in the last {@code spinNanos}, the loop only polls the sockets (does not block), so
 * a market-maker's next order is read as soon as it arrives; after that it blocks in the selector
 * until a socket is ready or another thread publishes (the ticker, an admin tool in the process),
 * which wakes it.
 */
final class SharedLoop implements IoHandlerFactory
{
    /** Commands applied per turn at most, so that a burst does not keep the loop from its sockets. */
    static final int BATCH = 4096;
    /** Egress slices per turn at most (each up to 512 events). */
    static final int EGRESS_ROUNDS = 128;

    private final IoHandlerFactory io;
    private final long spinNanos;
    private volatile IoHandler ioHandler;
    private volatile boolean pending;
    private volatile boolean started;
    private ExchangePipeline pipeline;
    private Egress egress;

    SharedLoop(final IoHandlerFactory io, final long spinNanos)
    {
        this.io = io;
        this.spinNanos = spinNanos;
    }

    @Override
    public IoHandler newHandler(final ThreadAwareExecutor executor)
    {
        if (ioHandler != null)
        {
            throw new IllegalStateException("the shared loop is one event loop");
        }
        final IoHandler netty = io.newHandler(executor);
        ioHandler = netty;
        return new Handler(netty);
    }

    /**
     * Hands the loop its work: a first task on the loop lets the core take over its journals (and tell
     * the gateway what it recovered) and the egress scan the event journal; from then on every turn
     * runs both.
     */
    void start(final io.netty.channel.EventLoop loop, final ExchangePipeline pipeline, final Egress egress)
    {
        this.pipeline = pipeline;
        this.egress = egress;
        loop.execute(() ->
        {
            pipeline.poll(BATCH);
            egress.onStart();
            started = true;
            pending = true;
        });
    }

    /**
     * On the loop, in the middle of reading its sockets: applies what the input ring holds and lets the
     * egress answer, now, so that a burst read in one turn does not find the ring or a session's
     * requests in flight full while the work that would empty them waits for the turn to end.
     *
     * @return whether anything was done.
     */
    boolean makeRoom()
    {
        if (!started)
        {
            return false;
        }
        final int done = pipeline.poll(BATCH) + egress();
        if (done > 0)
        {
            pending = true;
        }
        return done > 0;
    }

    /**
     * Lets the egress send what the core has just journaled: it takes a bounded slice per call, so it is
     * called until it has caught up (the events of a whole batch: about ten per bid) or for at most
     * {@link #EGRESS_ROUNDS} slices; then one bounded slice of the resends in progress, so that however
     * many there are, a turn of the loop spends about 200 µs on them, plus the one step (an event walked back to
     * or sent) that finds the time gone.
     */
    private int egress()
    {
        int done = 0;
        for (int i = 0; i < EGRESS_ROUNDS; i++)
        {
            final int n = egress.sendLive();
            if (n == 0)
            {
                break;
            }
            done += n;
        }
        return done + egress.resend();
    }

    /** Something was published for the loop (from any thread): its next turn must not block. */
    void kick()
    {
        pending = true;
        final IoHandler d = ioHandler;
        if (d != null)
        {
            // a no-op on the loop itself, and cheap when the loop is awake
            d.wakeup();
        }
    }

    private final class Handler implements IoHandler
    {
        final IoHandler delegate;
        private final Gate gate = new Gate();

        Handler(final IoHandler delegate)
        {
            this.delegate = delegate;
        }

        @Override
        public int run(final IoHandlerContext context)
        {
            if (!started)
            {
                return delegate.run(context);
            }
            final int work = delegate.run(gate.wrap(context));
            // cleared before the ring is read: a publish from now on sets it again
            pending = false;
            final int applied = pipeline.poll(BATCH) + egress();
            if (applied > 0)
            {
                // there may be more: turn again without blocking until a turn finds nothing
                pending = true;
                gate.lastWorkNanos = System.nanoTime();
            }
            return work + applied;
        }

        @Override
        public void initialize()
        {
            delegate.initialize();
        }

        @Override
        public void prepareToDestroy()
        {
            delegate.prepareToDestroy();
        }

        @Override
        public void destroy()
        {
            delegate.destroy();
        }

        @Override
        public IoRegistration register(final IoHandle handle) throws Exception
        {
            return delegate.register(handle);
        }

        @Override
        public void wakeup()
        {
            delegate.wakeup();
        }

        @Override
        public boolean isCompatible(final Class<? extends IoHandle> handleType)
        {
            return delegate.isCompatible(handleType);
        }
    }

    /**
     * The loop's context, except that the selector must not block while work is pending or within the
     * spin window. Netty asks {@link #canBlock()} after arming its wake-up, so a publish from another
     * thread between this turn's work and the selector is never slept through.
     */
    private final class Gate implements IoHandlerContext
    {
        private IoHandlerContext context;
        long lastWorkNanos;

        Gate wrap(final IoHandlerContext c)
        {
            context = c;
            return this;
        }

        @Override
        public boolean canBlock()
        {
            return !pending && context.canBlock() && (spinNanos == 0 || System.nanoTime() - lastWorkNanos >= spinNanos);
        }

        @Override
        public long delayNanos(final long currentTimeNanos)
        {
            return context.delayNanos(currentTimeNanos);
        }

        @Override
        public long deadlineNanos()
        {
            return context.deadlineNanos();
        }

        @Override
        public void reportActiveIoTime(final long activeNanos)
        {
            context.reportActiveIoTime(activeNanos);
        }

        @Override
        public boolean shouldReportActiveIoTime()
        {
            return context.shouldReportActiveIoTime();
        }
    }
}
