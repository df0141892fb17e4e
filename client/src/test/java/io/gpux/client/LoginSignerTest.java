package io.gpux.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/**
 * The Login signature against a fixed vector.
 *
 * <p>Vector: secret = bytes 0x00..0x1f (hex "000102...1f"), key id 42, timestamp 1732924800000 ms,
 * nonce = bytes 0xa0..0xaf. The signed payload is the UTF-8 text
 * {@code "GPUX1\n42\n1732924800000\na0a1a2a3a4a5a6a7a8a9aaabacadaeaf"}. The expected MAC was computed
 * outside Java (Python's hmac/hashlib) and is checked again here with javax.crypto over the literal
 * payload, independently of LoginSigner's own payload building.
 */
class LoginSignerTest
{
    private static final String SECRET_HEX = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
    private static final long KEY_ID = 42;
    private static final long TIMESTAMP_MS = 1_732_924_800_000L;
    private static final String PAYLOAD = "GPUX1\n42\n1732924800000\na0a1a2a3a4a5a6a7a8a9aaabacadaeaf";
    private static final String EXPECTED_HEX = "5c48a57bd8f35e308cf53c127086692294655d680537da29e933f70f53e26f91";

    private static byte[] nonce()
    {
        final byte[] nonce = new byte[16];
        for (int i = 0; i < nonce.length; i++)
        {
            nonce[i] = (byte)(0xa0 + i);
        }
        return nonce;
    }

    private static byte[] secret()
    {
        final byte[] secret = new byte[32];
        for (int i = 0; i < secret.length; i++)
        {
            secret[i] = (byte)i;
        }
        return secret;
    }

    @Test
    void payloadIsTheDocumentedText()
    {
        assertEquals(PAYLOAD, LoginSigner.payload(KEY_ID, TIMESTAMP_MS, nonce()));
    }

    @Test
    void signatureMatchesTheFixedVector() throws Exception
    {
        final Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret(), "HmacSHA256"));
        final byte[] independent = mac.doFinal(PAYLOAD.getBytes(StandardCharsets.UTF_8));
        assertEquals(EXPECTED_HEX, LoginSigner.toHex(independent));

        final byte[] signed = LoginSigner.sign(LoginSigner.parseSecret(SECRET_HEX), KEY_ID, TIMESTAMP_MS, nonce());
        assertEquals(32, signed.length);
        assertArrayEquals(independent, signed);
    }

    @Test
    void keyIdIsWrittenUnsigned()
    {
        // key ids are uint64 on the wire: the top bit set must not print as a negative number
        final String payload = LoginSigner.payload(-1L, TIMESTAMP_MS, nonce());
        assertEquals("GPUX1\n18446744073709551615\n1732924800000\na0a1a2a3a4a5a6a7a8a9aaabacadaeaf", payload);
        assertEquals("93533224c49d50bb9fcf93de969cc528d890ce1f2a967f4a8f1b4593d4acaeb2",
            LoginSigner.toHex(LoginSigner.sign(secret(), -1L, TIMESTAMP_MS, nonce())));
    }

    @Test
    void secretParsesEitherCase()
    {
        assertArrayEquals(secret(), LoginSigner.parseSecret(SECRET_HEX));
        assertArrayEquals(secret(), LoginSigner.parseSecret(SECRET_HEX.toUpperCase()));
    }

    @Test
    void badSecretsAreRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> LoginSigner.parseSecret(null));
        assertThrows(IllegalArgumentException.class, () -> LoginSigner.parseSecret(SECRET_HEX.substring(2)));
        assertThrows(IllegalArgumentException.class, () -> LoginSigner.parseSecret(SECRET_HEX + "00"));
        assertThrows(IllegalArgumentException.class, () -> LoginSigner.parseSecret("g" + SECRET_HEX.substring(1)));
        // a non-ASCII digit that Character.digit would accept
        assertThrows(IllegalArgumentException.class, () -> LoginSigner.parseSecret("\uff11" + SECRET_HEX.substring(1)));
    }
}
