package io.gpux.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.gpux.proto.v1.Accepted;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Fill;
import io.gpux.proto.v1.Heartbeat;
import io.gpux.proto.v1.LoginAccepted;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.Role;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The client's frame decoder reuses one array for direct frames: each frame must decode to exactly
 * what the generated parser reads, and still do so once later frames have gone through the array,
 * from heap and direct buffers alike; bad bytes are an error, not a message.
 */
class EnvelopeDecoderTest
{
    private static final List<Envelope> FRAMES = List.of(
        Envelope.newBuilder().setRequestId(7).setLoginAccepted(LoginAccepted.newBuilder().setAccount("alice")
            .setAccountId(3).addRoles(Role.RENTER).addRoles(Role.OWNER).setLastSeq(12)).build(),
        Envelope.newBuilder().setEvent(AccountEvent.newBuilder().setSeq(13).setCommandSeq(99).setTimeMs(1000)
            .setFill(Fill.newBuilder().setOrderId(5).setLeaseId(8).setGpus(2).setPrice(20_000))).build(),
        // no request id, another oneof case, fewer roles: nothing may survive from the frames before
        Envelope.newBuilder().setLoginAccepted(LoginAccepted.newBuilder().setAccount("b").addRoles(Role.ADMIN)).build(),
        Envelope.newBuilder().setEvent(AccountEvent.newBuilder().setSeq(14)
            .setAccepted(Accepted.newBuilder().setOrderId(6))).build(),
        Envelope.newBuilder().setRequestId(8).setResponse(Response.newBuilder().setReason(Reason.BUSY).setMessage("retry")).build(),
        Envelope.newBuilder().setHeartbeat(Heartbeat.newBuilder().setTimeMs(5)).build(),
        // bigger than the reused array, then bigger than the largest it grows to
        Envelope.newBuilder().setRequestId(9).setResponse(Response.newBuilder().setMessage("x".repeat(10_000))).build(),
        Envelope.newBuilder().setRequestId(10).setResponse(Response.newBuilder().setMessage("y".repeat(1_200_000))).build(),
        Envelope.getDefaultInstance());

    @Test
    void eachFrameDecodesToWhatTheGeneratedParserReadsWithNothingLeftFromTheOneBefore() throws Exception
    {
        for (final boolean direct : new boolean[] {false, true})
        {
            final EmbeddedChannel channel = new EmbeddedChannel(new EnvelopeDecoder());
            final List<Envelope> decoded = new ArrayList<>();
            for (int round = 0; round < 2; round++)
            {
                for (final Envelope envelope : FRAMES)
                {
                    final byte[] bytes = envelope.toByteArray();
                    final ByteBuf frame = direct ? Unpooled.directBuffer(bytes.length).writeBytes(bytes) : Unpooled.wrappedBuffer(bytes);
                    channel.writeInbound(frame);
                    decoded.add(channel.readInbound());
                }
            }
            assertFalse(channel.finish());
            // compared after every frame went through the decoder's reused array: nothing decoded may refer to it
            for (int i = 0; i < decoded.size(); i++)
            {
                final Envelope envelope = FRAMES.get(i % FRAMES.size());
                assertEquals(Envelope.parseFrom(envelope.toByteArray()), decoded.get(i), (direct ? "direct " : "heap ") + i);
                assertEquals(envelope, decoded.get(i));
            }
        }
    }

    @Test
    void badBytesAreAnErrorNotAMessage()
    {
        final EmbeddedChannel channel = new EmbeddedChannel(new EnvelopeDecoder());
        // field 1 (request_id) as a varint that never ends
        assertThrows(DecoderException.class, () -> channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {8, (byte)0xff, (byte)0xff})));
        assertNull(channel.readInbound());
    }
}
