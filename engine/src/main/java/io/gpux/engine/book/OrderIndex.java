package io.gpux.engine.book;

/**
 * Every open order of the engine by (account, client order id): one open-addressing table with linear
 * probing, at most half full, holding the orders themselves (the key is read from the order). A lookup
 * from a command needs neither the account object nor a per-account table, only the account's id: one
 * probe into a table that stays in cache, then the order (and its account, to compare the id).
 */
public final class OrderIndex
{
    private static final int INITIAL_CAPACITY = 1024;
    private static final long FIBONACCI = 0x9E3779B97F4A7C15L;
    private static final long ACCOUNT_MIX = 0xC2B2AE3D27D4EB4FL;

    private Order[] slots = new Order[INITIAL_CAPACITY];
    private int shift = 64 - Integer.numberOfTrailingZeros(INITIAL_CAPACITY);
    private int size;

    /**
     * @return the open order of the account with this client order id, or null (also when there is no such
     *     account: only accounts have orders).
     */
    public Order get(final long accountId, final long clientOrderId)
    {
        final Order[] slots = this.slots;
        final int mask = slots.length - 1;
        int i = slot(accountId, clientOrderId);
        Order o;
        while ((o = slots[i]) != null)
        {
            if (o.clientOrderId == clientOrderId && o.account.id == accountId)
            {
                return o;
            }
            i = (i + 1) & mask;
        }
        return null;
    }

    public int size()
    {
        return size;
    }

    /** Adds an open order (its account and client order id set, not already in). */
    public void add(final Order order)
    {
        if ((size + 1) * 2 > slots.length)
        {
            resize(slots.length * 2);
        }
        slotIn(order);
        size++;
    }

    public void remove(final Order order)
    {
        final Order[] slots = this.slots;
        final int mask = slots.length - 1;
        int i = slot(order);
        while (slots[i] != order)
        {
            if (slots[i] == null)
            {
                throw new IllegalStateException("order " + order.clientOrderId + " is not open");
            }
            i = (i + 1) & mask;
        }
        // backward-shift deletion: no tombstones, probe runs stay short
        int gap = i;
        i = (i + 1) & mask;
        Order o;
        while ((o = slots[i]) != null)
        {
            final int home = slot(o);
            // o may move into the gap unless its home lies cyclically in (gap, i]
            if (((i - home) & mask) >= ((i - gap) & mask))
            {
                slots[gap] = o;
                gap = i;
            }
            i = (i + 1) & mask;
        }
        slots[gap] = null;
        size--;
    }

    private int slot(final Order order)
    {
        return slot(order.account.id, order.clientOrderId);
    }

    private int slot(final long accountId, final long clientOrderId)
    {
        return (int)(((accountId * ACCOUNT_MIX) ^ clientOrderId) * FIBONACCI >>> shift);
    }

    private void slotIn(final Order order)
    {
        final Order[] slots = this.slots;
        final int mask = slots.length - 1;
        int i = slot(order);
        while (slots[i] != null)
        {
            i = (i + 1) & mask;
        }
        slots[i] = order;
    }

    private void resize(final int capacity)
    {
        final Order[] old = slots;
        slots = new Order[capacity];
        shift = 64 - Integer.numberOfTrailingZeros(capacity);
        for (final Order o : old)
        {
            if (o != null)
            {
                slotIn(o);
            }
        }
    }
}
