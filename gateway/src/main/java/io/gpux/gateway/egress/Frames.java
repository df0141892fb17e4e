package io.gpux.gateway.egress;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.MessageLite;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** Writes frames: a 4-byte big-endian length, then the message (docs/protocol.md, "Framing"). */
public final class Frames
{
    /** The user event a connection's pipeline gets once its last frame is out: its session has ended. */
    public static final Object LAST_FRAME_SENT = new Object()
    {
        @Override
        public String toString()
        {
            return "LAST_FRAME_SENT";
        }
    };

    /** The handler that drops what a connection receives after its last frame. */
    static final String DISCARD = "discardAfterLastFrame";

    private Frames()
    {
    }

    /**
     * Writes a connection's last frame, then ends the connection without losing it: once it is out, the
     * server's side is shut (the peer reads the frame, then the end of the stream), whatever the peer
     * still sends is read and dropped, and the connection closes when the peer closes its side, or
     * after {@code graceMs} at the latest (the gateway's close grace: a peer that stopped reading would
     * otherwise keep its connection, and everything queued for it, for ever). Closing at once, with the peer's requests still
     * unread, would make the kernel answer them with a reset, which can destroy the last frame in the
     * peer's receive buffer before it is read.
     */
    public static void writeLastAndClose(final Channel channel, final Object lastFrame, final long graceMs)
    {
        channel.writeAndFlush(lastFrame).addListener((ChannelFutureListener)f -> lingeringClose(f.channel(), f.isSuccess()));
        final ScheduledFuture<?> deadline = channel.eventLoop().schedule(() ->
        {
            channel.close();
        }, graceMs, TimeUnit.MILLISECONDS);
        channel.closeFuture().addListener(f -> deadline.cancel(false));
    }

    private static void lingeringClose(final Channel channel, final boolean written)
    {
        if (!written || !channel.isActive() || !(channel instanceof DuplexChannel duplex))
        {
            channel.close();
            return;
        }
        if (channel.pipeline().get(DISCARD) == null)
        {
            channel.pipeline().addFirst(DISCARD, DiscardInbound.INSTANCE);
        }
        channel.config().setAutoRead(true);
        duplex.shutdownOutput();
        channel.pipeline().fireUserEventTriggered(LAST_FRAME_SENT);
    }

    /** Drops everything a connection receives once its last frame is out (the peer's end closes it). */
    @ChannelHandler.Sharable
    private static final class DiscardInbound extends ChannelInboundHandlerAdapter
    {
        static final DiscardInbound INSTANCE = new DiscardInbound();

        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg)
        {
            ReferenceCountUtil.release(msg);
        }
    }

    private static final AttributeKey<Boolean> CUT_OFF = AttributeKey.valueOf("gpux.cutOff");

    /**
     * Claims the cut-off of a slow consumer's connection: true for the first caller only (the gateway's
     * handler and the egress may both find the same connection too slow), so that a connection is cut
     * and counted once.
     */
    public static boolean claimCutOff(final Channel channel)
    {
        return channel.attr(CUT_OFF).setIfAbsent(Boolean.TRUE) == null;
    }

    /**
     * Cuts off a peer that stopped reading: drops every frame queued for it that has not begun to go
     * out (the frame in progress is finished, so the stream stays whole), then writes its last frame
     * and closes as {@link #writeLastAndClose} does. Whatever was queued, the SessionError is then the
     * next frame after the bytes already handed to the kernel, and a peer that reads again gets it.
     */
    public static void cutOff(final Channel channel, final Object lastFrame, final long graceMs)
    {
        channel.eventLoop().execute(() ->
        {
            dropUnsent(channel);
            writeLastAndClose(channel, lastFrame, graceMs);
        });
    }

    /** Event loop only: empties the queued frames that have not begun to go out (frames start at index 0 of each buffer). */
    static void dropUnsent(final Channel channel)
    {
        final ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
        if (out == null)
        {
            return;
        }
        out.addFlush();
        final boolean[] head = {true};
        try
        {
            out.forEachFlushedMessage(msg ->
            {
                if (msg instanceof ByteBuf buf)
                {
                    buf.writerIndex(head[0] ? endOfFrameInProgress(buf) : buf.readerIndex());
                }
                head[0] = false;
                return true;
            });
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /** Where the frame that the buffer's reader index is inside ends (the reader index itself at a frame boundary). */
    static int endOfFrameInProgress(final ByteBuf buf)
    {
        final int sent = buf.readerIndex();
        int at = 0;
        while (at < sent && at + 4 <= buf.writerIndex())
        {
            at += 4 + buf.getInt(at);
        }
        return Math.min(Math.max(at, sent), buf.writerIndex());
    }

    /** Frames an Envelope already serialized (its length prefix, then its bytes). */
    public static void write(final byte[] envelope, final ByteBuf buf)
    {
        buf.ensureWritable(4 + envelope.length);
        buf.writeInt(envelope.length).writeBytes(envelope);
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
