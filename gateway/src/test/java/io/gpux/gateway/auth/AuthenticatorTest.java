package io.gpux.gateway.auth;

import com.google.protobuf.ByteString;
import io.gpux.gateway.directory.Directory;
import io.gpux.proto.v1.Login;
import io.gpux.proto.v1.SessionErrorCode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Login signatures (docs/protocol.md, "Session life cycle"). The vector below is the one a port of
 * the client to another language can check itself against: its expected signature was computed
 * outside Java (Python's hmac module) and is checked here against the gateway's signer and against
 * javax.crypto applied to the payload spelled out by hand.
 */
class AuthenticatorTest
{
    private static final HexFormat HEX = HexFormat.of();

    /** The test vector: key 2, 2025-11-30T05:20:00Z, a 16-byte nonce, the secret 00 01 02 .. 1f. */
    static final long VECTOR_KEY_ID = 2;
    static final long VECTOR_TIMESTAMP_MS = 1_764_480_000_000L;
    static final String VECTOR_NONCE_HEX = "f0e1d2c3b4a5968778695a4b3c2d1e0f";
    static final String VECTOR_SECRET_HEX = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
    static final String VECTOR_PAYLOAD = "GPUX1\n2\n1764480000000\nf0e1d2c3b4a5968778695a4b3c2d1e0f";
    static final String VECTOR_SIGNATURE_HEX = "db8ead7276b349cef88aad0c907261c365cb6a5907ba0e16a0a3fd11faf3ba72";

    private static final long WINDOW_MS = 30_000;
    private static final long NOW = VECTOR_TIMESTAMP_MS;
    private static final long ACCOUNT = 42;

    private final byte[] masterKey = new byte[32];
    private Directory directory;
    private Authenticator authenticator;
    private long keyId;
    private byte[] secret;
    private int nonceCounter;

    @BeforeEach
    void setUp()
    {
        for (int i = 0; i < masterKey.length; i++)
        {
            masterKey[i] = (byte)(32 + i);
        }
        directory = new Directory();
        authenticator = new Authenticator(masterKey, directory, WINDOW_MS);
        keyId = directory.newKeyId();
        directory.keyAdded(keyId, ACCOUNT);
        secret = HEX.parseHex(authenticator.secretHex(keyId));
    }

    static byte[] hmacSha256(final byte[] key, final byte[] data) throws Exception
    {
        final Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(data);
    }

    private byte[] freshNonce(final int length)
    {
        final byte[] nonce = new byte[length];
        Arrays.fill(nonce, (byte)0x5a);
        nonceCounter++;
        nonce[0] = (byte)nonceCounter;
        nonce[1] = (byte)(nonceCounter >> 8);
        return nonce;
    }

    private Login login(final long key, final byte[] keySecret, final long timestampMs, final byte[] nonce)
    {
        return Login.newBuilder().setKeyId(key).setTimestampMs(timestampMs).setNonce(ByteString.copyFrom(nonce))
            .setSignature(ByteString.copyFrom(Authenticator.sign(keySecret, key, timestampMs, nonce))).build();
    }

    private Login login(final long timestampMs)
    {
        return login(keyId, secret, timestampMs, freshNonce(16));
    }

    @Test
    void theTestVectorSignsAsTheProtocolSays() throws Exception
    {
        final byte[] nonce = HEX.parseHex(VECTOR_NONCE_HEX);
        final byte[] payload = Authenticator.payload(VECTOR_KEY_ID, VECTOR_TIMESTAMP_MS, nonce);
        assertEquals(VECTOR_PAYLOAD, new String(payload, StandardCharsets.UTF_8));

        final byte[] byHand = hmacSha256(HEX.parseHex(VECTOR_SECRET_HEX), VECTOR_PAYLOAD.getBytes(StandardCharsets.UTF_8));
        assertEquals(VECTOR_SIGNATURE_HEX, HEX.formatHex(byHand), "javax.crypto over the payload written out by hand");
        assertEquals(VECTOR_SIGNATURE_HEX, HEX.formatHex(
            Authenticator.sign(HEX.parseHex(VECTOR_SECRET_HEX), VECTOR_KEY_ID, VECTOR_TIMESTAMP_MS, nonce)));
    }

    @Test
    void keyIdsAreWrittenUnsignedAndNoncesInLowercaseHex() throws Exception
    {
        final byte[] nonce = HEX.parseHex("ABCDEF0123456789ABCDEF0123456789");
        assertEquals("GPUX1\n18446744073709551615\n-5\nabcdef0123456789abcdef0123456789",
            new String(Authenticator.payload(-1L, -5, nonce), StandardCharsets.UTF_8));
        assertEquals("17c058e266a4157bf5469fae7024fe2b0b6fb7890c0d6ba1fec442ec352d70c8", HEX.formatHex(Authenticator.sign(
            HEX.parseHex(VECTOR_SECRET_HEX), -1L, VECTOR_TIMESTAMP_MS, HEX.parseHex(VECTOR_NONCE_HEX))));
    }

    @Test
    void aKeysSecretIsDerivedFromTheMasterKey() throws Exception
    {
        final Authenticator a = new Authenticator(masterKey, new Directory(), WINDOW_MS);
        assertEquals("b540e678b931c13c29525b3f92f90fcd5d3b3a2a21f70c3c79577bed2bdeb04c", a.secretHex(7));
        assertArrayEquals(hmacSha256(masterKey, "gpux-key:7".getBytes(StandardCharsets.UTF_8)), HEX.parseHex(a.secretHex(7)));
        final byte[] otherMaster = masterKey.clone();
        otherMaster[0] ^= 1;
        assertFalse(a.secretHex(7).equals(new Authenticator(otherMaster, new Directory(), WINDOW_MS).secretHex(7)));
    }

    @Test
    void aGoodLoginIsAccepted()
    {
        final Authenticator.Result r = authenticator.check(login(NOW), NOW);
        assertTrue(r.ok(), r::toString);
        assertEquals(ACCOUNT, r.accountId());
        assertNull(r.error());
    }

    @Test
    void aLoginIsRefusedForAWrongSignatureWhereverItDiffers()
    {
        final byte[] nonce = freshNonce(16);
        final byte[] good = Authenticator.sign(secret, keyId, NOW, nonce);
        for (final int at : new int[] {0, 15, 31})
        {
            final byte[] bad = good.clone();
            bad[at] ^= 0x01;
            final Login l = Login.newBuilder().setKeyId(keyId).setTimestampMs(NOW).setNonce(ByteString.copyFrom(nonce))
                .setSignature(ByteString.copyFrom(bad)).build();
            assertEquals(SessionErrorCode.AUTHENTICATION_FAILED, authenticator.check(l, NOW).error(), "byte " + at);
        }
        final Login truncated = Login.newBuilder().setKeyId(keyId).setTimestampMs(NOW).setNonce(ByteString.copyFrom(nonce))
            .setSignature(ByteString.copyFrom(good, 0, 31)).build();
        assertEquals(SessionErrorCode.AUTHENTICATION_FAILED, authenticator.check(truncated, NOW).error());
        // the bad attempts did not use the nonce up: the right signature still gets in
        assertTrue(authenticator.check(login(keyId, secret, NOW, nonce), NOW).ok());
    }

    @Test
    void aSignatureMadeWithAnotherKeysSecretIsRefused()
    {
        final long other = directory.newKeyId();
        directory.keyAdded(other, ACCOUNT + 1);
        assertEquals(SessionErrorCode.AUTHENTICATION_FAILED,
            authenticator.check(login(keyId, HEX.parseHex(authenticator.secretHex(other)), NOW, freshNonce(16)), NOW).error());
    }

    @Test
    void unknownAndRevokedKeysAreRefusedLikeABadSignature()
    {
        final long unknown = keyId + 100;
        final Authenticator.Result r = authenticator.check(
            login(unknown, HEX.parseHex(authenticator.secretHex(unknown)), NOW, freshNonce(16)), NOW);
        assertEquals(SessionErrorCode.AUTHENTICATION_FAILED, r.error());
        final String unknownMessage = r.message();

        directory.keyRevoked(keyId);
        final Authenticator.Result revoked = authenticator.check(login(NOW), NOW);
        assertEquals(SessionErrorCode.AUTHENTICATION_FAILED, revoked.error());
        final Authenticator.Result badSignature = authenticator.check(login(keyId, new byte[32], NOW, freshNonce(16)), NOW);
        assertEquals(unknownMessage, revoked.message(), "the answer does not tell an unknown key from a revoked one");
        assertEquals(unknownMessage, badSignature.message(), "nor from a bad signature");
    }

    @Test
    void staleTimestampsAreRefusedInBothDirections()
    {
        assertEquals(SessionErrorCode.STALE_TIMESTAMP, authenticator.check(login(NOW - WINDOW_MS - 1), NOW).error(), "past");
        assertEquals(SessionErrorCode.STALE_TIMESTAMP, authenticator.check(login(NOW + WINDOW_MS + 1), NOW).error(), "future");
        assertEquals(SessionErrorCode.STALE_TIMESTAMP, authenticator.check(login(Long.MIN_VALUE + 1), NOW).error());
        assertEquals(SessionErrorCode.STALE_TIMESTAMP, authenticator.check(login(Long.MAX_VALUE), NOW).error());
        assertTrue(authenticator.check(login(NOW - WINDOW_MS), NOW).ok(), "the edge of the window is inside it");
        assertTrue(authenticator.check(login(NOW + WINDOW_MS), NOW).ok());
    }

    @Test
    void aNonceCanBeUsedOnlyOnce()
    {
        final byte[] nonce = freshNonce(16);
        assertTrue(authenticator.check(login(keyId, secret, NOW, nonce), NOW).ok());
        assertEquals(SessionErrorCode.REPLAYED_NONCE, authenticator.check(login(keyId, secret, NOW, nonce), NOW + 1).error());
        assertEquals(SessionErrorCode.REPLAYED_NONCE,
            authenticator.check(login(keyId, secret, NOW + 5, nonce), NOW + 10).error(), "a new timestamp does not make it new");
        // once the window has passed, the replay is refused as stale instead
        assertEquals(SessionErrorCode.STALE_TIMESTAMP,
            authenticator.check(login(keyId, secret, NOW, nonce), NOW + 3 * WINDOW_MS).error());
        // the same nonce under another key is a different nonce
        final long other = directory.newKeyId();
        directory.keyAdded(other, ACCOUNT);
        assertTrue(authenticator.check(login(other, HEX.parseHex(authenticator.secretHex(other)), NOW, nonce), NOW).ok());
    }

    @Test
    void noncesMustBe16To64Bytes()
    {
        assertEquals(SessionErrorCode.AUTHENTICATION_FAILED, authenticator.check(login(keyId, secret, NOW, freshNonce(15)), NOW).error());
        assertEquals(SessionErrorCode.AUTHENTICATION_FAILED, authenticator.check(login(keyId, secret, NOW, new byte[0]), NOW).error());
        assertTrue(authenticator.check(login(keyId, secret, NOW, freshNonce(16)), NOW).ok());
        assertTrue(authenticator.check(login(keyId, secret, NOW, freshNonce(64)), NOW).ok());
        assertEquals(SessionErrorCode.AUTHENTICATION_FAILED, authenticator.check(login(keyId, secret, NOW, freshNonce(65)), NOW).error());
    }

    @Test
    void theMasterKeyIsCreatedOwnerOnlyAndReadBack(@TempDir final Path dir) throws Exception
    {
        final byte[] created = Authenticator.loadOrCreateMasterKey(dir);
        assertEquals(32, created.length);
        final Path file = dir.resolve(Authenticator.MASTER_KEY_FILE);
        assertTrue(Files.exists(file));
        if (Files.getFileStore(file).supportsFileAttributeView("posix"))
        {
            assertEquals(PosixFilePermissions.fromString("rw-------"), Files.getPosixFilePermissions(file));
        }
        assertArrayEquals(created, Authenticator.loadOrCreateMasterKey(dir), "a restart reads the same key");
        assertFalse(Arrays.equals(created, Authenticator.loadOrCreateMasterKey(dir.resolve("other"))), "random per exchange");
    }
}
