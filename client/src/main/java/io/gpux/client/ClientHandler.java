package io.gpux.client;

import io.gpux.proto.v1.Envelope;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;

/** One per connection: hands what happens on its channel to the {@link ClientConductor}. */
final class ClientHandler extends ChannelInboundHandlerAdapter
{
    private final ClientConductor conductor;

    ClientHandler(final ClientConductor conductor)
    {
        this.conductor = conductor;
    }

    @Override
    public void channelActive(final ChannelHandlerContext ctx)
    {
        conductor.onChannelActive(ctx.channel());
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
