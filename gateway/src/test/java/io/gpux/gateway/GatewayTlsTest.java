package io.gpux.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.gateway.tls.ServerTls;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.MarketsRequest;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Instant;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The gateway behind TLS over real loopback sockets, and plain TCP kept to loopback. */
class GatewayTlsTest
{
    @TempDir
    Path dir;

    @Test
    void framesFlowBehindTheTlsHandler() throws Exception
    {
        final ServerTls tls = ServerTls.selfSigned(dir, List.of("127.0.0.1"), Instant.now());
        try (TestExchange ex = TestExchange.start(c -> c.tls(tls));
             RawConnection admin = new RawConnection(tlsSocket(tls, ex.port())))
        {
            assertEquals("TLSv1.3", ((SSLSocket)admin.socket).getSession().getProtocol());
            final Envelope accepted = admin.login(ex.admin.id(), ex.admin.secret());
            assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, accepted.getBodyCase(), accepted::toString);
            final Envelope markets = admin.responseTo(admin.request(Envelope.newBuilder()
                .setMarketsRequest(MarketsRequest.newBuilder())));
            assertTrue(markets.getMarkets().getMarketsCount() > 0, markets::toString);
            assertFalse(ex.logLines("over TLS").isEmpty(), ex.log.toString());

            // plain TCP to the TLS port: the gateway closes it at once, without answering in plain text
            try (RawConnection plain = ex.connect())
            {
                assertNull(plain.login(ex.admin.id(), ex.admin.secret()), "closed, not answered");
            }
        }
    }

    @Test
    void plainTcpOffLoopbackIsRefusedBeforeAnythingOpens()
    {
        final Path data = dir.resolve("data");
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> Exchange.start(
            new ExchangeContext().dataDir(data).bind("0.0.0.0").port(0).log(line -> { })));
        assertEquals("refusing plain TCP on 0.0.0.0: it is not a loopback address, so logins and orders would cross the " +
            "network unencrypted; give --tls-cert and --tls-key (or --tls-self-signed), or --allow-plaintext",
            refused.getMessage());
        assertFalse(Files.exists(data), "nothing made, nothing bound");

        // allowed by the flag, or with TLS; loopback is always allowed (checked without binding)
        new ExchangeContext().bind("0.0.0.0").allowPlaintext(true).conclude();
        new ExchangeContext().bind("localhost").conclude();
        new ExchangeContext().bind("::1").conclude();
        assertThrows(IllegalArgumentException.class, () -> new ExchangeContext().bind("::").conclude());
    }

    private static SSLSocket tlsSocket(final ServerTls tls, final int port) throws Exception
    {
        final KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
        trusted.load(null, null);
        trusted.setCertificateEntry("gateway", tls.certificate());
        final TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trusted);
        final SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        final SSLSocket socket = (SSLSocket)context.getSocketFactory().createSocket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        socket.startHandshake();
        return socket;
    }
}
