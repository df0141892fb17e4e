package io.gpux.engine.timer;

/** A scheduled engine action; ordered by due time, then creation. */
public final class Timer
{
    public static final int LEASE_NOTICE = 1;
    public static final int LEASE_EXPIRY = 2;
    public static final int LEASE_PERIOD = 3;
    public static final int MACHINE_TIMEOUT = 4;
    public static final int MACHINE_BIRTHDAY = 5;
    public static final int MACHINE_DAY = 6;

    public long dueMs;
    public long seq;
    public int kind;
    public Object target;
    int heapIndex = -1;

    public boolean scheduled()
    {
        return heapIndex >= 0;
    }
}
