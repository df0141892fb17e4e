package io.gpux.engine.timer;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The queue against a sorted set of (due, seq): same firing order, same live timers, whatever the mix. */
class TimerQueueTest
{
    private static final Comparator<Timer> ORDER = Comparator.<Timer>comparingLong(t -> t.dueMs).thenComparingLong(t -> t.seq);

    @Test
    void firesInDueThenCreationOrderWithLanesHeapAndLazyCancellation()
    {
        for (long seed = 1; seed <= 30; seed++)
        {
            run(new Random(seed));
        }
    }

    private static void run(final Random rnd)
    {
        final TimerQueue q = new TimerQueue();
        final TreeSet<Timer> reference = new TreeSet<>(ORDER);
        final List<Timer> live = new ArrayList<>();
        long now = 0;
        final long[] delays = {1_000, 15_000, 3_600_000, 86_400_000};
        for (int step = 0; step < 20_000; step++)
        {
            final int op = rnd.nextInt(10);
            if (op < 5)
            {
                // fixed delays (lane-friendly) and random ones (heap), ties included
                final long due = rnd.nextInt(3) == 0 ? now + rnd.nextInt(5_000) : now + delays[rnd.nextInt(delays.length)];
                final Timer t = q.schedule(due, 1, "x");
                assertTrue(t.scheduled());
                reference.add(t);
                live.add(t);
            }
            else if (op < 8 && !live.isEmpty())
            {
                final Timer t = live.remove(rnd.nextInt(live.size()));
                assertTrue(reference.remove(t));
                q.cancel(t);
                assertFalse(t.scheduled());
            }
            else
            {
                now += rnd.nextInt(op == 9 ? 100_000 : 2_000);
                while (q.anyDueBy(now))
                {
                    final Timer t = q.poll();
                    assertSame(reference.pollFirst(), t);
                    assertTrue(t.dueMs <= now);
                    live.remove(t);
                    q.recycle(t);
                }
                assertTrue(reference.isEmpty() || reference.first().dueMs > now);
                final Timer first = reference.isEmpty() ? null : reference.first();
                assertSame(first, q.peek());
            }
            assertEquals(reference.size(), q.size());
            if (step % 997 == 0)
            {
                assertArrayEquals(reference.toArray(new Timer[0]), q.sorted());
            }
        }
        Timer t;
        while ((t = q.peek()) != null)
        {
            assertSame(reference.pollFirst(), t);
            q.recycle(q.poll());
        }
        assertTrue(reference.isEmpty());
        assertNull(q.peek());
        assertEquals(0, q.size());
    }
}
