package io.gpux.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.MarketsRequest;
import io.netty.channel.Channel;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A connection's last handler: the login handler until the Login is accepted, then the session's handler in its place. */
class ConnectionHandlersTest
{
    @Test
    void theLoginHandlerReplacesItselfWithTheSessionHandlerOnceTheLoginIsAccepted() throws Exception
    {
        try (TestExchange ex = TestExchange.start(c -> c);
             RawConnection c = ex.connect())
        {
            final Channel server = serverSide(ex.exchange, c.socket.getLocalPort());
            final List<String> before = names(server);
            assertEquals(LoginHandler.NAME, before.get(before.size() - 1), before::toString);
            assertFalse(before.contains(SessionHandler.NAME), before::toString);

            final Envelope accepted = c.login(ex.admin.id(), ex.admin.secret());
            assertNotNull(accepted);
            assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, accepted.getBodyCase(), accepted::toString);
            final List<String> after = names(server);
            assertEquals(SessionHandler.NAME, after.get(after.size() - 1), after::toString);
            assertFalse(after.contains(LoginHandler.NAME), after::toString);
            assertEquals(before.size(), after.size(), "one handler in the place of the other: " + before + " " + after);

            final long rid = c.request(Envelope.newBuilder().setMarketsRequest(MarketsRequest.getDefaultInstance()));
            final Envelope markets = c.readUntil(Envelope.BodyCase.MARKETS);
            assertEquals(rid, markets.getRequestId());
            assertEquals(Envelope.BodyCase.MARKETS, markets.getBodyCase(), markets::toString);
        }
    }

    /** The gateway's side of the client's connection, once its pipeline is set up. */
    private static Channel serverSide(final Exchange exchange, final int clientPort) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline)
        {
            for (final Channel ch : exchange.connections())
            {
                if (ch.remoteAddress() instanceof InetSocketAddress a && a.getPort() == clientPort)
                {
                    return ch;
                }
            }
            Thread.sleep(10);
        }
        throw new AssertionError("the gateway never accepted the connection");
    }

    /** The pipeline's handler names, read on the connection's event loop. */
    private static List<String> names(final Channel ch) throws Exception
    {
        final List<String> names = ch.eventLoop().submit(() -> List.copyOf(ch.pipeline().names())).get(10, TimeUnit.SECONDS);
        assertTrue(names.size() > 1, names::toString);
        return names.subList(0, names.size() - 1); // Netty's tail context last
    }
}
