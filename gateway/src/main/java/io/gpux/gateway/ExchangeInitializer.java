package io.gpux.gateway;

import io.gpux.gateway.codec.FrameEncoder;
import io.gpux.gateway.codec.RequestDecoder;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.timeout.IdleStateHandler;

import java.util.concurrent.TimeUnit;

/**
 * The gateway's netty pipeline: every handler named; with TLS, the {@link Exchange#TLS_HANDLER} handler
 * first. A connection starts with the {@link LoginHandler} last, which replaces itself with the
 * session's {@link SessionHandler} once the Login is accepted.
 */
final class ExchangeInitializer extends ChannelInitializer<SocketChannel>
{
    private final Exchange exchange;
    /** Every connection open, closed together when the exchange closes. */
    private final ChannelGroup connections;

    ExchangeInitializer(final Exchange exchange, final ChannelGroup connections)
    {
        this.exchange = exchange;
        this.connections = connections;
    }

    @Override
    protected void initChannel(final SocketChannel ch)
    {
        final ExchangeContext ctx = exchange.ctx;
        connections.add(ch);
        exchange.counters.connections.increment();
        ch.closeFuture().addListener(f -> exchange.counters.connections.getAndAdd(-1));
        if (ctx.tls() != null)
        {
            ch.pipeline().addLast(Exchange.TLS_HANDLER, ctx.tls().newHandler(ch.alloc()));
        }
        ch.pipeline()
            .addLast("idle", new IdleStateHandler(2L * ctx.heartbeatIntervalMs(), ctx.heartbeatIntervalMs(), 0,
                TimeUnit.MILLISECONDS))
            .addLast("frameDecoder", new LengthFieldBasedFrameDecoder(
                ctx.maxFrameBytes() + Exchange.FRAME_PREFIX_BYTES, 0, Exchange.FRAME_PREFIX_BYTES, 0,
                Exchange.FRAME_PREFIX_BYTES, true))
            .addLast(Exchange.DECODER, new RequestDecoder())
            .addLast("frameEncoder", FrameEncoder.INSTANCE)
            .addLast(LoginHandler.NAME, new LoginHandler(exchange));
    }
}
