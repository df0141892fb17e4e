package io.gpux.client;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.ExtensionRegistryLite;
import io.gpux.proto.v1.Envelope;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;

import java.util.List;

/**
 * One frame to one {@link Envelope}, like Netty's {@code ProtobufDecoder}, with less garbage per
 * frame: the generated parser makes a new Envelope builder (and its field builder) for every frame,
 * and {@code ProtobufDecoder} first copies a direct frame into a new array. Here one builder per
 * connection is cleared and reused, and the frame is read where it lies. The Envelope handed on is
 * built, immutable, and shares nothing with the builder. One per channel (it holds the builder).
 */
final class EnvelopeDecoder extends MessageToMessageDecoder<ByteBuf>
{
    private final Envelope.Builder builder = Envelope.newBuilder();

    EnvelopeDecoder()
    {
        super(ByteBuf.class);
    }

    @Override
    protected void decode(final ChannelHandlerContext ctx, final ByteBuf frame, final List<Object> out) throws Exception
    {
        final int length = frame.readableBytes();
        final CodedInputStream input = frame.hasArray()
            ? CodedInputStream.newInstance(frame.array(), frame.arrayOffset() + frame.readerIndex(), length)
            : CodedInputStream.newInstance(frame.nioBuffer(frame.readerIndex(), length));
        builder.clear();
        builder.mergeFrom(input, ExtensionRegistryLite.getEmptyRegistry());
        input.checkLastTagWas(0);
        out.add(builder.build());
    }
}
