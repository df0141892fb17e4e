package io.gpux.client;

import io.gpux.proto.v1.Envelope;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.handler.codec.protobuf.ProtobufEncoder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;

/**
 * The client's pipeline: a frame is a 4-byte big-endian length and one {@link Envelope}; with TLS,
 * the TLS handler comes first (the handler sends the Login once its handshake has succeeded).
 *
 * <pre>
 *   in:  [TLS ->] FRAME_DECODER (length prefix, bounded) -> PROTOBUF_DECODER -> IDLE -> HANDLER
 *   out: HANDLER -> IDLE -> PROTOBUF_ENCODER -> FRAME_ENCODER (length prefix) [-> TLS]
 * </pre>
 *
 * IDLE starts as the Login timeout (reader idle) and is replaced by the heartbeat timers once the
 * gateway has told the interval ({@link ClientConductor}).
 */
final class ClientInitializer extends ChannelInitializer<SocketChannel>
{
    static final String TLS = "tls";
    static final String FRAME_DECODER = "frameDecoder";
    static final String PROTOBUF_DECODER = "protobufDecoder";
    static final String FRAME_ENCODER = "frameEncoder";
    static final String PROTOBUF_ENCODER = "protobufEncoder";
    static final String IDLE = "idle";
    static final String HANDLER = "handler";

    private static final int LENGTH_FIELD_BYTES = 4;
    private static final ProtobufEncoder ENVELOPE_ENCODER = new ProtobufEncoder();
    private static final LengthFieldPrepender LENGTH_PREPENDER = new LengthFieldPrepender(LENGTH_FIELD_BYTES);

    private final ClientConductor conductor;
    /** Largest frame accepted from the server (docs/protocol.md, "Framing"). */
    static final int MAX_INBOUND_FRAME_BYTES = 16 * 1024 * 1024;

    private final int maxFrameBytes;
    private final long loginTimeoutMs;
    private final SslContext sslContext;
    private final String host;
    private final int port;

    ClientInitializer(final ClientConductor conductor, final ClientContext ctx)
    {
        this.conductor = conductor;
        this.maxFrameBytes = ctx.maxFrameBytes();
        this.loginTimeoutMs = ctx.loginTimeout().toMillis();
        this.sslContext = ctx.sslContext();
        this.host = ctx.host();
        this.port = ctx.port();
    }

    @Override
    protected void initChannel(final SocketChannel channel)
    {
        final ChannelPipeline pipeline = channel.pipeline();
        if (sslContext != null)
        {
            // the host and port give the handshake its server name indication and the host name to verify
            pipeline.addLast(TLS, sslContext.newHandler(channel.alloc(), host, port));
        }
        // The server's answers may be bigger than what it accepts (a Portfolio of a large account):
        // inbound frames are limited to MAX_INBOUND_FRAME_BYTES, outbound ones to maxFrameBytes.
        pipeline.addLast(FRAME_DECODER, new LengthFieldBasedFrameDecoder(
            Math.max(maxFrameBytes, MAX_INBOUND_FRAME_BYTES) + LENGTH_FIELD_BYTES, 0, LENGTH_FIELD_BYTES, 0,
            LENGTH_FIELD_BYTES));
        pipeline.addLast(PROTOBUF_DECODER, new EnvelopeDecoder());
        pipeline.addLast(FRAME_ENCODER, LENGTH_PREPENDER);
        pipeline.addLast(PROTOBUF_ENCODER, ENVELOPE_ENCODER);
        pipeline.addLast(IDLE, new IdleStateHandler(loginTimeoutMs, 0, 0, TimeUnit.MILLISECONDS));
        pipeline.addLast(HANDLER, new ClientHandler(conductor, sslContext != null));
    }
}
