package io.gpux.engine.book;

/** The orders at one price, oldest priority first: an intrusive doubly linked list. */
public final class PriceLevel
{
    long price;
    Order head;
    Order tail;
    long gpus;
    /** Position in its side's sorted level array while it is in it; -1 in the pool. */
    int index = -1;

    public long price()
    {
        return price;
    }

    public Order head()
    {
        return head;
    }

    /** Open GPUs of all orders at this level. */
    public long gpus()
    {
        return gpus;
    }
}
