package io.gpux.gateway.codec;

import com.google.protobuf.InvalidProtocolBufferException;
import io.gpux.proto.v1.Cancel;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.GpuTelemetry;
import io.gpux.proto.v1.Login;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.PlaceBid;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The request decoder's edges: malformed frames refused with the generated parser's own error, the
 * cases it leaves to the generated parser on purpose (two different bodies, telemetry, deep groups,
 * big frames), its place in a Netty pipeline (buffers released, errors as Netty's ProtobufDecoder gave
 * them), and that it allocates nothing.
 */
class RequestDecoderTest
{
    private static final byte[] BID = Envelope.newBuilder().setRequestId(9).setPlaceBid(PlaceBid.newBuilder()
        .setOrderId(77).setMarket("H100-SXM-80G").setGpus(8).setPrice(25_000).setRegion("eu")).build().toByteArray();

    /** Refused by the generated parser; the decoder must refuse it with the same message, and not read it itself. */
    private static void refusedAlike(final byte[] bytes)
    {
        final InvalidProtocolBufferException expected =
            assertThrows(InvalidProtocolBufferException.class, () -> Envelope.parseFrom(bytes));
        assertFalse(new RequestDecoder().read(bytes, 0, bytes.length, new HotRequest()));
        final InvalidProtocolBufferException got =
            assertThrows(InvalidProtocolBufferException.class, () -> new RequestDecoder().decode(bytes, 0, bytes.length));
        assertEquals(expected.getMessage(), got.getMessage());
    }

    private static byte[] bid(final byte[] body)
    {
        return WireInput.field(Envelope.PLACE_BID_FIELD_NUMBER, body);
    }

    @Test
    void malformedFramesAreRefusedWithTheGeneratedParsersError()
    {
        refusedAlike(new byte[] {0x08});                                               // request_id without its varint
        refusedAlike(new byte[] {0x08, (byte)0x80, (byte)0x80, (byte)0x80, (byte)0x80, (byte)0x80,
            (byte)0x80, (byte)0x80, (byte)0x80, (byte)0x80, (byte)0x80, 0x01});        // a varint of 11 bytes
        refusedAlike(new byte[] {0x00, 0x01});                                         // field number 0
        refusedAlike(new byte[] {(byte)0xa2, 0x01, 0x05, 0x08});                       // a body longer than the frame
        refusedAlike(new byte[] {(byte)0xa2, 0x01, (byte)0xff, (byte)0xff, (byte)0xff, (byte)0xff, 0x0f}); // negative length
        refusedAlike(new byte[] {0x0c});                                               // END_GROUP of field 1, outside a group
        refusedAlike(new byte[] {0x0b, 0x14});                                         // group 1 closed as group 2
        refusedAlike(new byte[] {0x0b});                                               // group never closed
        refusedAlike(new byte[] {0x0e, 0x00});                                         // wire type 6
        refusedAlike(new byte[] {0x0f, 0x00});                                         // wire type 7
        refusedAlike(bid(new byte[] {0x12, 0x02, (byte)0xc3, 0x28}));                  // market: invalid UTF-8
        refusedAlike(bid(new byte[] {0x12, 0x02, (byte)0xc0, (byte)0x80}));            // market: overlong NUL
        refusedAlike(bid(new byte[] {0x4a, 0x03, (byte)0xed, (byte)0xa0, (byte)0x80})); // region: a surrogate
        refusedAlike(bid(new byte[] {0x14}));                                          // END_GROUP inside the body
        refusedAlike(bid(new byte[] {0x19, 0x01, 0x02}));                              // fixed64 cut short
        refusedAlike(bid(new byte[] {0x1d, 0x01}));                                    // fixed32 cut short
    }

    @Test
    void unknownFieldsOfEveryWireTypeAreSkipped() throws InvalidProtocolBufferException
    {
        // order_id as a fixed64 (not its wire type: unknown), field 99 as varint, fixed32, bytes and a group
        final byte[] noise = {0x09, 1, 2, 3, 4, 5, 6, 7, 8, (byte)0x98, 0x06, 0x05, (byte)0x9d, 0x06, 1, 2, 3, 4,
            (byte)0x9a, 0x06, 0x01, 0x55, (byte)0x9b, 0x06, 0x08, 0x01, (byte)0x9c, 0x06};
        final byte[] bytes = WireInput.concat(noise, BID, bid(noise));
        final HotRequest r = new HotRequest();
        assertTrue(new RequestDecoder().read(bytes, 0, bytes.length, r));
        assertEquals(RequestDecoderProperties.expected(Envelope.parseFrom(bytes)), RequestDecoderProperties.actual(r));
        assertEquals(77, r.orderId);
        assertEquals("H100-SXM-80G", r.marketString());
    }

    @Test
    void aBodyGivenTwiceIsMergedAsProtobufMergesIt() throws InvalidProtocolBufferException
    {
        final byte[] bytes = WireInput.concat(BID, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
            .setGpus(3).setMarket("A100-80G")).build().toByteArray());
        final HotRequest r = new HotRequest();
        assertTrue(new RequestDecoder().read(bytes, 0, bytes.length, r));
        assertEquals(RequestDecoderProperties.expected(Envelope.parseFrom(bytes)), RequestDecoderProperties.actual(r));
        assertEquals(77, r.orderId);
        assertEquals(3, r.gpus);
        assertEquals("A100-80G", r.marketString());
    }

    @Test
    void whatIsLeftToTheGeneratedParserComesOutAsItsEnvelope() throws InvalidProtocolBufferException
    {
        final List<byte[]> cases = new ArrayList<>();
        // two different bodies: the last one is the body (protobuf-java's oneof merging is its own business)
        cases.add(WireInput.concat(BID, Envelope.newBuilder().setCancel(Cancel.newBuilder().setOrderId(5)).build().toByteArray(),
            BID));
        cases.add(Envelope.newBuilder().setMachineHeartbeat(MachineHeartbeat.newBuilder().setMachineId(3)
            .addGpus(GpuTelemetry.newBuilder().setUuid("GPU-1").setUtilizationPct(90))).build().toByteArray());
        cases.add(Envelope.newBuilder().setLogin(Login.newBuilder().setKeyId(1)).build().toByteArray());
        cases.add(new byte[0]);
        // bigger than the scratch array: an unknown field pads the bid out
        cases.add(WireInput.concat(BID, WireInput.field(1000, new byte[RequestDecoder.SCRATCH_BYTES])));
        for (final byte[] bytes : cases)
        {
            final Object decoded = RequestDecoderProperties.decode(new RequestDecoder(), bytes);
            assertEquals(Envelope.parseFrom(bytes), decoded);
        }
    }

    @Test
    void deepGroupsAreLeftToTheGeneratedParserWhichDecides() throws InvalidProtocolBufferException
    {
        for (final int depth : new int[] {1, 2, WireReader.MAX_GROUP_DEPTH, WireReader.MAX_GROUP_DEPTH + 1, 99, 100, 101, 5000})
        {
            for (final boolean inBody : new boolean[] {false, true})
            {
                final byte[] groups = WireInput.groups(2000, depth);
                final byte[] bytes = inBody
                    ? bid(WireInput.concat(groups, new byte[] {0x08, 0x05}))
                    : WireInput.concat(groups, BID);
                final boolean readHere = new RequestDecoder().read(bytes, 0, bytes.length, new HotRequest());
                assertEquals(depth <= WireReader.MAX_GROUP_DEPTH, readHere, depth + " groups deep, in the body: " + inBody);
                Envelope parsed;
                try
                {
                    parsed = Envelope.parseFrom(bytes);
                }
                catch (final InvalidProtocolBufferException ex)
                {
                    parsed = null;
                }
                if (parsed == null)
                {
                    assertThrows(InvalidProtocolBufferException.class, () -> new RequestDecoder().decode(bytes, 0, bytes.length));
                }
                else if (!readHere)
                {
                    assertEquals(parsed, new RequestDecoder().decode(bytes, 0, bytes.length));
                }
            }
        }
    }

    /** What came out of the pipeline. */
    static final class Sink extends ChannelInboundHandlerAdapter
    {
        final List<Object> messages = new ArrayList<>();
        final List<Throwable> errors = new ArrayList<>();

        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg)
        {
            messages.add(msg instanceof HotRequest r ? RequestDecoderProperties.actual(r) : msg);
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
        {
            errors.add(cause);
        }
    }

    private static byte[] frame(final byte[] payload)
    {
        return ByteBuffer.allocate(4 + payload.length).putInt(payload.length).put(payload).array();
    }

    @Test
    void inThePipelineFramesComeOutDecodedAndEveryBufferIsReleased() throws InvalidProtocolBufferException
    {
        final UnpooledByteBufAllocator alloc = new UnpooledByteBufAllocator(true, true);
        final Sink sink = new Sink();
        final EmbeddedChannel ch = new EmbeddedChannel();
        ch.config().setAllocator(alloc);
        ch.pipeline()
            .addLast("frameDecoder", new LengthFieldBasedFrameDecoder(64 * 1024, 0, 4, 0, 4, true))
            .addLast("protobufDecoder", new RequestDecoder())
            .addLast("sink", sink);
        final byte[] login = Envelope.newBuilder().setLogin(Login.newBuilder().setKeyId(4)).build().toByteArray();
        final byte[] malformed = {0x08};
        final byte[] stream = WireInput.concat(frame(BID), frame(login), frame(malformed), frame(BID));
        for (int i = 0; i < stream.length; i += 5)
        {
            final var piece = alloc.directBuffer(5);
            piece.writeBytes(stream, i, Math.min(5, stream.length - i));
            ch.writeInbound(piece);
        }
        assertEquals(List.of(RequestDecoderProperties.expected(Envelope.parseFrom(BID)), Envelope.parseFrom(login),
            RequestDecoderProperties.expected(Envelope.parseFrom(BID))), sink.messages);
        assertEquals(1, sink.errors.size());
        final DecoderException error = assertInstanceOf(DecoderException.class, sink.errors.get(0));
        final InvalidProtocolBufferException cause = assertInstanceOf(InvalidProtocolBufferException.class, error.getCause());
        assertEquals(assertThrows(InvalidProtocolBufferException.class, () -> Envelope.parseFrom(malformed)).getMessage(),
            cause.getMessage());
        assertNull(ch.readInbound());
        assertFalse(ch.finish());
        assertEquals(0, alloc.metric().usedDirectMemory() + alloc.metric().usedHeapMemory(), "every frame released");
    }

    @Test
    void decodingAHotRequestAllocatesNothing() throws InvalidProtocolBufferException
    {
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final RequestDecoder decoder = new RequestDecoder();
        final var frame = Unpooled.directBuffer(BID.length).writeBytes(BID);
        try
        {
            long sum = 0;
            for (int i = 0; i < 20_000; i++)
            {
                sum += ((HotRequest)decoder.decode(frame)).orderId;
            }
            final long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 100_000; i++)
            {
                sum += ((HotRequest)decoder.decode(frame)).orderId;
            }
            final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            assertEquals(120_000L * 77, sum);
            // one allocation a decode would be 1.6 MB at least; the JIT's own odd allocation on this thread is allowed for
            assertTrue(allocated < 100_000, allocated + " bytes allocated by 100,000 decodes");
        }
        finally
        {
            frame.release();
        }
    }
}
