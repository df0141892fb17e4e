package io.gpux.engine;

import org.agrona.collections.Long2ObjectHashMap;

import java.util.Arrays;
import java.util.Collection;
import java.util.function.IntFunction;

/**
 * Markets, accounts or machines by id. Every entry is in a hash map (iteration, the ids of any size);
 * ids from 0 to {@link #DENSE_LIMIT} are also in an array indexed by the id, so that the lookup every
 * order command makes is one array load instead of a hash probe. Entries are never removed.
 */
final class IdMap<V>
{
    /** Ids below this are looked up in the array (which grows to the largest such id seen, at most 8 MB). */
    static final int DENSE_LIMIT = 1 << 20;

    private final Long2ObjectHashMap<V> map = new Long2ObjectHashMap<>();
    private Object[] dense = new Object[64];

    @SuppressWarnings("unchecked")
    V get(final long id)
    {
        if (id >= 0 && id < DENSE_LIMIT)
        {
            final Object[] dense = this.dense;
            return id < dense.length ? (V)dense[(int)id] : null;
        }
        return map.get(id);
    }

    boolean containsKey(final long id)
    {
        return get(id) != null;
    }

    void put(final long id, final V value)
    {
        if (value == null)
        {
            throw new IllegalArgumentException("null value for id " + id);
        }
        map.put(id, value);
        if (id >= 0 && id < DENSE_LIMIT)
        {
            if (id >= dense.length)
            {
                dense = Arrays.copyOf(dense, (int)Math.min(DENSE_LIMIT, Math.max(dense.length * 2L, Long.highestOneBit(id) << 1)));
            }
            dense[(int)id] = value;
        }
    }

    boolean isEmpty()
    {
        return map.isEmpty();
    }

    int size()
    {
        return map.size();
    }

    /** In the hash map's order: use {@link #byId} where the order matters. */
    Collection<V> values()
    {
        return map.values();
    }

    /**
     * The values in ascending order of id: read off the array when every id is in it, without a sort (the
     * snapshot and the state hash walk every account and machine this way).
     */
    @SuppressWarnings("unchecked")
    V[] byId(final IntFunction<V[]> newArray)
    {
        final V[] values = newArray.apply(map.size());
        int n = 0;
        for (int i = 0; i < dense.length && n < values.length; i++)
        {
            if (dense[i] != null)
            {
                values[n++] = (V)dense[i];
            }
        }
        return n == values.length ? values : byId(map, newArray);
    }

    /** The values of {@code map} in ascending order of key: the keys sorted as primitives, then looked up. */
    static <V> V[] byId(final Long2ObjectHashMap<V> map, final IntFunction<V[]> newArray)
    {
        final long[] ids = new long[map.size()];
        int n = 0;
        for (final Long2ObjectHashMap<V>.KeyIterator keys = map.keySet().iterator(); keys.hasNext(); )
        {
            ids[n++] = keys.nextLong();
        }
        Arrays.sort(ids);
        final V[] values = newArray.apply(n);
        for (int i = 0; i < n; i++)
        {
            values[i] = map.get(ids[i]);
        }
        return values;
    }
}
