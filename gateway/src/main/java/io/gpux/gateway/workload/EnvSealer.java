package io.gpux.gateway.workload;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;

import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Encrypts a workload's environment values for the audit journal: AES-256-GCM under a key derived
 * from the gateway's master key by HKDF-SHA256 (RFC 5869), so the journal never holds a value in
 * clear and a copy of it without {@code gateway.key} reveals none. Each value is bound to its lease
 * and name (the additional authenticated data), so a sealed value cannot be moved to another.
 */
public final class EnvSealer
{
    private static final byte[] SALT = "gpux workload env".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] INFO = "gpux/v1 audit env AES-256-GCM".getBytes(StandardCharsets.US_ASCII);
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;

    private final SecretKeySpec key;
    private final SecureRandom random = new SecureRandom();

    public EnvSealer(final byte[] masterKey)
    {
        key = new SecretKeySpec(hkdf(masterKey), "AES");
    }

    /** nonce (12 bytes), then the ciphertext and its 16-byte tag. */
    public synchronized byte[] seal(final long leaseId, final String name, final String value)
    {
        final byte[] nonce = new byte[NONCE_BYTES];
        random.nextBytes(nonce);
        try
        {
            final Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
            cipher.updateAAD(aad(leaseId, name));
            final byte[] sealed = cipher.doFinal(value.getBytes(StandardCharsets.UTF_8));
            final byte[] out = Arrays.copyOf(nonce, NONCE_BYTES + sealed.length);
            System.arraycopy(sealed, 0, out, NONCE_BYTES, sealed.length);
            return out;
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("AES-GCM is not available: " + ex.getMessage(), ex);
        }
    }

    /**
     * @return the value, or null when it does not open under this key (another master key, damage).
     */
    public String open(final long leaseId, final String name, final byte[] sealed)
    {
        if (sealed.length < NONCE_BYTES + TAG_BITS / 8)
        {
            return null;
        }
        try
        {
            final Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, sealed, 0, NONCE_BYTES));
            cipher.updateAAD(aad(leaseId, name));
            return new String(cipher.doFinal(sealed, NONCE_BYTES, sealed.length - NONCE_BYTES), StandardCharsets.UTF_8);
        }
        catch (final GeneralSecurityException ex)
        {
            return null;
        }
    }

    private static byte[] aad(final long leaseId, final String name)
    {
        return ("gpux-env/" + leaseId + "/" + name).getBytes(StandardCharsets.UTF_8);
    }

    /** HKDF-SHA256: extract with the salt, expand one block with the info. */
    static byte[] hkdf(final byte[] inputKey)
    {
        try
        {
            final Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(SALT, "HmacSHA256"));
            final byte[] prk = mac.doFinal(inputKey);
            mac.init(new SecretKeySpec(prk, "HmacSHA256"));
            mac.update(INFO);
            mac.update((byte)1);
            return mac.doFinal();
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("HMAC-SHA256 is not available: " + ex.getMessage(), ex);
        }
    }
}
