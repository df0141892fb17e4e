package io.gpux.engine;

import org.agrona.collections.Long2ObjectHashMap;

import java.util.Arrays;
import java.util.Collection;

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

    /** In the hash map's order: sort where the order matters. */
    Collection<V> values()
    {
        return map.values();
    }
}
