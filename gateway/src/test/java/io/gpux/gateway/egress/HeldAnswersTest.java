package io.gpux.gateway.egress;

import io.gpux.gateway.directory.Directory;
import io.gpux.gateway.session.Session;
import io.gpux.gateway.session.SessionRegistry;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Heartbeat;
import io.gpux.proto.v1.SessionErrorCode;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a session is sent while one of its portfolio answers is encoded off the egress's thread waits behind the
 * answer, and leaves after it, in order; an answer encoded out of turn waits for those before it; a session that
 * goes lets go of what it held; a revoked key's session gets its answers, encoded or not, before its close.
 */
class HeldAnswersTest
{
    private final SessionTable sessions = new SessionTable(new Resends(new Egress.ResendLimits(4, 4, 1 << 20)), line -> { });
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final Session session = new Session(1, channel, 7, "a", 0, false, 70);
    private long requestIds;

    HeldAnswersTest()
    {
        session.live = true;
        sessions.attach(session);
    }

    @Test
    void whatTheSessionIsSentWhileItsAnswerIsEncodedLeavesAfterIt()
    {
        sessions.send(session, marker(1));
        final PortfolioEncoder.Pending p = answer();
        sessions.hold(session, p);
        sessions.send(session, marker(2));
        sessions.flush();
        assertEquals(List.of("marker 1"), written(), "only what came before the answer leaves while it is encoded");

        p.encoded(p.encode());
        sessions.encoded(p);
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

        second.encoded(second.encode());
        sessions.encoded(second);
        sessions.flush();
        assertEquals(List.of(), written());

        first.encoded(first.encode());
        sessions.encoded(first);
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

        p.encoded(p.encode());
        assertEquals(0, sessions.encoded(p));
        sessions.flush();
        assertEquals(List.of(), written());
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
