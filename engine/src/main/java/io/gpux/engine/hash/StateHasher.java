package io.gpux.engine.hash;

/**
 * A 64-bit streaming hash (xxHash64-style rounds with a final avalanche) over the values of a
 * canonical state walk. Order matters: the same values in the same order give the same hash.
 */
public final class StateHasher
{
    private static final long P1 = 0x9E3779B185EBCA87L;
    private static final long P2 = 0xC2B2AE3D27D4EB4FL;
    private static final long P3 = 0x165667B19E3779F9L;

    private long acc = P3;
    private long count;

    public StateHasher add(final long value)
    {
        acc = Long.rotateLeft(acc ^ (Long.rotateLeft(value * P2, 31) * P1), 27) * P1 + P3;
        count++;
        return this;
    }

    public StateHasher bool(final boolean value)
    {
        return add(value ? 1 : 0);
    }

    public StateHasher str(final String value)
    {
        if (value == null)
        {
            return add(-1);
        }
        add(value.length());
        for (int i = 0; i < value.length(); i++)
        {
            add(value.charAt(i));
        }
        return this;
    }

    public long hash()
    {
        long h = acc ^ count;
        h ^= h >>> 33;
        h *= P2;
        h ^= h >>> 29;
        h *= P3;
        h ^= h >>> 32;
        return h;
    }
}
