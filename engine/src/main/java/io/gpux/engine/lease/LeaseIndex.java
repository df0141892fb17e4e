package io.gpux.engine.lease;

import io.gpux.engine.book.LevelArray;

import java.util.ArrayDeque;

/**
 * A market's preemptible leases (started, no notice) in victim order: lowest price first, then most
 * recently started, then highest lease id (rulebook section 6.2).
 */
public final class LeaseIndex
{
    static final class Level
    {
        long price;
        Lease head;
        Lease tail;
    }

    private final LevelArray<Level> levels = new LevelArray<>(32);
    private final ArrayDeque<Level> pool = new ArrayDeque<>();

    public int levelCount()
    {
        return levels.size();
    }

    /** @param i 0 is the lowest price. */
    public Lease firstAt(final int i)
    {
        return levels.at(i).head;
    }

    public long priceAt(final int i)
    {
        return levels.keyAt(i);
    }

    public void add(final Lease lease)
    {
        Level level = levels.get(lease.price);
        if (level == null)
        {
            level = pool.pollLast();
            if (level == null)
            {
                level = new Level();
            }
            level.price = lease.price;
            level.head = null;
            level.tail = null;
            levels.insert(lease.price, level);
        }
        Lease before = level.head;
        Lease after = null;
        while (before != null && comesBefore(before, lease))
        {
            after = before;
            before = before.indexNext;
        }
        lease.indexLevel = level;
        lease.indexPrev = after;
        lease.indexNext = before;
        if (after == null)
        {
            level.head = lease;
        }
        else
        {
            after.indexNext = lease;
        }
        if (before == null)
        {
            level.tail = lease;
        }
        else
        {
            before.indexPrev = lease;
        }
    }

    private static boolean comesBefore(final Lease a, final Lease b)
    {
        return a.startMs > b.startMs || (a.startMs == b.startMs && a.id > b.id);
    }

    public void remove(final Lease lease)
    {
        final Level level = lease.indexLevel;
        if (level == null)
        {
            return;
        }
        if (lease.indexPrev == null)
        {
            level.head = lease.indexNext;
        }
        else
        {
            lease.indexPrev.indexNext = lease.indexNext;
        }
        if (lease.indexNext == null)
        {
            level.tail = lease.indexPrev;
        }
        else
        {
            lease.indexNext.indexPrev = lease.indexPrev;
        }
        lease.indexLevel = null;
        lease.indexPrev = null;
        lease.indexNext = null;
        if (level.head == null)
        {
            levels.remove(level.price);
            pool.addLast(level);
        }
    }
}
