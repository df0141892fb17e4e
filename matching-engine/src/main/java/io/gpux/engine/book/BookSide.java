package io.gpux.engine.book;

import java.util.ArrayDeque;

/**
 * One side of a market's book: price levels best first, each a FIFO by time priority. Only orders
 * that can trade are in it: open GPUs above zero, machine online.
 */
public final class BookSide
{
    private final boolean bidSide;
    private final LevelArray<PriceLevel> levels = new LevelArray<>(64);
    private final ArrayDeque<PriceLevel> levelPool = new ArrayDeque<>();

    public BookSide(final boolean bidSide)
    {
        this.bidSide = bidSide;
    }

    private long key(final long price)
    {
        return bidSide ? price : -price;
    }

    public int levelCount()
    {
        return levels.size();
    }

    /** @param rank 0 is the best level. */
    public PriceLevel level(final int rank)
    {
        return levels.at(levels.size() - 1 - rank);
    }

    public PriceLevel best()
    {
        final int n = levels.size();
        return n == 0 ? null : levels.at(n - 1);
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
            levels.remove(key(level.price));
            level.gpus = 0;
            levelPool.addLast(level);
        }
    }

    /** Adjusts the level total when an order in the book changes its open GPUs by delta. */
    public void openGpusChanged(final Order order, final int delta)
    {
        order.level.gpus += delta;
    }

    private PriceLevel levelFor(final long price)
    {
        final long key = key(price);
        PriceLevel level = levels.get(key);
        if (level == null)
        {
            level = levelPool.pollLast();
            if (level == null)
            {
                level = new PriceLevel();
            }
            level.price = price;
            level.head = null;
            level.tail = null;
            level.gpus = 0;
            levels.insert(key, level);
        }
        return level;
    }
}
