package io.gpux.engine.book;

/** A free list of orders: steady-state order entry allocates nothing. */
public final class OrderPool
{
    private Order[] free = new Order[1024];
    private int size;
    private long nextUid = 1;

    public Order acquire()
    {
        final Order order = size == 0 ? new Order() : free[--size];
        order.uid = nextUid++;
        return order;
    }

    public void release(final Order order)
    {
        order.clear();
        if (size == free.length)
        {
            free = java.util.Arrays.copyOf(free, size * 2);
        }
        free[size++] = order;
    }

    public long nextUid()
    {
        return nextUid;
    }

    public void nextUid(final long value)
    {
        nextUid = value;
    }
}
