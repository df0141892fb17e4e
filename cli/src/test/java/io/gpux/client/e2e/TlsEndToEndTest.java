package io.gpux.client.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.client.ClientContext;
import io.gpux.client.GpuxClient;
import io.gpux.gateway.Exchange;
import io.gpux.gateway.ExchangeContext;
import io.gpux.gateway.tls.Certificates;
import io.gpux.gateway.tls.ServerTls;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.Role;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java client over TLS against real exchanges on 127.0.0.1: one with a self-signed certificate
 * (clients pin its fingerprint), one with a certificate signed by a CA made here (clients trust the
 * CA's file), one in plain TCP; each way of verifying the gateway, and each way of failing, with the
 * reason the user reads.
 */
class TlsEndToEndTest
{
    private static final Duration FAST = Duration.ofSeconds(10);

    @TempDir
    static Path dir;
    static Exchange selfSigned;
    static ServerTls selfSignedTls;
    static Exchange caSigned;
    static Path caFile;
    static Certificates.Issued ca;
    static Exchange plain;

    @BeforeAll
    static void startExchanges() throws Exception
    {
        selfSignedTls = ServerTls.selfSigned(dir.resolve("self"), List.of("localhost", "127.0.0.1"), Instant.now());
        selfSigned = start("self", selfSignedTls);

        ca = Certificates.selfSigned("gpux test CA", List.of(), true, Instant.now(), Duration.ofDays(1));
        caFile = dir.resolve("ca.pem");
        Certificates.writeCertificate(ca.certificate(), caFile);
        final Certificates.Issued leaf = Certificates.issue(ca, "gateway", List.of("127.0.0.1"), false, Instant.now(),
            Duration.ofDays(1));
        Certificates.writeCertificate(leaf.certificate(), dir.resolve("leaf.pem"));
        Certificates.writePrivateKey(leaf.keys(), dir.resolve("leaf.key"));
        caSigned = start("ca", ServerTls.fromPem(dir.resolve("leaf.pem"), dir.resolve("leaf.key")));

        plain = start("plain", null);
    }

    private static Exchange start(final String name, final ServerTls tls) throws Exception
    {
        return Exchange.start(new ExchangeContext().dataDir(dir.resolve(name).resolve("data")).bind("127.0.0.1").port(0)
            .heartbeatIntervalMs(5_000).loginTimeoutMs(10_000).tls(tls).log(line -> { }));
    }

    @AfterAll
    static void stopExchanges()
    {
        E2e.closeQuietly(selfSigned, caSigned, plain);
    }

    @Test
    void pinnedFingerprintLogsInAndTrades() throws Exception
    {
        final Consumer<ClientContext> pinned = c -> c.tlsFingerprint(selfSignedTls.fingerprint());
        try (GpuxClient admin = E2e.connect(selfSigned.port(), adminKey(selfSigned), new Recorder("admin"), pinned))
        {
            final E2e.Key owner = E2e.account(admin, "owner", Role.OWNER, 0);
            final E2e.Key renter = E2e.account(admin, "renter", Role.RENTER, 1_000_000_000L);
            final Recorder ownerEvents = new Recorder("owner");
            final Recorder renterEvents = new Recorder("renter");
            // the fingerprint as typed by hand: lower case, no colons
            final String typed = selfSignedTls.fingerprint().substring("SHA256:".length()).replace(":", "")
                .toLowerCase(Locale.ROOT);
            try (GpuxClient ownerClient = E2e.connect(selfSigned.port(), owner, ownerEvents, pinned);
                 GpuxClient renterClient = E2e.connect(selfSigned.port(), renter, renterEvents, c -> c.tlsFingerprint(typed)))
            {
                final long machine = E2e.ok(ownerClient, Envelope.newBuilder().setRegisterMachine(RegisterMachine.newBuilder()
                    .setName("tls-node").setMarket(E2e.MARKET).setGpus(2))).getAssignedId();
                E2e.ok(ownerClient, Envelope.newBuilder().setMachineHeartbeat(MachineHeartbeat.newBuilder().setMachineId(machine)));
                E2e.ok(ownerClient, Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder().setOrderId(1).setMachineId(machine)
                    .setGpus(2).setPrice(20_000)));
                final Response bid = E2e.ok(renterClient, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder().setOrderId(2)
                    .setMarket(E2e.MARKET).setGpus(1).setPrice(25_000)));
                assertTrue(bid.getCommandSeq() > 0, bid::toString);
                E2e.await("the renter's fill", () -> !renterEvents.events(AccountEvent.KindCase.FILL).isEmpty());
                E2e.await("the owner's fill", () -> !ownerEvents.events(AccountEvent.KindCase.FILL).isEmpty());
                assertEquals(1, renterEvents.events(AccountEvent.KindCase.FILL).get(0).getFill().getGpus());
            }
        }
    }

    @Test
    void wrongFingerprintIsRefusedWithTheReason() throws Exception
    {
        final String other = Certificates.fingerprint(ca.certificate());
        final IOException refused = assertThrows(IOException.class, () -> E2e.connect(selfSigned.port(),
            adminKey(selfSigned), new Recorder("admin"), c -> c.tlsFingerprint(other).connectTimeout(FAST)));
        assertEquals("TLS handshake failed: server certificate fingerprint " + selfSignedTls.fingerprint() +
            " does not match the pinned " + other, refused.getMessage());
    }

    @Test
    void caFileVerifiesAChainAndTheHostName() throws Exception
    {
        try (GpuxClient admin = E2e.connect(caSigned.port(), adminKey(caSigned), new Recorder("admin"),
            c -> c.tlsCaFile(caFile)))
        {
            assertTrue(admin.markets(FAST).getMarketsCount() > 0);
        }

        // the same CA does not vouch for the self-signed gateway
        final IOException untrusted = assertThrows(IOException.class, () -> E2e.connect(selfSigned.port(),
            adminKey(selfSigned), new Recorder("admin"), c -> c.tlsCaFile(caFile).connectTimeout(FAST)));
        assertTrue(untrusted.getMessage().startsWith("TLS handshake failed: the gateway's certificate is not signed by " +
            "a trusted CA"), untrusted.getMessage());

        // a certificate from the right CA, for another name
        final Certificates.Issued elsewhere = Certificates.issue(ca, "elsewhere", List.of("gateway.example"), false,
            Instant.now(), Duration.ofDays(1));
        try (SSLServerSocket server = tlsListener(elsewhere))
        {
            final Thread acceptor = handshakeOnce(server);
            final IOException wrongName = assertThrows(IOException.class, () -> E2e.connect(server.getLocalPort(),
                adminKey(caSigned), new Recorder("admin"), c -> c.tlsCaFile(caFile).connectTimeout(FAST)));
            assertEquals("TLS handshake failed: the gateway's certificate is not for the host connected to (No subject " +
                "alternative names matching IP address 127.0.0.1 found)", wrongName.getMessage());
            acceptor.join(FAST.toMillis());
        }
    }

    @Test
    void plainAndTlsOnTheWrongPortFailCleanly()
    {
        final long start = System.nanoTime();
        final IOException plainToTls = assertThrows(IOException.class, () -> E2e.connect(selfSigned.port(),
            adminKey(selfSigned), new Recorder("admin"), c -> c.connectTimeout(FAST)));
        assertEquals("connection closed by the gateway before it answered the Login (if the gateway uses TLS, connect " +
            "with TLS)", plainToTls.getMessage());
        assertTrue(System.nanoTime() - start < Duration.ofMillis(1500).toNanos(), "closed at once, not after a grace period");

        final IOException tlsToPlain = assertThrows(IOException.class, () -> E2e.connect(plain.port(), adminKey(plain),
            new Recorder("admin"), c -> c.tlsFingerprint(selfSignedTls.fingerprint()).connectTimeout(FAST)));
        assertEquals("TLS handshake failed: the gateway did not answer in TLS (is it a plain TCP port?)",
            tlsToPlain.getMessage());
    }

    @Test
    void settingsAreCheckedBeforeConnecting()
    {
        final ClientContext both = new ClientContext().port(1).keyId(1).secretHex("00".repeat(32))
            .tlsCaFile(caFile).tlsFingerprint(selfSignedTls.fingerprint());
        assertEquals("verify the gateway by a CA file or by a pinned fingerprint, not both",
            assertThrows(IllegalArgumentException.class, both::conclude).getMessage());
        final ClientContext malformed = new ClientContext().port(1).keyId(1).secretHex("00".repeat(32))
            .tlsFingerprint("SHA256:AB:CD");
        assertEquals("a TLS fingerprint is SHA256: and the 32 bytes of the certificate's SHA-256 in hex (AB:CD:...), " +
            "not 'SHA256:AB:CD'", assertThrows(IllegalArgumentException.class, malformed::conclude).getMessage());
        final ClientContext missing = new ClientContext().port(1).keyId(1).secretHex("00".repeat(32))
            .tlsCaFile(dir.resolve("no-such-ca.pem"));
        assertEquals("TLS CA file " + dir.resolve("no-such-ca.pem") + " does not exist",
            assertThrows(IllegalArgumentException.class, missing::conclude).getMessage());
        assertFalse(new ClientContext().tls(), "plain TCP unless asked");
        assertTrue(new ClientContext().tlsCaFile(caFile).tls());
    }

    private static E2e.Key adminKey(final Exchange exchange)
    {
        return new E2e.Key(exchange.bootstrapKey().keyId(), exchange.bootstrapKey().secret());
    }

    /** A bare TLS listener on 127.0.0.1 serving {@code certificate}: no gateway behind it, only the handshake. */
    private static SSLServerSocket tlsListener(final Certificates.Issued certificate) throws Exception
    {
        final KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry("gateway", certificate.keys().getPrivate(), new char[0],
            new Certificate[] {certificate.certificate(), ca.certificate()});
        final KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, new char[0]);
        final SSLContext context = SSLContext.getInstance("TLS");
        context.init(kmf.getKeyManagers(), null, null);
        return (SSLServerSocket)context.getServerSocketFactory().createServerSocket(0, 1, InetAddress.getLoopbackAddress());
    }

    private static Thread handshakeOnce(final SSLServerSocket server)
    {
        final Thread t = new Thread(() ->
        {
            try (SSLSocket socket = (SSLSocket)server.accept())
            {
                socket.setSoTimeout((int)FAST.toMillis());
                socket.startHandshake();
            }
            catch (final IOException expected)
            {
                // the client refuses the certificate
            }
        }, "tls-listener");
        t.setDaemon(true);
        t.start();
        return t;
    }
}
