package io.gpux.gateway.tls;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HexFormat;
import java.util.List;

/**
 * X.509 certificates for the gateway's TLS, made with BouncyCastle: an EC P-256 key, a certificate
 * for a list of DNS names and IP addresses (its subject alternative names), self-signed or signed by
 * an issuer, written as PEM; and the SHA-256 fingerprint that clients pin.
 */
public final class Certificates
{
    /** The prefix of a fingerprint as {@link #fingerprint} writes it and clients accept it. */
    public static final String FINGERPRINT_PREFIX = "SHA256:";

    private static final String SIGNATURE = "SHA256withECDSA";

    private Certificates()
    {
    }

    /** A certificate and the key pair whose public half it certifies. */
    public record Issued(X509Certificate certificate, KeyPair keys)
    {
    }

    /**
     * A self-signed certificate for {@code names} (DNS names or IP addresses), valid from a minute
     * before {@code now} for {@code validity}.
     *
     * @param ca whether it may sign other certificates (a certificate authority's).
     */
    public static Issued selfSigned(final String commonName, final List<String> names, final boolean ca,
        final Instant now, final Duration validity) throws GeneralSecurityException
    {
        final KeyPair keys = newKeyPair();
        return new Issued(build(commonName, names, ca, now, validity, keys, null), keys);
    }

    /** A certificate for {@code names} signed by {@code issuer}. */
    public static Issued issue(final Issued issuer, final String commonName, final List<String> names, final boolean ca,
        final Instant now, final Duration validity) throws GeneralSecurityException
    {
        final KeyPair keys = newKeyPair();
        return new Issued(build(commonName, names, ca, now, validity, keys, issuer), keys);
    }

    /** {@code SHA256:} and the SHA-256 of the certificate's DER encoding, as colon-separated upper-case hex. */
    public static String fingerprint(final X509Certificate certificate)
    {
        try
        {
            final byte[] digest = MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded());
            return FINGERPRINT_PREFIX + HexFormat.ofDelimiter(":").withUpperCase().formatHex(digest);
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("cannot fingerprint the certificate: " + ex.getMessage(), ex);
        }
    }

    /** Writes the certificate as PEM ({@code BEGIN CERTIFICATE}), replacing the file atomically. */
    public static void writeCertificate(final X509Certificate certificate, final Path file) throws IOException
    {
        write(file, pem(certificate), false);
    }

    /** Writes the private key as unencrypted PKCS#8 PEM ({@code BEGIN PRIVATE KEY}), readable by its owner only. */
    public static void writePrivateKey(final KeyPair keys, final Path file) throws IOException
    {
        write(file, pem(new JcaPKCS8Generator(keys.getPrivate(), null)), true);
    }

    private static KeyPair newKeyPair() throws GeneralSecurityException
    {
        final KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"), new SecureRandom());
        return generator.generateKeyPair();
    }

    private static X509Certificate build(final String commonName, final List<String> names, final boolean ca,
        final Instant now, final Duration validity, final KeyPair keys, final Issued issuer) throws GeneralSecurityException
    {
        final X500Name subject = new X500Name("CN=" + commonName);
        final X500Name issuerName = issuer == null ? subject
            : X500Name.getInstance(issuer.certificate().getSubjectX500Principal().getEncoded());
        final X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(issuerName,
            new BigInteger(127, new SecureRandom()), Date.from(now.minus(Duration.ofMinutes(1))),
            Date.from(now.plus(validity)), subject, keys.getPublic());
        try
        {
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(ca
                ? KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature
                : KeyUsage.digitalSignature));
            if (!names.isEmpty())
            {
                builder.addExtension(Extension.subjectAlternativeName, false, subjectAlternativeNames(names));
            }
            final KeyPair signer = issuer == null ? keys : issuer.keys();
            return new JcaX509CertificateConverter().getCertificate(
                builder.build(new JcaContentSignerBuilder(SIGNATURE).build(signer.getPrivate())));
        }
        catch (final IOException | OperatorCreationException ex)
        {
            throw new GeneralSecurityException("cannot make the certificate: " + ex.getMessage(), ex);
        }
    }

    private static GeneralNames subjectAlternativeNames(final List<String> names)
    {
        final GeneralName[] general = new GeneralName[names.size()];
        for (int i = 0; i < general.length; i++)
        {
            final String name = names.get(i);
            general[i] = isIpAddress(name)
                ? new GeneralName(GeneralName.iPAddress, name)
                : new GeneralName(GeneralName.dNSName, name);
        }
        return new GeneralNames(general);
    }

    /** An IPv4 or IPv6 literal (checked without a name lookup). */
    static boolean isIpAddress(final String name)
    {
        if (name.indexOf(':') >= 0)
        {
            return true;
        }
        if (!name.matches("[0-9.]+"))
        {
            return false;
        }
        try
        {
            InetAddress.getByName(name);
            return true;
        }
        catch (final UnknownHostException ex)
        {
            return false;
        }
    }

    private static String pem(final Object object) throws IOException
    {
        final StringWriter text = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(text))
        {
            writer.writeObject(object);
        }
        return text.toString();
    }

    private static void write(final Path file, final String text, final boolean ownerOnly) throws IOException
    {
        final Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        Files.createFile(tmp);
        if (ownerOnly)
        {
            try
            {
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
            }
            catch (final UnsupportedOperationException ignored)
            {
                // not POSIX: the directory's default permissions
            }
        }
        Files.writeString(tmp, text);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
