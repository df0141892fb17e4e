package io.gpux.gateway;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.InvalidProtocolBufferException;
import io.gpux.gateway.codec.FrameEncoder;
import io.gpux.gateway.codec.HotRequest;
import io.gpux.gateway.codec.RequestDecoder;
import io.gpux.gateway.egress.Frames;
import io.gpux.proto.v1.Envelope;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.TooLongFrameException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The inbound half of the gateway's pipeline (Exchange's Initializer: "frameDecoder", a
 * LengthFieldBasedFrameDecoder(maxFrame, 0, 4, 0, 4, failFast), then "protobufDecoder", the
 * allocation-free {@link RequestDecoder}) fed arbitrary bytes, in arbitrary pieces. It may only ever
 * produce Envelopes, {@link HotRequest}s of the hot kinds, or the three decoder errors the
 * connection's handler turns into FRAME_TOO_LARGE / MALFORMED_FRAME; it never holds more memory than about
 * twice the bytes it was given, whatever length a prefix announces; every Envelope it produces
 * re-encodes (FrameEncoder, Frames.write) to a frame that decodes to the same Envelope. (That a
 * HotRequest holds exactly what the generated parser reads is RequestDecoderProperties' subject.)
 *
 * <p>A plain {@code mvn test} runs {@link #decode} on its regression inputs only, from
 * {@code src/test/resources/io/gpux/gateway/FrameDecoderFuzzTestInputs/decode/}. To fuzz (one
 * {@code @FuzzTest} per run; a finding is written to that directory as {@code crash-<sha1>} and then
 * fails every plain run until fixed; the corpus Jazzer grows goes to {@code gateway/.cifuzz-corpus/},
 * not for git), with coverage of the decoders themselves (by default Jazzer instruments only the
 * project's own classes):
 * <pre>
 *   JAZZER_FUZZ=1 ./mvnw -pl gateway test -Dtest=FrameDecoderFuzzTest#decode -Djazzer.max_duration=5m \
 *       '-Djazzer.instrument=io.netty.handler.codec.**,com.google.protobuf.**,io.gpux.**'
 * </pre>
 * (On this project's 2-core machine: about 6,700 inputs a second, no finding in a 40-second run.)
 */
class FrameDecoderFuzzTest
{
    static final int MAX_FRAME = GatewayConfiguration.MAX_FRAME_DEFAULT;

    /** What came out of the pipeline. */
    static final class Sink extends ChannelInboundHandlerAdapter
    {
        final List<Envelope> envelopes = new ArrayList<>();
        final List<String> hot = new ArrayList<>();
        final List<Throwable> errors = new ArrayList<>();

        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg)
        {
            if (msg instanceof HotRequest)
            {
                // the decoder reuses it: keep what it said, and check it is a hot kind
                final HotRequest request = (HotRequest)msg;
                assertTrue(HotRequest.handles(request.kind), () -> "a HotRequest of kind " + request.kind);
                hot.add(request.toString());
                return;
            }
            envelopes.add((Envelope)msg);
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
        {
            errors.add(cause);
        }
    }

    static EmbeddedChannel pipeline(final UnpooledByteBufAllocator alloc, final Sink sink)
    {
        final EmbeddedChannel ch = new EmbeddedChannel();
        ch.config().setAllocator(alloc);
        ch.pipeline()
            .addLast("frameDecoder", new LengthFieldBasedFrameDecoder(MAX_FRAME, 0, 4, 0, 4, true))
            .addLast("protobufDecoder", new RequestDecoder())
            .addLast("frameEncoder", FrameEncoder.INSTANCE)
            .addLast("sink", sink);
        return ch;
    }

    static long held(final UnpooledByteBufAllocator alloc)
    {
        return alloc.metric().usedHeapMemory() + alloc.metric().usedDirectMemory();
    }

    /** The errors the gateway maps to a SessionError; anything else is a bug. */
    static void expected(final Throwable t)
    {
        if (t instanceof TooLongFrameException || t instanceof CorruptedFrameException)
        {
            return;
        }
        if (t instanceof DecoderException && t.getCause() instanceof InvalidProtocolBufferException)
        {
            return;
        }
        throw new AssertionError("unexpected from the decoders: " + t, t);
    }

    @FuzzTest
    void decode(final byte[] data)
    {
        final UnpooledByteBufAllocator alloc = new UnpooledByteBufAllocator(false, true);
        final Sink sink = new Sink();
        final EmbeddedChannel ch = pipeline(alloc, sink);
        try
        {
            // pieces as a network would deliver them: sizes from a generator seeded by the input
            long state = data.length * 0x9E3779B97F4A7C15L + 1;
            int fed = 0;
            while (fed < data.length && sink.errors.isEmpty())
            {
                state = state * 6364136223846793005L + 1442695040888963407L;
                final int piece = Math.min(data.length - fed, 1 + (int)((state >>> 33) % 97));
                ch.writeInbound(Unpooled.wrappedBuffer(data, fed, piece));
                fed += piece;
                assertTrue(held(alloc) <= 2L * fed + 256, () -> held(alloc) + " bytes held after " + data.length + " fed");
            }
            for (final Throwable t : sink.errors)
            {
                expected(t);
            }
            for (final Envelope e : sink.envelopes)
            {
                final ByteBuf frame = Unpooled.buffer();
                Frames.write(e, frame);
                final Sink again = new Sink();
                final EmbeddedChannel check = pipeline(new UnpooledByteBufAllocator(false, true), again);
                check.writeInbound(frame);
                assertEquals(List.of(e), again.envelopes, "re-encoded and decoded again");
                assertTrue(again.errors.isEmpty());
                check.finishAndReleaseAll();
            }
        }
        finally
        {
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void anOversizedLengthIsRefusedAsSoonAsItsFourBytesArriveAndNothingIsAllocatedForIt()
    {
        for (final long length : new long[] {0x7fff_ffffL, 0xffff_ffffL, 0x8000_0000L, MAX_FRAME - 3})
        {
            final UnpooledByteBufAllocator alloc = new UnpooledByteBufAllocator(false, true);
            final Sink sink = new Sink();
            final EmbeddedChannel ch = pipeline(alloc, sink);
            ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {(byte)(length >>> 24), (byte)(length >>> 16), (byte)(length >>> 8)}));
            assertTrue(sink.errors.isEmpty(), "three bytes are not a length yet");
            ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {(byte)length}));
            assertEquals(1, sink.errors.size(), "refused at the fourth byte: " + Long.toHexString(length));
            assertInstanceOf(TooLongFrameException.class, sink.errors.get(0));
            for (int i = 0; i < 64; i++)
            {
                ch.writeInbound(Unpooled.wrappedBuffer(new byte[16 * 1024]));
            }
            // what the decoder holds stays at a piece or two, however much follows the prefix
            assertTrue(held(alloc) <= 64 * 1024, "1 MiB after the prefix is discarded, not kept: " + held(alloc));
            if (length > 2 * 1024 * 1024)
            {
                assertTrue(sink.envelopes.isEmpty() && sink.hot.isEmpty(), "all of it is still being discarded");
            }
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void theLargestFrameThatFitsIsDecoded()
    {
        final Sink sink = new Sink();
        final EmbeddedChannel ch = pipeline(new UnpooledByteBufAllocator(false, true), sink);
        final byte[] payload = new byte[MAX_FRAME - 4];
        // an Envelope of one unknown length-delimited field (number 1000) padding it out: still an Envelope
        payload[0] = (byte)0xC2;
        payload[1] = 0x3E;
        final int len = payload.length - 5;
        payload[2] = (byte)(0x80 | (len & 0x7f));
        payload[3] = (byte)(0x80 | ((len >>> 7) & 0x7f));
        payload[4] = (byte)(len >>> 14);
        ch.writeInbound(Unpooled.wrappedBuffer(RandomFrames.frame(payload)));
        if (!sink.errors.isEmpty())
        {
            fail(sink.errors.get(0));
        }
        assertEquals(1, sink.envelopes.size() + sink.hot.size());
        ch.finishAndReleaseAll();
    }
}
