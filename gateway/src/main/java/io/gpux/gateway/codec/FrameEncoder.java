package io.gpux.gateway.codec;

import com.google.protobuf.MessageLite;
import io.gpux.gateway.egress.Frames;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;

/**
 * Frames messages written on the connection's own thread. Buffers written by the egress thread are
 * framed already and pass through untouched.
 */
@ChannelHandler.Sharable
public final class FrameEncoder extends MessageToByteEncoder<MessageLite>
{
    public static final FrameEncoder INSTANCE = new FrameEncoder();

    private FrameEncoder()
    {
        super(MessageLite.class);
    }

    @Override
    protected void encode(final ChannelHandlerContext ctx, final MessageLite msg, final ByteBuf out)
    {
        Frames.write(msg, out);
    }
}
