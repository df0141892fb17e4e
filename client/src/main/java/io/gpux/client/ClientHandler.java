package io.gpux.client;

import io.gpux.proto.v1.Envelope;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.timeout.IdleStateEvent;

/**
 * One per connection: hands what happens on its channel to the {@link ClientConductor}. With TLS the
 * connection counts as open once the handshake has succeeded, not when the socket connects.
 */
final class ClientHandler extends ChannelInboundHandlerAdapter
{
    private final ClientConductor conductor;
    private final boolean tls;

    ClientHandler(final ClientConductor conductor, final boolean tls)
    {
        this.conductor = conductor;
        this.tls = tls;
    }

    @Override
    public void channelActive(final ChannelHandlerContext ctx)
    {
        if (!tls)
        {
            conductor.onChannelActive(ctx.channel());
        }
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        conductor.onEnvelope(ctx.channel(), (Envelope)msg);
    }

    @Override
    public void channelReadComplete(final ChannelHandlerContext ctx)
    {
        conductor.onReadComplete(ctx.channel());
    }

    @Override
    public void channelWritabilityChanged(final ChannelHandlerContext ctx)
    {
        conductor.onWritabilityChanged(ctx.channel());
    }

    @Override
    public void userEventTriggered(final ChannelHandlerContext ctx, final Object evt)
    {
        if (evt instanceof IdleStateEvent idle)
        {
            conductor.onIdle(ctx.channel(), idle.state());
        }
        else if (evt instanceof SslHandshakeCompletionEvent handshake)
        {
            if (handshake.isSuccess())
            {
                conductor.onChannelActive(ctx.channel());
            }
            else
            {
                conductor.onChannelException(ctx.channel(), handshake.cause());
            }
        }
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx)
    {
        conductor.onChannelInactive(ctx.channel());
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        conductor.onChannelException(ctx.channel(), cause);
    }
}
