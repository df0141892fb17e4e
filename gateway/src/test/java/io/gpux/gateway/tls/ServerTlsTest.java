package io.gpux.gateway.tls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslHandler;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.bouncycastle.asn1.sec.ECPrivateKey;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.util.io.pem.PemObject;
import org.bouncycastle.util.io.pem.PemWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** The gateway's certificates: made, kept, read back, refused with a reason; the protocols offered. */
class ServerTlsTest
{
    private static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");

    @TempDir
    Path dir;

    @Test
    @DisabledOnOs(OS.WINDOWS)
    void selfSignedIsMadeOnceThenKept() throws Exception
    {
        final ServerTls first = ServerTls.selfSigned(dir, List.of("localhost", "127.0.0.1", "::1", "gpu.example"), NOW);
        assertTrue(first.madeNow());
        final Path key = dir.resolve("tls").resolve(ServerTls.SELF_SIGNED_KEY);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key)));
        assertTrue(Files.readString(key).startsWith("-----BEGIN PRIVATE KEY-----"), "PKCS#8");
        assertEquals(dir.resolve("tls").resolve(ServerTls.SELF_SIGNED_CERT), first.certificateFile());
        assertTrue(first.fingerprint().matches("SHA256:([0-9A-F]{2}:){31}[0-9A-F]{2}"), first.fingerprint());

        final X509Certificate cert = first.certificate();
        assertEquals(cert.getIssuerX500Principal(), cert.getSubjectX500Principal(), "self-signed");
        cert.verify(cert.getPublicKey());
        final Set<String> names = new TreeSet<>();
        cert.getSubjectAlternativeNames().forEach(n -> names.add(n.get(1).toString()));
        assertTrue(names.containsAll(Set.of("localhost", "127.0.0.1", "gpu.example")), names.toString());
        assertEquals(-1, cert.getBasicConstraints(), "not a CA");
        cert.checkValidity(java.util.Date.from(NOW.plus(Duration.ofDays(3000))));

        final ServerTls again = ServerTls.selfSigned(dir, List.of("localhost"), NOW.plus(Duration.ofDays(1)));
        assertFalse(again.madeNow());
        assertEquals(first.fingerprint(), again.fingerprint(), "the same certificate on every later start");

        Files.delete(key);
        final ServerTls remade = ServerTls.selfSigned(dir, List.of("localhost"), NOW);
        assertTrue(remade.madeNow(), "a lost key means a new certificate");
        assertNotEquals(first.fingerprint(), remade.fingerprint());
    }

    @Test
    void pemFilesOfACaSignedCertificate() throws Exception
    {
        final Certificates.Issued ca = Certificates.selfSigned("test CA", List.of(), true, NOW, Duration.ofDays(1));
        final Certificates.Issued leaf = Certificates.issue(ca, "gateway", List.of("127.0.0.1"), false, NOW, Duration.ofDays(1));
        leaf.certificate().verify(ca.keys().getPublic());
        final Path certFile = dir.resolve("cert.pem");
        final Path keyFile = dir.resolve("key.pem");
        Certificates.writeCertificate(leaf.certificate(), certFile);
        Certificates.writePrivateKey(leaf.keys(), keyFile);

        final ServerTls tls = ServerTls.fromPem(certFile, keyFile);
        assertArrayEquals(leaf.certificate().getEncoded(), tls.certificate().getEncoded());
        assertEquals(Certificates.fingerprint(leaf.certificate()), tls.fingerprint());
        assertFalse(tls.madeNow());

        // the same key in SEC1 form, with its curve and public key (what openssl ecparam -genkey writes)
        final SubjectPublicKeyInfo publicKey = SubjectPublicKeyInfo.getInstance(leaf.keys().getPublic().getEncoded());
        final ECPrivateKey sec1Key = new ECPrivateKey(256, ((java.security.interfaces.ECPrivateKey)leaf.keys().getPrivate())
            .getS(), publicKey.getPublicKeyData(), publicKey.getAlgorithm().getParameters());
        final StringWriter sec1 = new StringWriter();
        try (PemWriter writer = new PemWriter(sec1))
        {
            writer.writeObject(new PemObject("EC PRIVATE KEY", sec1Key.getEncoded()));
        }
        final Path sec1File = Files.writeString(dir.resolve("key-sec1.pem"), sec1.toString());
        assertEquals(tls.fingerprint(), ServerTls.fromPem(certFile, sec1File).fingerprint());

        final SslHandler handler = tls.newHandler(ByteBufAllocator.DEFAULT);
        assertFalse(handler.engine().getUseClientMode());
        assertEquals(Set.of("TLSv1.3", "TLSv1.2"), Set.of(handler.engine().getEnabledProtocols()), "nothing older");
    }

    @Test
    void badFilesAreRefusedWithOneLine() throws Exception
    {
        final Certificates.Issued self = Certificates.selfSigned("x", List.of("localhost"), false, NOW, Duration.ofDays(1));
        final Path certFile = dir.resolve("cert.pem");
        Certificates.writeCertificate(self.certificate(), certFile);
        final Path keyFile = dir.resolve("key.pem");
        Certificates.writePrivateKey(self.keys(), keyFile);

        assertMessage("TLS certificate file " + dir.resolve("missing.pem") + " does not exist",
            () -> ServerTls.fromPem(dir.resolve("missing.pem"), keyFile));
        assertMessage("TLS key file " + dir.resolve("missing.key") + " does not exist",
            () -> ServerTls.fromPem(certFile, dir.resolve("missing.key")));

        final Path garbage = Files.writeString(dir.resolve("garbage.pem"), "not a certificate\n");
        final String notPem = assertThrows(IOException.class, () -> ServerTls.fromPem(garbage, keyFile)).getMessage();
        assertTrue(notPem.startsWith("TLS certificate file " + garbage), notPem);

        assertMessage("TLS key file " + garbage + " holds no unencrypted private key (PEM: BEGIN PRIVATE KEY, " +
            "BEGIN RSA PRIVATE KEY or BEGIN EC PRIVATE KEY)", () -> ServerTls.fromPem(certFile, garbage));

        final Certificates.Issued other = Certificates.selfSigned("y", List.of("localhost"), false, NOW, Duration.ofDays(1));
        final Path otherKey = dir.resolve("other.key");
        Certificates.writePrivateKey(other.keys(), otherKey);
        assertMessage("TLS key file " + otherKey + " does not hold the key of the certificate in " + certFile,
            () -> ServerTls.fromPem(certFile, otherKey));
    }

    private static void assertMessage(final String expected, final org.junit.jupiter.api.function.Executable call)
    {
        assertEquals(expected, assertThrows(IOException.class, call).getMessage());
    }
}
