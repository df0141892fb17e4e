package io.gpux.engine.funds;

import io.gpux.engine.book.Order;
import org.agrona.collections.Long2ObjectHashMap;

/** An account: roles, balance, holds and its open orders. */
public final class Account
{
    public final long id;
    public final String name;
    public final int roles;
    /** Micro-units; never negative. */
    public long balance;
    /** Sum of every hold: resting bids and leases. */
    public long held;
    /** Open orders by client order id, both sides, every market. */
    public final Long2ObjectHashMap<Order> openOrders = new Long2ObjectHashMap<>();
    public Order firstOpen;
    public Order lastOpen;

    public Account(final long id, final String name, final int roles)
    {
        this.id = id;
        this.name = name;
        this.roles = roles;
    }

    public long available()
    {
        return balance - held;
    }

    public void addOpen(final Order order)
    {
        openOrders.put(order.clientOrderId, order);
        order.accountPrev = lastOpen;
        order.accountNext = null;
        if (lastOpen == null)
        {
            firstOpen = order;
        }
        else
        {
            lastOpen.accountNext = order;
        }
        lastOpen = order;
    }

    public void removeOpen(final Order order)
    {
        openOrders.remove(order.clientOrderId);
        if (order.accountPrev == null)
        {
            firstOpen = order.accountNext;
        }
        else
        {
            order.accountPrev.accountNext = order.accountNext;
        }
        if (order.accountNext == null)
        {
            lastOpen = order.accountPrev;
        }
        else
        {
            order.accountNext.accountPrev = order.accountPrev;
        }
        order.accountPrev = null;
        order.accountNext = null;
    }
}
