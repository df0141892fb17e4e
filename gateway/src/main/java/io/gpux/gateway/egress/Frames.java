package io.gpux.gateway.egress;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.MessageLite;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** Writes frames: a 4-byte big-endian length, then the message (docs/protocol.md, "Framing"). */
public final class Frames
{
    /**
     * How long a connection closed for a reason is given to take its last frame (the SessionError)
     * before it is closed anyway: a peer that stopped reading would otherwise keep its connection,
     * and everything queued for it, for ever.
     */
    public static final long CLOSE_GRACE_MS = 5_000;

    private Frames()
    {
    }

    /** Writes a connection's last frame; closes the connection once it is out, or after {@link #CLOSE_GRACE_MS}. */
    public static void writeLastAndClose(final Channel channel, final Object lastFrame)
    {
        channel.writeAndFlush(lastFrame).addListener(ChannelFutureListener.CLOSE);
        final ScheduledFuture<?> deadline = channel.eventLoop().schedule(() ->
        {
            channel.close();
        }, CLOSE_GRACE_MS, TimeUnit.MILLISECONDS);
        channel.closeFuture().addListener(f -> deadline.cancel(false));
    }

    public static void write(final MessageLite message, final ByteBuf buf)
    {
        final int size = message.getSerializedSize();
        buf.ensureWritable(4 + size);
        buf.writeInt(size);
        final int at = buf.writerIndex();
        try
        {
            final CodedOutputStream out = CodedOutputStream.newInstance(buf.nioBuffer(at, size));
            message.writeTo(out);
            out.checkNoSpaceLeft();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        buf.writerIndex(at + size);
    }
}
