package io.gpux.gateway;

import io.gpux.gateway.egress.Frames;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.SessionError;
import io.gpux.proto.v1.SessionErrorCode;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.ssl.NotSslRecordException;

import java.io.IOException;

import javax.net.ssl.SSLException;

/**
 * What a connection's handler does whether it is logged in or not: it fails a connection that breaks
 * the protocol with a SessionError (its last frame), cuts off a peer that does not read, turns framing
 * and TLS faults into their SessionError codes, and flushes once per read batch. The connection's
 * {@link LoginHandler} and, once logged in, the {@link SessionHandler} that replaces it extend this.
 */
abstract class ConnectionHandler extends ChannelInboundHandlerAdapter
{
    final Exchange exchange;
    /** True once the connection's last frame is on its way: nothing more it sends is handled. */
    boolean closing;

    ConnectionHandler(final Exchange exchange)
    {
        this.exchange = exchange;
    }

    /**
     * True when the peer does not read what it is sent: the connection is then cut off as a slow
     * consumer, since answering it would only queue more, without bound.
     */
    final boolean cutOffUnread(final ChannelHandlerContext ctx)
    {
        if (ctx.channel().isWritable())
        {
            return false;
        }
        fail(ctx, SessionErrorCode.SLOW_CONSUMER, "the connection's outbound buffer passed its high-water mark");
        return true;
    }

    @Override
    public final void channelReadComplete(final ChannelHandlerContext ctx)
    {
        ctx.flush();
    }

    @Override
    public final void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        if (cause instanceof NotSslRecordException || cause instanceof SSLException || cause.getCause() instanceof SSLException)
        {
            // TLS failed (a plain client on a TLS port, a failed handshake): no frame can reach the peer
            ctx.close();
        }
        else if (cause instanceof TooLongFrameException)
        {
            fail(ctx, SessionErrorCode.FRAME_TOO_LARGE,
                "an Envelope may be at most " + exchange.ctx.maxFrameBytes() + " bytes (the 4-byte length prefix not counted)");
        }
        else if (cause instanceof CorruptedFrameException || cause instanceof DecoderException)
        {
            fail(ctx, SessionErrorCode.MALFORMED_FRAME, String.valueOf(cause.getCause() != null ? cause.getCause().getMessage() : cause.getMessage()));
        }
        else if (cause instanceof IOException)
        {
            ctx.close();
        }
        else
        {
            exchange.log.accept("connection " + ctx.channel().remoteAddress() + " failed: " + cause);
            fail(ctx, SessionErrorCode.PROTOCOL_VIOLATION, "internal error handling this connection");
        }
    }

    /** Sends the connection a SessionError as its last frame and closes it (once: later faults are dropped). */
    final void fail(final ChannelHandlerContext ctx, final SessionErrorCode code, final String message)
    {
        if (closing)
        {
            return;
        }
        closing = true;
        final Envelope error = Envelope.newBuilder().setSessionError(
            SessionError.newBuilder().setCode(code).setMessage(message == null ? "" : message)).build();
        if (code == SessionErrorCode.SLOW_CONSUMER)
        {
            if (Frames.claimCutOff(ctx.channel()))
            {
                exchange.counters.slowConsumers.increment();
                Frames.cutOff(ctx.channel(), error, exchange.ctx.closeGraceMs());
            }
        }
        else
        {
            Frames.writeLastAndClose(ctx.channel(), error, exchange.ctx.closeGraceMs());
        }
    }
}
