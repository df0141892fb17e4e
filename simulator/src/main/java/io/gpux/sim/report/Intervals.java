package io.gpux.sim.report;

import java.util.Arrays;

/**
 * Half-open time intervals [start, end) in market milliseconds, appended in time order; the last one
 * may still be open. Used for "machine online", "ask listed", "machine failed".
 */
public final class Intervals
{
    private long[] starts = new long[4];
    private long[] ends = new long[4];
    private int count;
    private boolean open;

    /** Opens an interval at {@code t}; nothing if one is open. */
    public void open(final long t)
    {
        if (open)
        {
            return;
        }
        if (count == starts.length)
        {
            starts = Arrays.copyOf(starts, count * 2);
            ends = Arrays.copyOf(ends, count * 2);
        }
        starts[count] = t;
        ends[count] = Long.MAX_VALUE;
        count++;
        open = true;
    }

    /** Closes the open interval at {@code t}; nothing if none is open. */
    public void close(final long t)
    {
        if (!open)
        {
            return;
        }
        ends[count - 1] = Math.max(t, starts[count - 1]);
        open = false;
    }

    public boolean isOpen()
    {
        return open;
    }

    public int count()
    {
        return count;
    }

    public long start(final int i)
    {
        return starts[i];
    }

    /** Long.MAX_VALUE while open. */
    public long end(final int i)
    {
        return ends[i];
    }

    /** Whether {@code t} falls in an interval. */
    public boolean contains(final long t)
    {
        for (int i = count - 1; i >= 0; i--)
        {
            if (starts[i] <= t)
            {
                return t < ends[i];
            }
        }
        return false;
    }

    /** Milliseconds covered within [from, to). */
    public long overlap(final long from, final long to)
    {
        long sum = 0;
        for (int i = 0; i < count; i++)
        {
            final long s = Math.max(from, starts[i]);
            final long e = Math.min(to, ends[i]);
            if (e > s)
            {
                sum += e - s;
            }
        }
        return sum;
    }

    /** Milliseconds covered by both this and {@code other} within [from, to). */
    public long overlap(final Intervals other, final long from, final long to)
    {
        long sum = 0;
        for (int i = 0; i < count; i++)
        {
            final long s = Math.max(from, starts[i]);
            final long e = Math.min(to, ends[i]);
            if (e > s)
            {
                sum += other.overlap(s, e);
            }
        }
        return sum;
    }
}
