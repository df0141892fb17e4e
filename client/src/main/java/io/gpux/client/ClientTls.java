package io.gpux.client;

import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.Locale;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The client's side of TLS (TLS 1.3 or 1.2), verifying the gateway in one of three ways: by the
 * JVM's trusted certificate authorities, by the CA certificates of a PEM file (both with the standard
 * chain and host name checks), or by the pinned SHA-256 fingerprint of the gateway's own certificate
 * (what a self-signed gateway prints at start).
 */
final class ClientTls
{
    /** How a fingerprint is written: this prefix, then 32 bytes of hex, colon-separated or not. */
    static final String FINGERPRINT_PREFIX = "SHA256:";
    private static final HexFormat FINGERPRINT_HEX = HexFormat.ofDelimiter(":").withUpperCase();
    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private ClientTls()
    {
    }

    /**
     * The context for the client's settings; null when TLS is off (no CA file, no fingerprint, not asked).
     *
     * @throws IllegalArgumentException with a one-line reason: both a CA file and a fingerprint, a
     *                                  malformed fingerprint, an unreadable CA file.
     */
    static SslContext context(final boolean tls, final Path caFile, final String fingerprint)
    {
        if (caFile != null && fingerprint != null)
        {
            throw new IllegalArgumentException("verify the gateway by a CA file or by a pinned fingerprint, not both");
        }
        if (!tls && caFile == null && fingerprint == null)
        {
            return null;
        }
        final SslContextBuilder builder = SslContextBuilder.forClient().protocols(PROTOCOLS);
        if (fingerprint != null)
        {
            // the pin names the one certificate to accept: no chain, no host name to check
            builder.trustManager(new PinnedCertificate(parseFingerprint(fingerprint))).endpointIdentificationAlgorithm(null);
        }
        else
        {
            if (caFile != null)
            {
                if (!Files.isReadable(caFile))
                {
                    throw new IllegalArgumentException("TLS CA file " + caFile +
                        (Files.exists(caFile) ? " is not readable" : " does not exist"));
                }
                builder.trustManager(caFile.toFile());
            }
            builder.endpointIdentificationAlgorithm("HTTPS");
        }
        try
        {
            return builder.build();
        }
        catch (final SSLException | IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("TLS CA file " + caFile + " cannot be used: " + ex.getMessage(), ex);
        }
    }

    /** The 32 bytes of {@code SHA256:AB:CD:...} (the prefix optional, colons optional, any case). */
    static byte[] parseFingerprint(final String text)
    {
        String hex = text.trim();
        if (hex.regionMatches(true, 0, FINGERPRINT_PREFIX, 0, FINGERPRINT_PREFIX.length()))
        {
            hex = hex.substring(FINGERPRINT_PREFIX.length());
        }
        hex = hex.replace(":", "").toLowerCase(Locale.ROOT);
        if (hex.length() != 64 || !hex.chars().allMatch(c -> Character.digit(c, 16) >= 0))
        {
            throw new IllegalArgumentException("a TLS fingerprint is " + FINGERPRINT_PREFIX +
                " and the 32 bytes of the certificate's SHA-256 in hex (AB:CD:...), not '" + text.trim() + "'");
        }
        return HexFormat.of().parseHex(hex);
    }

    static String formatFingerprint(final byte[] digest)
    {
        return FINGERPRINT_PREFIX + FINGERPRINT_HEX.formatHex(digest);
    }

    /**
     * One line for a failed TLS connection, or null if {@code cause} has nothing to do with TLS: the
     * innermost reason (a fingerprint or host name mismatch says which), without exception class names.
     */
    static String describeFailure(final Throwable cause)
    {
        boolean tls = false;
        boolean untrustedChain = false;
        Throwable innermost = cause;
        for (Throwable t = cause; t != null; t = t.getCause())
        {
            if (t instanceof NotSslRecordException)
            {
                return "TLS handshake failed: the gateway did not answer in TLS (is it a plain TCP port?)";
            }
            tls |= t instanceof SSLException;
            untrustedChain |= t instanceof CertPathBuilderException || t instanceof CertPathValidatorException;
            innermost = t;
        }
        if (!tls)
        {
            return null;
        }
        if (untrustedChain)
        {
            return "TLS handshake failed: the gateway's certificate is not signed by a trusted CA (" +
                innermost.getMessage() + ")";
        }
        final String reason = innermost.getMessage();
        if (innermost instanceof CertificateException && reason != null &&
            (reason.startsWith("No subject alternative") || reason.startsWith("No name matching")))
        {
            return "TLS handshake failed: the gateway's certificate is not for the host connected to (" + reason + ")";
        }
        return "TLS handshake failed: " + reason;
    }

    /** Trusts exactly the certificate with the pinned SHA-256 fingerprint, as the gateway's own. */
    static final class PinnedCertificate extends X509ExtendedTrustManager
    {
        private final byte[] pinned;

        PinnedCertificate(final byte[] pinned)
        {
            this.pinned = pinned.clone();
        }

        @Override
        public void checkServerTrusted(final X509Certificate[] chain, final String authType) throws CertificateException
        {
            if (chain == null || chain.length == 0)
            {
                throw new CertificateException("the gateway sent no certificate");
            }
            final byte[] actual;
            try
            {
                actual = MessageDigest.getInstance("SHA-256").digest(chain[0].getEncoded());
            }
            catch (final GeneralSecurityException ex)
            {
                throw new CertificateException("cannot fingerprint the gateway's certificate: " + ex.getMessage(), ex);
            }
            if (!MessageDigest.isEqual(actual, pinned))
            {
                throw new CertificateException("server certificate fingerprint " + formatFingerprint(actual) +
                    " does not match the pinned " + formatFingerprint(pinned));
            }
        }

        @Override
        public void checkServerTrusted(final X509Certificate[] chain, final String authType, final Socket socket)
            throws CertificateException
        {
            checkServerTrusted(chain, authType);
        }

        @Override
        public void checkServerTrusted(final X509Certificate[] chain, final String authType, final SSLEngine engine)
            throws CertificateException
        {
            checkServerTrusted(chain, authType);
        }

        @Override
        public void checkClientTrusted(final X509Certificate[] chain, final String authType) throws CertificateException
        {
            throw new CertificateException("a client does not check client certificates");
        }

        @Override
        public void checkClientTrusted(final X509Certificate[] chain, final String authType, final Socket socket)
            throws CertificateException
        {
            checkClientTrusted(chain, authType);
        }

        @Override
        public void checkClientTrusted(final X509Certificate[] chain, final String authType, final SSLEngine engine)
            throws CertificateException
        {
            checkClientTrusted(chain, authType);
        }

        @Override
        public X509Certificate[] getAcceptedIssuers()
        {
            return new X509Certificate[0];
        }
    }
}
