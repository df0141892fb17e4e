package io.gpux.engine.book;

import java.util.Arrays;

/**
 * One side of a market's book: price levels best first, each a FIFO by time priority. Only orders
 * that can trade are in it: open GPUs above zero, machine online.
 *
 * <p>Levels sit in an array sorted by price with the best at the tail, and in an open-addressing hash
 * table by price. A level whose last order leaves stays in both, empty, so that an order moving back to
 * that price (most of a move-heavy flow: every REPLACE empties one level and fills another) finds its
 * level in O(1), without a binary search or an array shift. Empty levels are dropped all at once, before
 * a new level is added, when they outnumber the others by {@link #EMPTY_SLACK}. Every walk
 * ({@link #best()}, {@link #worse(PriceLevel)}, {@link #level(int)}, {@link #levelCount()}) sees only
 * the levels that hold orders.
 *
 * <p>A walk with {@link #worse(PriceLevel)} stays valid while orders leave the side (their levels stay
 * in place, empty); adding a level keeps the positions of the levels it shifts, but may drop empty ones.
 */
public final class BookSide
{
    private static final int INITIAL_CAPACITY = 64;
    /** Empty levels kept beyond the number of non-empty ones before they are dropped. */
    private static final int EMPTY_SLACK = 256;
    private static final long FIBONACCI = 0x9E3779B97F4A7C15L;

    private final boolean bidSide;
    /** Sort keys (price for bids, -price for asks) ascending: the best level at the tail. */
    private long[] keys = new long[INITIAL_CAPACITY];
    private PriceLevel[] levels = new PriceLevel[INITIAL_CAPACITY];
    /** Levels in the array, empty ones included. */
    private int size;
    /** Levels holding at least one order. */
    private int live;
    /** Array index of the best non-empty level, or -1. */
    private int bestIndex = -1;

    /** Every level of the array by price: linear probing, at most half full. */
    private PriceLevel[] table = new PriceLevel[INITIAL_CAPACITY * 2];
    private int tableShift = 64 - Integer.numberOfTrailingZeros(INITIAL_CAPACITY * 2);

    private PriceLevel[] pool = new PriceLevel[16];
    private int poolSize;

    /** Changes whenever the sequence of non-empty levels does: the {@link #level(int)} cursor checks it. */
    private int version;
    private int cursorVersion = -1;
    private int cursorRank;
    private PriceLevel cursor;

    public BookSide(final boolean bidSide)
    {
        this.bidSide = bidSide;
    }

    private long key(final long price)
    {
        return bidSide ? price : -price;
    }

    /** Levels that hold orders. */
    public int levelCount()
    {
        return live;
    }

    /** Levels in the array, empty ones not yet dropped included (for tests). */
    int storedLevels()
    {
        return size;
    }

    /**
     * The level of a rank among those holding orders; walking the ranks in order costs O(1) a step.
     *
     * @param rank 0 is the best level, below {@link #levelCount()}.
     */
    public PriceLevel level(final int rank)
    {
        if (rank < 0 || rank >= live)
        {
            throw new IndexOutOfBoundsException("rank " + rank + " of " + live + " levels");
        }
        if (cursorVersion != version || rank < cursorRank)
        {
            cursor = levels[bestIndex];
            cursorRank = 0;
            cursorVersion = version;
        }
        while (cursorRank < rank)
        {
            cursor = worse(cursor);
            cursorRank++;
        }
        return cursor;
    }

    /** The best level holding orders, or null. */
    public PriceLevel best()
    {
        return bestIndex < 0 ? null : levels[bestIndex];
    }

    /** The next level holding orders after {@code level} (which may have emptied meanwhile), best first; or null. */
    public PriceLevel worse(final PriceLevel level)
    {
        final PriceLevel[] levels = this.levels;
        for (int i = level.index - 1; i >= 0; i--)
        {
            final PriceLevel l = levels[i];
            if (l.head != null)
            {
                return l;
            }
        }
        return null;
    }

    /** Adds an order behind every order at its price: it holds the newest priority. */
    public void append(final Order order)
    {
        final PriceLevel level = levelFor(order.price);
        order.level = level;
        order.levelNext = null;
        order.levelPrev = level.tail;
        if (level.tail == null)
        {
            level.head = order;
        }
        else
        {
            level.tail.levelNext = order;
        }
        level.tail = order;
        level.gpus += order.openGpus;
    }

    /** Puts an order back at the place its (older) priority gives it. */
    public void insertByPriority(final Order order)
    {
        final PriceLevel level = levelFor(order.price);
        Order after = level.tail;
        while (after != null && after.priority > order.priority)
        {
            after = after.levelPrev;
        }
        order.level = level;
        order.levelPrev = after;
        if (after == null)
        {
            order.levelNext = level.head;
            level.head = order;
        }
        else
        {
            order.levelNext = after.levelNext;
            after.levelNext = order;
        }
        if (order.levelNext == null)
        {
            level.tail = order;
        }
        else
        {
            order.levelNext.levelPrev = order;
        }
        level.gpus += order.openGpus;
    }

    public void remove(final Order order)
    {
        final PriceLevel level = order.level;
        if (order.levelPrev == null)
        {
            level.head = order.levelNext;
        }
        else
        {
            order.levelPrev.levelNext = order.levelNext;
        }
        if (order.levelNext == null)
        {
            level.tail = order.levelPrev;
        }
        else
        {
            order.levelNext.levelPrev = order.levelPrev;
        }
        level.gpus -= order.openGpus;
        order.level = null;
        order.levelPrev = null;
        order.levelNext = null;
        if (level.head == null)
        {
            level.gpus = 0;
            emptied(level);
        }
    }

    /** Adjusts the level total when an order in the book changes its open GPUs by delta. */
    public void openGpusChanged(final Order order, final int delta)
    {
        order.level.gpus += delta;
    }

    /** The level of a price, about to receive an order: found (and counted again if it was empty) or added. */
    private PriceLevel levelFor(final long price)
    {
        PriceLevel level = find(price);
        if (level == null)
        {
            level = addLevel(price);
        }
        if (level.head == null)
        {
            live++;
            version++;
            if (level.index > bestIndex)
            {
                bestIndex = level.index;
            }
        }
        return level;
    }

    private void emptied(final PriceLevel level)
    {
        live--;
        version++;
        if (level.index == bestIndex)
        {
            final PriceLevel[] levels = this.levels;
            int i = bestIndex - 1;
            while (i >= 0 && levels[i].head == null)
            {
                i--;
            }
            bestIndex = i;
        }
    }

    private PriceLevel find(final long price)
    {
        final PriceLevel[] table = this.table;
        final int mask = table.length - 1;
        int i = slot(price);
        PriceLevel l;
        while ((l = table[i]) != null)
        {
            if (l.price == price)
            {
                return l;
            }
            i = (i + 1) & mask;
        }
        return null;
    }

    private int slot(final long price)
    {
        return (int)((price * FIBONACCI) >>> tableShift);
    }

    /** A new, empty level in the array and the table. */
    private PriceLevel addLevel(final long price)
    {
        if (size - live > live + EMPTY_SLACK)
        {
            dropEmptyLevels();
        }
        final long key = key(price);
        final int at = insertionPoint(key);
        if (size == keys.length)
        {
            keys = Arrays.copyOf(keys, size * 2);
            levels = Arrays.copyOf(levels, size * 2);
        }
        final PriceLevel[] levels = this.levels;
        System.arraycopy(keys, at, keys, at + 1, size - at);
        System.arraycopy(levels, at, levels, at + 1, size - at);
        for (int i = size; i > at; i--)
        {
            levels[i].index = i;
        }
        final PriceLevel level = poolSize == 0 ? new PriceLevel() : pool[--poolSize];
        level.price = price;
        level.head = null;
        level.tail = null;
        level.gpus = 0;
        level.index = at;
        keys[at] = key;
        levels[at] = level;
        size++;
        if (bestIndex >= at)
        {
            bestIndex++;
        }
        version++;
        if (size * 2 > table.length)
        {
            resizeTable(table.length * 2);
        }
        else
        {
            tablePut(level);
        }
        return level;
    }

    /** Where a key not in the array goes: the tail (a new best) is checked first. */
    private int insertionPoint(final long key)
    {
        if (size == 0 || keys[size - 1] < key)
        {
            return size;
        }
        final int at = LevelArray.search(keys, size, key);
        if (at >= 0)
        {
            throw new IllegalStateException("level exists: " + key);
        }
        return -at - 1;
    }

    private void dropEmptyLevels()
    {
        final long[] keys = this.keys;
        final PriceLevel[] levels = this.levels;
        int kept = 0;
        for (int i = 0; i < size; i++)
        {
            final PriceLevel level = levels[i];
            if (level.head != null)
            {
                level.index = kept;
                keys[kept] = keys[i];
                levels[kept++] = level;
            }
            else
            {
                level.index = -1;
                if (poolSize == pool.length)
                {
                    pool = Arrays.copyOf(pool, poolSize * 2);
                }
                pool[poolSize++] = level;
            }
        }
        Arrays.fill(levels, kept, size, null);
        size = kept;
        bestIndex = kept - 1;
        version++;
        resizeTable(table.length);
    }

    private void resizeTable(final int capacity)
    {
        if (capacity != table.length)
        {
            table = new PriceLevel[capacity];
            tableShift = 64 - Integer.numberOfTrailingZeros(capacity);
        }
        else
        {
            Arrays.fill(table, null);
        }
        for (int i = 0; i < size; i++)
        {
            tablePut(levels[i]);
        }
    }

    private void tablePut(final PriceLevel level)
    {
        final PriceLevel[] table = this.table;
        final int mask = table.length - 1;
        int i = slot(level.price);
        while (table[i] != null)
        {
            i = (i + 1) & mask;
        }
        table[i] = level;
    }
}
