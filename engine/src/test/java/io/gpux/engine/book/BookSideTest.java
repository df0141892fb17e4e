package io.gpux.engine.book;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A book side against a sorted map of lists, through enough moves that levels empty, come back, are
 * added far from the touch and are dropped in bulk: every walk sees the same levels, totals and queues.
 */
class BookSideTest
{
    @Test
    void bidsMatchAReference()
    {
        run(true, 11);
    }

    @Test
    void asksMatchAReference()
    {
        run(false, 12);
    }

    private static void run(final boolean bidSide, final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final BookSide side = new BookSide(bidSide);
        final TreeMap<Long, List<Order>> reference = new TreeMap<>(bidSide ? Comparator.<Long>reverseOrder() : Comparator.<Long>naturalOrder());
        final List<Order> resting = new ArrayList<>();
        long priority = 0;
        int storedBefore = 0;
        int compactions = 0;
        for (int step = 0; step < 60_000; step++)
        {
            // the range drifts and widens now and then, so that many levels empty and new ones appear
            final long center = 10_000 + (step / 5_000) * 700;
            final boolean wide = step % 10_000 >= 5_000;
            final int spread = wide ? 2_000 : 40;
            final int dice = random.nextInt(100);
            if (resting.isEmpty() || dice < (wide ? 40 : 25))
            {
                final Order o = new Order();
                o.price = center + random.nextInt(-spread, spread + 1);
                o.openGpus = 1 + random.nextInt(8);
                o.priority = ++priority;
                side.append(o);
                add(reference, o);
                resting.add(o);
            }
            else if (dice < (wide ? 65 : 70))
            {
                final Order o = resting.remove(random.nextInt(resting.size()));
                side.remove(o);
                reference.get(o.price).remove(o);
                if (reference.get(o.price).isEmpty())
                {
                    reference.remove(o.price);
                }
            }
            else if (dice < 90)
            {
                // a move: out, new price, new priority, back in
                final Order o = resting.get(random.nextInt(resting.size()));
                side.remove(o);
                reference.get(o.price).remove(o);
                if (reference.get(o.price).isEmpty())
                {
                    reference.remove(o.price);
                }
                o.price += random.nextInt(-10, 11);
                o.priority = ++priority;
                side.insertByPriority(o);
                add(reference, o);
            }
            else
            {
                // out and back with its old priority: it goes back to its place in the queue
                final Order o = resting.get(random.nextInt(resting.size()));
                side.remove(o);
                side.insertByPriority(o);
            }
            if (side.storedLevels() < storedBefore)
            {
                compactions++;
            }
            storedBefore = side.storedLevels();
            if (step % 97 == 0 || step > 59_000)
            {
                check(side, reference);
            }
        }
        assertTrue(compactions > 0, "empty levels were dropped at least once");
        while (!resting.isEmpty())
        {
            final Order o = resting.remove(resting.size() - 1);
            side.remove(o);
        }
        assertEquals(0, side.levelCount());
        assertNull(side.best());
    }

    private static void add(final TreeMap<Long, List<Order>> reference, final Order o)
    {
        final List<Order> queue = reference.computeIfAbsent(o.price, p -> new ArrayList<>());
        int at = queue.size();
        while (at > 0 && queue.get(at - 1).priority > o.priority)
        {
            at--;
        }
        queue.add(at, o);
    }

    private static void check(final BookSide side, final TreeMap<Long, List<Order>> reference)
    {
        assertEquals(reference.size(), side.levelCount());
        PriceLevel level = side.best();
        int rank = 0;
        for (final var entry : reference.entrySet())
        {
            assertSame(level, side.level(rank), "rank " + rank);
            assertEquals(entry.getKey(), level.price());
            long gpus = 0;
            Order o = level.head();
            for (final Order expected : entry.getValue())
            {
                assertSame(expected, o);
                gpus += o.openGpus;
                o = o.nextInLevel();
            }
            assertNull(o);
            assertEquals(gpus, level.gpus());
            level = side.worse(level);
            rank++;
        }
        assertNull(level);
        if (rank > 2)
        {
            // random access after a walk, backwards and forwards
            final PriceLevel second = side.level(1);
            assertSame(second, side.worse(side.best()));
            assertSame(side.level(rank - 1), side.level(rank - 1));
        }
    }
}
