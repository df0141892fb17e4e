package io.gpux.gateway.codec;

import java.util.Arrays;

/**
 * Names (market symbols) as they arrive in UTF-8, to the String the gateway's directory is keyed by,
 * so that the same name in every order costs no allocation: a small open-addressed table, one per
 * connection (one thread), bounded (a full probe run overwrites its first slot). The caller decides
 * what is worth keeping (the gateway keeps the names its directory knows), so junk cannot fill it
 * with anything but junk it also evicts.
 */
public final class SymbolCache
{
    private static final int SLOTS = 256;
    private static final int MASK = SLOTS - 1;
    private static final int PROBES = 8;

    private byte[][] keys;
    private String[] names;

    /** The name cached for these bytes, "" for none, or null when not cached. */
    public String get(final byte[] utf8, final int offset, final int length)
    {
        if (length == 0)
        {
            return "";
        }
        if (keys == null)
        {
            return null;
        }
        final int home = hash(utf8, offset, length);
        for (int i = 0; i < PROBES; i++)
        {
            final int slot = (home + i) & MASK;
            final byte[] key = keys[slot];
            if (key == null)
            {
                return null;
            }
            if (Arrays.equals(key, 0, key.length, utf8, offset, offset + length))
            {
                return names[slot];
            }
        }
        return null;
    }

    /** Keeps {@code name} as what these bytes (its UTF-8) read as. */
    public void put(final byte[] utf8, final int offset, final int length, final String name)
    {
        if (length == 0)
        {
            return;
        }
        if (keys == null)
        {
            keys = new byte[SLOTS][];
            names = new String[SLOTS];
        }
        final int home = hash(utf8, offset, length);
        int slot = home & MASK;
        for (int i = 0; i < PROBES; i++)
        {
            final int s = (home + i) & MASK;
            if (keys[s] == null || Arrays.equals(keys[s], 0, keys[s].length, utf8, offset, offset + length))
            {
                slot = s;
                break;
            }
        }
        keys[slot] = Arrays.copyOfRange(utf8, offset, offset + length);
        names[slot] = name;
    }

    private static int hash(final byte[] b, final int offset, final int length)
    {
        int h = 0;
        for (int i = offset; i < offset + length; i++)
        {
            h = 31 * h + b[i];
        }
        return h ^ h >>> 16;
    }
}
