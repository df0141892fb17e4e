package io.gpux.gateway.egress;

import io.gpux.gateway.directory.Directory;
import io.gpux.gateway.session.Session;
import io.gpux.gateway.session.SessionRegistry;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Heartbeat;
import io.gpux.proto.v1.SessionErrorCode;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a session is sent while one of its portfolio answers is encoded off the egress's thread waits behind the
 * answer, and leaves after it, in order; an answer encoded out of turn waits for those before it; the encoder's frame
 * is written as it is; a session that goes lets go of what it held and of its answer's frame; a revoked key's session
 * gets its answers, encoded or not, before its close.
 */
class HeldAnswersTest
{
    private final SessionTable sessions = new SessionTable(new Resends(new Egress.ResendLimits(4, 4, 1 << 20)), line -> { });
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final RecordingAllocator allocator = new RecordingAllocator();
    private final Session session = new Session(1, channel, 7, "a", 0, false, 70);
    private long requestIds;

    HeldAnswersTest()
    {
        channel.config().setAllocator(allocator);
        session.live = true;
        sessions.attach(session);
    }

    @Test
    void whatTheSessionIsSentWhileItsAnswerIsEncodedLeavesAfterIt()
    {
        final PortfolioEncoder.Pending p = heldBetweenMarkers();
        sessions.flush();
        assertEquals(List.of("marker 1"), written(), "only what came before the answer leaves while it is encoded");

        handBack(p);
        sessions.send(session, marker(3));
        sessions.flush();
        assertEquals(List.of("portfolio " + p.answer.requestId(), "marker 2", "marker 3"), written());
        assertTrue(!sessions.holding(session));
    }

    @Test
    void anAnswerEncodedOutOfTurnWaitsForTheOneBeforeIt()
    {
        final PortfolioEncoder.Pending first = answer();
        final PortfolioEncoder.Pending second = answer();
        sessions.hold(session, first);
        sessions.send(session, marker(1));
        sessions.hold(session, second);
        sessions.send(session, marker(2));

        handBack(second);
        sessions.flush();
        assertEquals(List.of(), written());

        handBack(first);
        sessions.flush();
        assertEquals(List.of("portfolio " + first.answer.requestId(), "marker 1", "portfolio " + second.answer.requestId(),
            "marker 2"), written());
    }

    @Test
    void aSessionThatGoesLetsGoOfWhatItHeldAndItsAnswerIsDropped()
    {
        final PortfolioEncoder.Pending p = answer();
        sessions.hold(session, p);
        sessions.send(session, marker(1));
        final ByteBuf behind = sessions.outgoing(session);
        sessions.detach(session);
        assertEquals(0, behind.refCnt(), "the buffer held behind the answer is released");

        p.encodeFrame(line -> { });
        final ByteBuf frame = allocator.last();
        p.returned();
        assertEquals(0, sessions.encoded(p));
        assertEquals(0, frame.refCnt(), "the dropped answer's frame is released");
        sessions.flush();
        assertEquals(List.of(), written());
    }

    @Test
    void anEncodedAnswerLeavesInTheBufferTheEncoderFramedItIn()
    {
        final PortfolioEncoder.Pending p = heldBetweenMarkers();
        final ByteBuf frame = handBack(p);
        sessions.flush();
        channel.runPendingTasks();
        final List<ByteBuf> out = new ArrayList<>();
        for (final Object m : channel.outboundMessages())
        {
            out.add((ByteBuf)m);
        }
        assertEquals(3, out.size(), "what came before, the answer's frame, what waited behind it");
        assertSame(frame, out.get(1), "the frame is written as it is, not copied");
        assertEquals(List.of("marker 1", "portfolio " + p.answer.requestId(), "marker 2"), written());
        assertEquals(0, frame.refCnt());
    }

    @Test
    void framesMadeElsewhereLeaveAsTheyAreBetweenWhatCameBeforeAndAfter()
    {
        sessions.send(session, marker(1));
        final ByteBuf round = allocator.directBuffer(64);
        Frames.write(marker(2), round);
        sessions.writeNow(session, round);
        sessions.send(session, marker(3));
        sessions.flush();
        channel.runPendingTasks();
        assertSame(round, channel.outboundMessages().toArray()[1], "the buffer is written as it is, not copied");
        assertEquals(List.of("marker 1", "marker 2", "marker 3"), written());

        final ByteBuf late = allocator.directBuffer(64);
        Frames.write(marker(4), late);
        sessions.detach(session);
        sessions.writeNow(session, late);
        assertEquals(0, late.refCnt(), "a closed session's buffer is released");
        sessions.flush();
        assertEquals(List.of(), written());
    }

    @Test
    void aFrameHandedBackAfterTheEgressEncodedTheAnswerItselfIsReleased()
    {
        final SessionRegistry registry = new SessionRegistry(10, 10);
        registry.register(session, key -> true);
        final PortfolioEncoder.Pending p = answer();
        sessions.hold(session, p);
        registry.revokeKey(session.keyId, () -> { });
        // the encoder frames it, but the revoke's close comes before it is handed back: encoded again for the close
        p.encodeFrame(line -> { });
        final ByteBuf frame = allocator.last();
        sessions.closeRevoked(session.keyId);
        assertEquals(List.of("portfolio " + p.answer.requestId(), "session error " + SessionErrorCode.KEY_REVOKED), written());
        assertEquals(1, frame.refCnt());
        p.returned();
        assertEquals(0, sessions.encoded(p));
        assertEquals(0, frame.refCnt(), "the late frame is released, not written");
        assertEquals(List.of(), written());
    }

    /** Marker 1, then an answer held for the encoder, then marker 2 behind it. */
    private PortfolioEncoder.Pending heldBetweenMarkers()
    {
        sessions.send(session, marker(1));
        final PortfolioEncoder.Pending p = answer();
        sessions.hold(session, p);
        sessions.send(session, marker(2));
        return p;
    }

    /** The encoder frames the answer and hands it back; returns the frame's buffer. */
    private ByteBuf handBack(final PortfolioEncoder.Pending p)
    {
        p.encodeFrame(line -> { });
        final ByteBuf frame = allocator.last();
        p.returned();
        sessions.encoded(p);
        return frame;
    }

    /** Direct buffers as Netty's unpooled allocator makes them, the last one kept for the test to look at. */
    private static final class RecordingAllocator extends AbstractByteBufAllocator
    {
        private ByteBuf last;

        RecordingAllocator()
        {
            super(true);
        }

        @Override
        protected ByteBuf newHeapBuffer(final int initialCapacity, final int maxCapacity)
        {
            return UnpooledByteBufAllocator.DEFAULT.heapBuffer(initialCapacity, maxCapacity);
        }

        @Override
        protected ByteBuf newDirectBuffer(final int initialCapacity, final int maxCapacity)
        {
            last = UnpooledByteBufAllocator.DEFAULT.directBuffer(initialCapacity, maxCapacity);
            return last;
        }

        @Override
        public boolean isDirectBufferPooled()
        {
            return false;
        }

        ByteBuf last()
        {
            return last;
        }
    }

    @Test
    void aRevokedKeysSessionGetsItsAnswersEncodedOrNotThenItsClose()
    {
        final SessionRegistry registry = new SessionRegistry(10, 10);
        registry.register(session, key -> true);
        final PortfolioEncoder.Pending p = answer();
        sessions.hold(session, p);
        sessions.send(session, marker(1));
        registry.revokeKey(session.keyId, () -> { });

        sessions.closeRevoked(session.keyId);
        final List<String> out = written();
        assertEquals(List.of("portfolio " + p.answer.requestId(), "marker 1", "session error " + SessionErrorCode.KEY_REVOKED),
            out, "the answer the encoder had not handed back was encoded for the close");
    }

    private PortfolioEncoder.Pending answer()
    {
        return new PortfolioEncoder.Pending(new Egress.PortfolioAnswer(session, ++requestIds + 100,
            PortfolioView.copy(null, 0, new Directory(), Map.of()), 0, 0));
    }

    private static Envelope marker(final long n)
    {
        return Envelope.newBuilder().setRequestId(n).setHeartbeat(Heartbeat.getDefaultInstance()).build();
    }

    /** The frames written to the connection since the last call, named. */
    private List<String> written()
    {
        final List<String> names = new ArrayList<>();
        for (final Envelope e : TestFrames.written(channel))
        {
            names.add(switch (e.getBodyCase())
            {
                case HEARTBEAT -> "marker " + e.getRequestId();
                case PORTFOLIO -> "portfolio " + e.getRequestId();
                case SESSION_ERROR -> "session error " + e.getSessionError().getCode();
                default -> e.getBodyCase().toString();
            });
        }
        return names;
    }
}
