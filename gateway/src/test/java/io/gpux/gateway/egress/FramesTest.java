package io.gpux.gateway.egress;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.DataInputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Cutting off a slow consumer keeps the stream whole: the frame in progress is finished, nothing after it
 * is sent. A connection's last frame goes out, and the connection is closed after the close grace, not
 * before, when the peer never closes its side.
 */
class FramesTest
{
    /** Three frames of 3, 0 and 5 bytes: they end at 7, 11 and 20. */
    private static ByteBuf threeFrames()
    {
        final ByteBuf buf = Unpooled.buffer();
        buf.writeInt(3).writeBytes(new byte[3]);
        buf.writeInt(0);
        buf.writeInt(5).writeBytes(new byte[5]);
        return buf;
    }

    @Test
    void aBufferNotYetStartedIsDroppedWhole()
    {
        assertEquals(0, Frames.endOfFrameInProgress(threeFrames()));
    }

    @Test
    void aFrameInProgressIsFinishedAndTheRestDropped()
    {
        final ByteBuf buf = threeFrames();
        for (int sent = 1; sent <= 7; sent++)
        {
            buf.readerIndex(sent);
            assertEquals(7, Frames.endOfFrameInProgress(buf), "sent " + sent);
        }
        buf.readerIndex(8);
        assertEquals(11, Frames.endOfFrameInProgress(buf), "inside the empty frame's prefix");
        buf.readerIndex(12);
        assertEquals(20, Frames.endOfFrameInProgress(buf));
        buf.readerIndex(20);
        assertEquals(20, Frames.endOfFrameInProgress(buf), "all sent");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aPeerThatNeverClosesIsClosedAfterTheGraceAndNotBefore() throws Exception
    {
        final long graceMs = 300;
        final CompletableFuture<Channel> accepted = new CompletableFuture<>();
        final CompletableFuture<Boolean> activeWhenLastFrameSent = new CompletableFuture<>();
        final EventLoopGroup group = new NioEventLoopGroup(1);
        try
        {
            final Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<>()
                {
                    @Override
                    protected void initChannel(final Channel ch)
                    {
                        ch.pipeline().addLast(new ChannelInboundHandlerAdapter()
                        {
                            @Override
                            public void userEventTriggered(final ChannelHandlerContext ctx, final Object evt)
                            {
                                if (evt == Frames.LAST_FRAME_SENT)
                                {
                                    activeWhenLastFrameSent.complete(ctx.channel().isActive());
                                }
                            }
                        });
                        accepted.complete(ch);
                    }
                })
                .bind("127.0.0.1", 0).sync().channel();
            try (Socket peer = new Socket())
            {
                peer.connect(new InetSocketAddress("127.0.0.1", ((InetSocketAddress)server.localAddress()).getPort()));
                final Channel ch = accepted.get(10, TimeUnit.SECONDS);
                final CompletableFuture<Long> elapsedAtClose = new CompletableFuture<>();
                ch.eventLoop().execute(() ->
                {
                    final long start = System.nanoTime();
                    ch.closeFuture().addListener(f -> elapsedAtClose.complete(System.nanoTime() - start));
                    Frames.writeLastAndClose(ch, Unpooled.buffer().writeInt(1).writeByte(42), graceMs);
                });

                assertTrue(activeWhenLastFrameSent.get(10, TimeUnit.SECONDS), "still open once the last frame is out");
                final DataInputStream in = new DataInputStream(peer.getInputStream());
                assertEquals(1, in.readInt());
                assertEquals(42, in.readByte(), "the last frame");
                assertEquals(-1, in.read(), "then the end of the stream: the server shut its side");
                final long closedAfterMs = TimeUnit.NANOSECONDS.toMillis(elapsedAtClose.get(graceMs + 10_000, TimeUnit.MILLISECONDS));
                assertTrue(closedAfterMs >= graceMs, "closed " + closedAfterMs + " ms after the last frame, before the grace");
            }
            server.close().sync();
        }
        finally
        {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
