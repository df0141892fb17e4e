package io.gpux.gateway.auth;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.HexFormat;

/**
 * The nonces seen in the last {@code retainMs}: a login whose timestamp is older than the window is
 * refused anyway, so a nonce needs remembering only that long. Logins are rare; this is synchronized.
 */
final class NonceCache
{
    private record Seen(String key, long atMs)
    {
    }

    private final long retainMs;
    private final HashSet<String> seen = new HashSet<>();
    private final ArrayDeque<Seen> order = new ArrayDeque<>();

    NonceCache(final long retainMs)
    {
        this.retainMs = retainMs;
    }

    /** False if this key already used this nonce within the retention time. */
    synchronized boolean add(final long keyId, final byte[] nonce, final long nowMs)
    {
        while (!order.isEmpty() && order.peekFirst().atMs < nowMs - retainMs)
        {
            seen.remove(order.removeFirst().key);
        }
        final String key = keyId + ":" + HexFormat.of().formatHex(nonce);
        if (!seen.add(key))
        {
            return false;
        }
        order.addLast(new Seen(key, nowMs));
        return true;
    }
}
