package io.gpux.client;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The Login signature of the wire protocol ({@code Login} in gpux.proto):
 *
 * <pre>
 *   payload   = UTF-8 of "GPUX1\n" + keyId (unsigned decimal) + "\n" + timestampMs (decimal) + "\n"
 *               + nonce (lowercase hex)
 *   signature = HMAC-SHA256(secret, payload)          secret: the key's 32 bytes
 * </pre>
 *
 * A key's secret is handed to users as 64 hex digits ({@link #parseSecret(String)}).
 */
public final class LoginSigner
{
    /** Bytes in a key's secret. */
    public static final int SECRET_BYTES = 32;
    /** Bytes of random nonce the client sends (the protocol allows 16 to 64). */
    public static final int NONCE_BYTES = 16;
    private static final String HMAC = "HmacSHA256";
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private LoginSigner()
    {
    }

    /** The exact text that is signed. */
    public static String payload(final long keyId, final long timestampMs, final byte[] nonce)
    {
        return "GPUX1\n" + Long.toUnsignedString(keyId) + "\n" + timestampMs + "\n" + toHex(nonce);
    }

    /** {@code HMAC-SHA256(secret, utf8(payload(keyId, timestampMs, nonce)))}: 32 bytes. */
    public static byte[] sign(final byte[] secret, final long keyId, final long timestampMs, final byte[] nonce)
    {
        try
        {
            final Mac mac = Mac.getInstance(HMAC);
            mac.init(new SecretKeySpec(secret, HMAC));
            return mac.doFinal(payload(keyId, timestampMs, nonce).getBytes(StandardCharsets.UTF_8));
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("HMAC-SHA256 is not available", ex);
        }
    }

    /**
     * A key's secret from its 64 hex digits (either case).
     *
     * @throws IllegalArgumentException if it is not 64 hex digits.
     */
    public static byte[] parseSecret(final String hex)
    {
        if (hex == null || hex.length() != SECRET_BYTES * 2)
        {
            throw new IllegalArgumentException("a key secret is 64 hex digits");
        }
        final byte[] secret = new byte[SECRET_BYTES];
        for (int i = 0; i < SECRET_BYTES; i++)
        {
            secret[i] = (byte)((hexDigit(hex, 2 * i) << 4) | hexDigit(hex, 2 * i + 1));
        }
        return secret;
    }

    /** Lowercase hex of the bytes. */
    public static String toHex(final byte[] bytes)
    {
        final char[] out = new char[bytes.length * 2];
        for (int i = 0; i < bytes.length; i++)
        {
            out[2 * i] = HEX[(bytes[i] >> 4) & 0xF];
            out[2 * i + 1] = HEX[bytes[i] & 0xF];
        }
        return new String(out);
    }

    private static int hexDigit(final String hex, final int index)
    {
        final char c = hex.charAt(index);
        if (c >= '0' && c <= '9')
        {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f')
        {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F')
        {
            return c - 'A' + 10;
        }
        throw new IllegalArgumentException("a key secret is 64 hex digits");
    }
}
