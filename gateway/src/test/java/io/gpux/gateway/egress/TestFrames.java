package io.gpux.gateway.egress;

import com.google.protobuf.InvalidProtocolBufferException;
import io.gpux.proto.v1.Envelope;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.embedded.EmbeddedChannel;

import java.util.ArrayList;
import java.util.List;

/** The frames the egress writes, read back: length-prefixed Envelopes. */
final class TestFrames
{
    private TestFrames()
    {
    }

    /** Every frame left in {@code buf}, in order (read past; the buffer is the caller's to release). */
    static List<Envelope> envelopes(final ByteBuf buf)
    {
        final List<Envelope> read = new ArrayList<>();
        while (buf.isReadable())
        {
            final int length = buf.readInt();
            try
            {
                read.add(Envelope.parseFrom(ByteBufUtil.getBytes(buf, buf.readerIndex(), length)));
            }
            catch (final InvalidProtocolBufferException ex)
            {
                throw new AssertionError("a frame that is not an Envelope", ex);
            }
            buf.skipBytes(length);
        }
        return read;
    }

    /** Every frame written to the channel since the last call, in order (its buffers released). */
    static List<Envelope> written(final EmbeddedChannel channel)
    {
        channel.runPendingTasks();
        final List<Envelope> read = new ArrayList<>();
        ByteBuf buf;
        while ((buf = channel.readOutbound()) != null)
        {
            read.addAll(envelopes(buf));
            buf.release();
        }
        return read;
    }
}
