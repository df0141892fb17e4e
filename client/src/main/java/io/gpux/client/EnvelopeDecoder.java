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
 * connection is cleared and reused, and a direct frame is copied into a reused array. The Envelope handed on is
 * built, immutable, and shares nothing with the builder. One per channel (it holds the builder).
 */
final class EnvelopeDecoder extends MessageToMessageDecoder<ByteBuf>
{
    /** Frames up to this size are copied into {@link #scratch}; a bigger one (a large Portfolio) gets its own array. */
    private static final int SCRATCH_MAX = 1 << 20;

    private final Envelope.Builder builder = Envelope.newBuilder();
    private byte[] scratch = new byte[4096];

    EnvelopeDecoder()
    {
        super(ByteBuf.class);
    }

    @Override
    protected void decode(final ChannelHandlerContext ctx, final ByteBuf frame, final List<Object> out) throws Exception
    {
        final int length = frame.readableBytes();
        final CodedInputStream input;
        if (frame.hasArray())
        {
            input = CodedInputStream.newInstance(frame.array(), frame.arrayOffset() + frame.readerIndex(), length);
        }
        else
        {
            // protobuf reads a direct buffer by copying it into a new array unless it may use Unsafe:
            // copy into a reused one instead (the parser copies out every string and bytes field it keeps)
            if (scratch.length < length && length <= SCRATCH_MAX)
            {
                scratch = new byte[Math.min(SCRATCH_MAX, Math.max(length, 2 * scratch.length))];
            }
            final byte[] bytes = length <= SCRATCH_MAX ? scratch : new byte[length];
            frame.getBytes(frame.readerIndex(), bytes, 0, length);
            input = CodedInputStream.newInstance(bytes, 0, length);
        }
        builder.clear();
        builder.mergeFrom(input, ExtensionRegistryLite.getEmptyRegistry());
        input.checkLastTagWas(0);
        out.add(builder.build());
    }
}
