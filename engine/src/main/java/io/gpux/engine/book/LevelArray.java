package io.gpux.engine.book;

import java.util.Arrays;

/**
 * Price levels kept sorted by a long key, in an array whose best (largest key) end is the tail, so
 * that the busy end moves little: lookup by binary search O(log n), best O(1), removing the best O(1),
 * inserting a level k places behind the best O(k). Used by both book sides (key = price for bids,
 * -price for asks) and by the index of preemptible leases.
 */
public final class LevelArray<T>
{
    private long[] keys;
    private Object[] values;
    private int size;

    public LevelArray(final int initialCapacity)
    {
        keys = new long[initialCapacity];
        values = new Object[initialCapacity];
    }

    public int size()
    {
        return size;
    }

    /** @return the value at index i, 0 being the worst (smallest key) and size-1 the best. */
    @SuppressWarnings("unchecked")
    public T at(final int i)
    {
        return (T)values[i];
    }

    public long keyAt(final int i)
    {
        return keys[i];
    }

    /** @return the index of key, or -(insertion point) - 1. */
    public int indexOf(final long key)
    {
        return search(keys, size, key);
    }

    /** Binary search of the first {@code size} of ascending {@code keys}: the index of key, or -(insertion point) - 1. */
    static int search(final long[] keys, final int size, final long key)
    {
        int lo = 0;
        int hi = size - 1;
        while (lo <= hi)
        {
            final int mid = (lo + hi) >>> 1;
            final long k = keys[mid];
            if (k < key)
            {
                lo = mid + 1;
            }
            else if (k > key)
            {
                hi = mid - 1;
            }
            else
            {
                return mid;
            }
        }
        return -(lo + 1);
    }

    @SuppressWarnings("unchecked")
    public T get(final long key)
    {
        // the best end is by far the most searched: check it first
        if (size > 0 && keys[size - 1] == key)
        {
            return (T)values[size - 1];
        }
        final int i = indexOf(key);
        return i >= 0 ? (T)values[i] : null;
    }

    public void insert(final long key, final T value)
    {
        int i = indexOf(key);
        if (i >= 0)
        {
            throw new IllegalStateException("level exists: " + key);
        }
        i = -i - 1;
        if (size == keys.length)
        {
            keys = Arrays.copyOf(keys, size * 2);
            values = Arrays.copyOf(values, size * 2);
        }
        System.arraycopy(keys, i, keys, i + 1, size - i);
        System.arraycopy(values, i, values, i + 1, size - i);
        keys[i] = key;
        values[i] = value;
        size++;
    }

    public void remove(final long key)
    {
        final int i = (size > 0 && keys[size - 1] == key) ? size - 1 : indexOf(key);
        if (i < 0)
        {
            throw new IllegalStateException("no level: " + key);
        }
        System.arraycopy(keys, i + 1, keys, i, size - i - 1);
        System.arraycopy(values, i + 1, values, i, size - i - 1);
        size--;
        values[size] = null;
    }
}
