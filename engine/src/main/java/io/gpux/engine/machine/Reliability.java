package io.gpux.engine.machine;

/**
 * A machine's measured online and offline time in 90 daily buckets (UTC days), from its first
 * heartbeat (rulebook sections 8 and 13.29).
 */
public final class Reliability
{
    public static final long DAY_MS = 86_400_000L;
    public static final int DAYS = 90;

    final long[] onlineMs = new long[DAYS];
    final long[] offlineMs = new long[DAYS];
    final long[] dayOf = new long[DAYS];
    boolean started;
    boolean online;
    long accruedTo;

    public Reliability()
    {
        java.util.Arrays.fill(dayOf, -1);
    }

    public boolean started()
    {
        return started;
    }

    /** The state changes at time t (the first call starts the history). */
    public void state(final boolean nowOnline, final long t)
    {
        if (started)
        {
            accrue(t);
        }
        else if (nowOnline)
        {
            started = true;
            accruedTo = t;
        }
        online = nowOnline;
    }

    public void accrue(final long t)
    {
        if (!started)
        {
            return;
        }
        while (accruedTo < t)
        {
            final long day = accruedTo / DAY_MS;
            final long end = Math.min(t, (day + 1) * DAY_MS);
            final int i = (int)(day % DAYS);
            if (dayOf[i] != day)
            {
                dayOf[i] = day;
                onlineMs[i] = 0;
                offlineMs[i] = 0;
            }
            if (online)
            {
                onlineMs[i] += end - accruedTo;
            }
            else
            {
                offlineMs[i] += end - accruedTo;
            }
            accruedTo = end;
        }
    }

    /** Counts up to {@code from} as usual and leaves out (from, to]: time that counts neither online nor offline. */
    public void skip(final long from, final long to)
    {
        accrue(from);
        if (started && accruedTo < to)
        {
            accruedTo = to;
        }
    }

    /** Online ms within the window ending at t (call {@link #accrue(long)} first). */
    public long onlineInWindow(final long t)
    {
        return sum(onlineMs, t);
    }

    public long totalInWindow(final long t)
    {
        return sum(onlineMs, t) + sum(offlineMs, t);
    }

    private long sum(final long[] values, final long t)
    {
        final long today = t / DAY_MS;
        long total = 0;
        for (int i = 0; i < DAYS; i++)
        {
            if (dayOf[i] >= today - (DAYS - 1) && dayOf[i] <= today)
            {
                total += values[i];
            }
        }
        return total;
    }

    public void write(final java.io.DataOutput out) throws java.io.IOException
    {
        out.writeBoolean(started);
        out.writeBoolean(online);
        out.writeLong(accruedTo);
        for (int i = 0; i < DAYS; i++)
        {
            out.writeLong(dayOf[i]);
            out.writeLong(onlineMs[i]);
            out.writeLong(offlineMs[i]);
        }
    }

    public void read(final java.io.DataInput in) throws java.io.IOException
    {
        started = in.readBoolean();
        online = in.readBoolean();
        accruedTo = in.readLong();
        for (int i = 0; i < DAYS; i++)
        {
            dayOf[i] = in.readLong();
            onlineMs[i] = in.readLong();
            offlineMs[i] = in.readLong();
        }
    }

    public void hash(final io.gpux.engine.hash.StateHasher h)
    {
        h.bool(started).bool(online).add(accruedTo);
        for (int i = 0; i < DAYS; i++)
        {
            h.add(dayOf[i]).add(onlineMs[i]).add(offlineMs[i]);
        }
    }
}
