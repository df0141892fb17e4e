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

    static final int FREE = 0;
    static final int LIVE = 1;
    /** Still in the queue (a lane or the heap), dropped when it reaches a head or the queue is compacted. */
    static final int CANCELLED = 2;

    public long dueMs;
    public long seq;
    public int kind;
    public Object target;
    int state = FREE;
    /** The timer's fixed place in its queue's registry; the heap holds these, not references. */
    int slot;

    /** Whether the timer is due to fire: scheduled and neither fired nor cancelled. */
    public boolean scheduled()
    {
        return state == LIVE;
    }
}
