package io.gpux.client;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import io.netty.util.concurrent.ThreadAwareExecutor;

import java.util.function.IntSupplier;

/**
 * An event loop for a bot that needs microseconds: the loop never blocks in its selector, and after
 * each read of its sockets it runs the bot's own duty on the same thread. A market-maker then reads
 * its fills and market data, decides and sends its orders from one thread that owns a core, with no
 * hand-over to the client's event loop and no wake-up on the way (a {@link GpuxClient} called from its
 * own event loop writes straight to its socket).
 *
 * <pre>{@code
 * EventLoopGroup loop = new MultiThreadIoEventLoopGroup(1,
 *     new SpinningLoop(EpollIoHandler.newFactory(), bot::doWork));
 * GpuxClient client = new GpuxClient(new ClientContext()...eventLoopGroup(loop)...);
 * }</pre>
 *
 * The loop takes a whole core while it runs; one loop per bot process is the intended use.
 */
public final class SpinningLoop implements IoHandlerFactory
{
    private final IoHandlerFactory io;
    private final IntSupplier duty;

    /**
     * @param io   Netty's own I/O handler (epoll or NIO), which does the reading and writing.
     * @param duty called on the loop's thread after every turn of I/O; returns how much it did.
     */
    public SpinningLoop(final IoHandlerFactory io, final IntSupplier duty)
    {
        this.io = io;
        this.duty = duty;
    }

    @Override
    public IoHandler newHandler(final ThreadAwareExecutor executor)
    {
        final IoHandler delegate = io.newHandler(executor);
        final NeverBlock context = new NeverBlock();
        return new IoHandler()
        {
            @Override
            public int run(final IoHandlerContext c)
            {
                return delegate.run(context.wrap(c)) + duty.getAsInt();
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
        };
    }

    /** The loop's context, except that the selector never blocks. */
    private static final class NeverBlock implements IoHandlerContext
    {
        private IoHandlerContext context;

        NeverBlock wrap(final IoHandlerContext c)
        {
            context = c;
            return this;
        }

        @Override
        public boolean canBlock()
        {
            return false;
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
