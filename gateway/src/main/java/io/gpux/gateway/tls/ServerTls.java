package io.gpux.gateway.tls;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;

import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The gateway's side of TLS: its certificate and key, and a Netty {@link SslHandler} per connection
 * speaking TLS 1.3 or 1.2 only. From PEM files ({@link #fromPem}), or a self-signed certificate kept
 * in the data directory ({@link #selfSigned}) for trying the exchange out over a network: clients
 * then pin its {@link #fingerprint()}.
 */
public final class ServerTls
{
    /** The protocol versions offered; older ones are refused. */
    public static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};
    /** Where {@link #selfSigned} keeps its certificate and key, under the data directory. */
    public static final String SELF_SIGNED_DIR = "tls";
    public static final String SELF_SIGNED_CERT = "self-signed-cert.pem";
    public static final String SELF_SIGNED_KEY = "self-signed-key.pem";
    /** A self-signed certificate is pinned by its fingerprint, so it may live long: a new one means new pins. */
    static final Duration SELF_SIGNED_VALIDITY = Duration.ofDays(3650);

    private final SslContext context;
    private final X509Certificate certificate;
    private final Path certificateFile;
    private final boolean madeNow;

    private ServerTls(final SslContext context, final X509Certificate certificate, final Path certificateFile,
        final boolean madeNow)
    {
        this.context = context;
        this.certificate = certificate;
        this.certificateFile = certificateFile;
        this.madeNow = madeNow;
    }

    /**
     * The certificate (its chain: the server's first, then any intermediates) and its private key
     * (PKCS#8, PKCS#1 or SEC1), both PEM.
     *
     * @throws IOException with a one-line reason when a file is missing or not what it should be.
     */
    public static ServerTls fromPem(final Path certificateFile, final Path keyFile) throws IOException
    {
        return load(certificateFile, keyFile, false);
    }

    /**
     * The self-signed certificate kept in {@code dataDir/tls/}, made (for {@code names}: DNS names and
     * IP addresses) when there is none yet; the same certificate, and so the same fingerprint, on every
     * later start.
     */
    public static ServerTls selfSigned(final Path dataDir, final List<String> names, final Instant now) throws IOException
    {
        final Path dir = dataDir.resolve(SELF_SIGNED_DIR);
        final Path certificateFile = dir.resolve(SELF_SIGNED_CERT);
        final Path keyFile = dir.resolve(SELF_SIGNED_KEY);
        final boolean make = !Files.exists(certificateFile) || !Files.exists(keyFile);
        if (make)
        {
            Files.createDirectories(dir);
            final Certificates.Issued issued;
            try
            {
                issued = Certificates.selfSigned("gpux exchange (self-signed)", names, false, now, SELF_SIGNED_VALIDITY);
            }
            catch (final GeneralSecurityException ex)
            {
                throw new IOException("cannot make a self-signed certificate: " + ex.getMessage(), ex);
            }
            Certificates.writePrivateKey(issued.keys(), keyFile);
            Certificates.writeCertificate(issued.certificate(), certificateFile);
        }
        return load(certificateFile, keyFile, make);
    }

    private static ServerTls load(final Path certificateFile, final Path keyFile, final boolean madeNow) throws IOException
    {
        final List<X509Certificate> chain = readCertificates(certificateFile);
        final PrivateKey key = readPrivateKey(keyFile);
        if (!matches(key, chain.get(0).getPublicKey()))
        {
            throw new IOException("TLS key file " + keyFile + " does not hold the key of the certificate in " + certificateFile);
        }
        final SslContext context;
        try
        {
            context = SslContextBuilder.forServer(key, chain).protocols(PROTOCOLS).build();
        }
        catch (final IOException | IllegalArgumentException ex)
        {
            throw new IOException("TLS key file " + keyFile + " or certificate " + certificateFile + " cannot be used: "
                + ex.getMessage(), ex);
        }
        return new ServerTls(context, chain.get(0), certificateFile, madeNow);
    }

    /** An unencrypted private key in PEM: PKCS#8 ({@code PRIVATE KEY}), PKCS#1 ({@code RSA PRIVATE KEY}) or SEC1 ({@code EC PRIVATE KEY}). */
    static PrivateKey readPrivateKey(final Path file) throws IOException
    {
        final Object object;
        try (PEMParser parser = new PEMParser(Files.newBufferedReader(file, StandardCharsets.US_ASCII)))
        {
            object = parser.readObject();
        }
        catch (final NoSuchFileException ex)
        {
            throw new IOException("TLS key file " + file + " does not exist");
        }
        catch (final IOException | IllegalArgumentException ex)
        {
            throw new IOException("TLS key file " + file + " is not a PEM private key: " + ex.getMessage(), ex);
        }
        final JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
        try
        {
            if (object instanceof PEMKeyPair pair)
            {
                return converter.getPrivateKey(pair.getPrivateKeyInfo());
            }
            if (object instanceof PrivateKeyInfo info)
            {
                return converter.getPrivateKey(info);
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            throw new IOException("TLS key file " + file + " holds a key that cannot be used: " + ex.getMessage(), ex);
        }
        throw new IOException("TLS key file " + file + " holds no unencrypted private key (PEM: BEGIN PRIVATE KEY, " +
            "BEGIN RSA PRIVATE KEY or BEGIN EC PRIVATE KEY)");
    }

    /** Whether the private key is the public key's other half: what one signs, the other verifies. */
    private static boolean matches(final PrivateKey key, final PublicKey publicKey)
    {
        final String algorithm = switch (key.getAlgorithm())
        {
            case "EC", "ECDSA" -> "SHA256withECDSA";
            case "RSA" -> "SHA256withRSA";
            case "Ed25519", "Ed448", "EdDSA" -> key.getAlgorithm();
            default -> null;
        };
        if (algorithm == null || !key.getAlgorithm().equals(publicKey.getAlgorithm()))
        {
            return algorithm == null;
        }
        try
        {
            final byte[] probe = "gpux: does the key fit the certificate".getBytes(StandardCharsets.US_ASCII);
            final Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            final byte[] signature = signer.sign();
            final Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(publicKey);
            verifier.update(probe);
            return verifier.verify(signature);
        }
        catch (final GeneralSecurityException ex)
        {
            return false;
        }
    }

    /** The certificates of a PEM file, the first one first; a one-line IOException if there are none. */
    public static List<X509Certificate> readCertificates(final Path file) throws IOException
    {
        final Collection<? extends Certificate> read;
        try (InputStream in = Files.newInputStream(file))
        {
            read = CertificateFactory.getInstance("X.509").generateCertificates(in);
        }
        catch (final NoSuchFileException ex)
        {
            throw new IOException("TLS certificate file " + file + " does not exist");
        }
        catch (final CertificateException ex)
        {
            throw new IOException("TLS certificate file " + file + " is not a PEM certificate: " + ex.getMessage(), ex);
        }
        final List<X509Certificate> certificates = new ArrayList<>();
        for (final Certificate c : read)
        {
            certificates.add((X509Certificate)c);
        }
        if (certificates.isEmpty())
        {
            throw new IOException("TLS certificate file " + file + " holds no certificate");
        }
        return certificates;
    }

    /** The handler that goes first in a connection's pipeline. */
    public SslHandler newHandler(final ByteBufAllocator allocator)
    {
        return context.newHandler(allocator);
    }

    /** The server's own certificate (the first of its chain). */
    public X509Certificate certificate()
    {
        return certificate;
    }

    public Path certificateFile()
    {
        return certificateFile;
    }

    /** {@code SHA256:AB:CD:...}: what a client gives to pin this certificate. */
    public String fingerprint()
    {
        return Certificates.fingerprint(certificate);
    }

    /** Whether {@link #selfSigned} made the certificate at this start (rather than finding it). */
    public boolean madeNow()
    {
        return madeNow;
    }
}
