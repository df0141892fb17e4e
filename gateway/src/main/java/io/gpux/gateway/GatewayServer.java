package io.gpux.gateway;

import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.SessionError;
import io.gpux.proto.v1.SessionErrorCode;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.GlobalEventExecutor;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The gateway's Netty server: the acceptor's event loop, the one worker event loop (in the shared
 * layout a {@link SharedLoop}, which also runs the core and the egress), the listening channel and every
 * connection open. It binds first, before anything in the data directory changes, and accepts only once
 * told to ({@link #accept()}); it closes in two steps, the connections first ({@link #closeConnections()})
 * and the worker loop once the core no longer needs it ({@link #stopWorker()}). Made, opened and closed
 * on the thread that starts and closes the {@link Exchange}.
 */
final class GatewayServer
{
    private final boolean epoll = Epoll.isAvailable();
    /** The event loop that also runs the core and the egress, or null (dedicated threads). */
    private final SharedLoop sharedLoop;
    private final EventLoopGroup bossGroup;
    private final EventLoopGroup workerGroup;
    private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final Channel serverChannel;

    /**
     * Binds the port, so that a port in use fails a start with nothing done; the channel accepts no
     * connection until {@link #accept()} (the kernel holds them in its backlog until then).
     *
     * @param initializer the pipeline of each connection, given the group of connections to join.
     */
    GatewayServer(final ExchangeContext ctx, final Function<ChannelGroup, ChannelHandler> initializer)
        throws IOException, InterruptedException
    {
        final IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        sharedLoop = ctx.sharedLoop() ? new SharedLoop(io, TimeUnit.MICROSECONDS.toNanos(ctx.spinMicros())) : null;
        workerGroup = new MultiThreadIoEventLoopGroup(1, sharedLoop != null ? sharedLoop : io);
        bossGroup = new MultiThreadIoEventLoopGroup(1, io);
        try
        {
            serverChannel = listen(ctx, initializer.apply(connections));
        }
        catch (final IOException | RuntimeException | InterruptedException ex)
        {
            shutDownGroups();
            throw ex;
        }
    }

    private Channel listen(final ExchangeContext ctx, final ChannelHandler initializer) throws IOException, InterruptedException
    {
        final ServerBootstrap b = new ServerBootstrap()
            .group(bossGroup, workerGroup)
            .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
            .option(ChannelOption.AUTO_READ, false)
            .childOption(ChannelOption.TCP_NODELAY, true)
            // shared loop: one read (up to 64 KiB) per connection per turn, then the core and the egress run
            .childOption(ChannelOption.RECVBUF_ALLOCATOR,
                new AdaptiveRecvByteBufAllocator(64, 2048, 64 * 1024).maxMessagesPerRead(sharedLoop != null ? 1 : 16))
            .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK,
                new WriteBufferWaterMark(ctx.outboundHighWaterBytes() / 2, ctx.outboundHighWaterBytes()))
            .childHandler(initializer);
        final ChannelFuture bound = b.bind(new InetSocketAddress(ctx.bind(), ctx.port())).await();
        if (!bound.isSuccess())
        {
            final Throwable cause = bound.cause();
            final BindException ex = new BindException("cannot listen on " + ctx.bind() + ":" + ctx.port() + ": " +
                bindProblem(cause));
            ex.initCause(cause);
            throw ex;
        }
        return bound.channel();
    }

    /** The reason a bind failed, in words (Netty's native transport prefixes the system call). */
    private static String bindProblem(final Throwable cause)
    {
        final String message = String.valueOf(cause.getMessage());
        final int colon = message.lastIndexOf(": ");
        final String reason = message.startsWith("bind(") && colon > 0 ? message.substring(colon + 2) : message;
        return reason.isEmpty() ? cause.getClass().getSimpleName() : Character.toLowerCase(reason.charAt(0)) + reason.substring(1);
    }

    /** The event loop that also runs the core and the egress, or null (dedicated threads). */
    SharedLoop sharedLoop()
    {
        return sharedLoop;
    }

    /** The worker event loop group: every connection's, and, in the shared layout, the core's and the egress's. */
    EventLoopGroup workerGroup()
    {
        return workerGroup;
    }

    /** Starts accepting connections. */
    void accept()
    {
        serverChannel.config().setAutoRead(true);
    }

    /** The address it listens on. */
    SocketAddress localAddress()
    {
        return serverChannel.localAddress();
    }

    /** Netty's transport: "epoll" where the native one is available, else "nio". */
    String transport()
    {
        return epoll ? "epoll" : "nio";
    }

    int port()
    {
        return ((InetSocketAddress)serverChannel.localAddress()).getPort();
    }

    /** The open client connections (the gateway's side). */
    Iterable<Channel> connections()
    {
        return connections;
    }

    /** A start failed after the bind: stops listening and shuts the event loops down. */
    void abandon()
    {
        serverChannel.close().awaitUninterruptibly();
        shutDownGroups();
    }

    /** Stops accepting, tells every connection that the exchange shuts down, closes them, stops the acceptor. */
    void closeConnections()
    {
        serverChannel.close().awaitUninterruptibly();
        connections.writeAndFlush(Envelope.newBuilder().setSessionError(SessionError.newBuilder()
            .setCode(SessionErrorCode.SERVER_SHUTDOWN).setMessage("the exchange is shutting down")).build())
            .awaitUninterruptibly(1, TimeUnit.SECONDS);
        connections.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
        bossGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }

    /** Stops the worker event loop (with the shared layout, the core's and the egress's thread too). */
    void stopWorker()
    {
        workerGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }

    private void shutDownGroups()
    {
        bossGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
        workerGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }
}
