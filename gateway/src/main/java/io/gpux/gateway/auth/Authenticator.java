package io.gpux.gateway.auth;

import io.gpux.gateway.directory.Directory;
import io.gpux.proto.v1.Login;
import io.gpux.proto.v1.SessionErrorCode;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * Checks Login signatures. Key secrets are never stored: each is HMAC-SHA256(master key, "gpux-key:" +
 * key id), with the master key kept in the data directory ({@code gateway.key}, owner-only), so the
 * journal holds no secret and only key ids and their accounts are journaled ({@code KEY} commands).
 * Losing the master key invalidates every key; copying it gives every key.
 *
 * <p>A login is accepted when the key is live, the timestamp is within {@code windowMs} of the
 * server's clock, the nonce was not seen within the window, and the signature matches (compared in
 * constant time).
 */
public final class Authenticator
{
    public static final String MASTER_KEY_FILE = "gateway.key";
    private static final HexFormat HEX = HexFormat.of();

    private final byte[] masterKey;
    private final Directory directory;
    private final NonceCache nonces;
    private final long windowMs;

    /** The outcome of a login check: an account id, or an error code. */
    public record Result(long accountId, SessionErrorCode error, String message)
    {
        public boolean ok()
        {
            return error == null;
        }
    }

    public Authenticator(final byte[] masterKey, final Directory directory, final long windowMs)
    {
        this.masterKey = masterKey.clone();
        this.directory = directory;
        this.windowMs = windowMs;
        this.nonces = new NonceCache(2 * windowMs);
    }

    /** Reads the master key from the data directory, creating a random one (mode 0600) on first start. */
    public static byte[] loadOrCreateMasterKey(final Path dataDir) throws IOException
    {
        final Path file = dataDir.resolve(MASTER_KEY_FILE);
        if (Files.exists(file))
        {
            final byte[] hex = Files.readAllBytes(file);
            return HEX.parseHex(new String(hex, StandardCharsets.US_ASCII).trim());
        }
        final byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        Files.createDirectories(dataDir);
        final Path tmp = dataDir.resolve(MASTER_KEY_FILE + ".tmp");
        Files.writeString(tmp, HEX.formatHex(key) + "\n");
        try
        {
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
        }
        catch (final UnsupportedOperationException ignored)
        {
            // not a POSIX file system: the file keeps the default permissions
        }
        Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        return key;
    }

    /** The secret of a key, as users are given it: 64 hex digits. */
    public String secretHex(final long keyId)
    {
        return HEX.formatHex(secret(keyId));
    }

    private byte[] secret(final long keyId)
    {
        return hmac(masterKey, ("gpux-key:" + keyId).getBytes(StandardCharsets.UTF_8));
    }

    /** The bytes a Login signs. */
    public static byte[] payload(final long keyId, final long timestampMs, final byte[] nonce)
    {
        return ("GPUX1\n" + Long.toUnsignedString(keyId) + "\n" + timestampMs + "\n" + HEX.formatHex(nonce))
            .getBytes(StandardCharsets.UTF_8);
    }

    /** The signature a client computes. */
    public static byte[] sign(final byte[] secret, final long keyId, final long timestampMs, final byte[] nonce)
    {
        return hmac(secret, payload(keyId, timestampMs, nonce));
    }

    static byte[] hmac(final byte[] key, final byte[] data)
    {
        try
        {
            final Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data);
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("HmacSHA256 unavailable", ex);
        }
    }

    public Result check(final Login login, final long nowMs)
    {
        final long accountId = directory.keyAccount(login.getKeyId());
        final byte[] nonce = login.getNonce().toByteArray();
        final byte[] signature = login.getSignature().toByteArray();
        if (nonce.length < 16 || nonce.length > 64 || signature.length != 32)
        {
            return new Result(0, SessionErrorCode.AUTHENTICATION_FAILED, "nonce must be 16 to 64 bytes, signature 32");
        }
        // The signature is checked even for an unknown key, so that the time taken does not tell
        // which key ids exist.
        final byte[] expected = sign(secret(login.getKeyId()), login.getKeyId(), login.getTimestampMs(), nonce);
        final boolean signatureOk = MessageDigest.isEqual(expected, signature);
        if (accountId == 0 || !signatureOk)
        {
            return new Result(0, SessionErrorCode.AUTHENTICATION_FAILED, "unknown key or bad signature");
        }
        if (Math.abs(nowMs - login.getTimestampMs()) > windowMs)
        {
            return new Result(0, SessionErrorCode.STALE_TIMESTAMP,
                "timestamp " + login.getTimestampMs() + " is more than " + windowMs + " ms from the server's " + nowMs);
        }
        if (!nonces.add(login.getKeyId(), nonce, nowMs))
        {
            return new Result(0, SessionErrorCode.REPLAYED_NONCE, "nonce already used");
        }
        return new Result(accountId, null, null);
    }
}
