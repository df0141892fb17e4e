package io.gpux.engine.funds;

import io.gpux.engine.book.Order;
import io.gpux.engine.book.OrderIndex;

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
    /** Open orders by client order id, both sides, every market (a read-only view of the engine's index). */
    public final OpenOrders openOrders = new OpenOrders(this);
    /** Open cancel-on-disconnect sessions, as the COD_SESSION commands counted them. */
    public int codSessions;
    public Order firstOpen;
    public Order lastOpen;

    /** The engine's open orders by (account, client order id), shared by all its accounts. */
    private final OrderIndex orderIndex;
    private int openCount;

    /** An account of its own, not sharing an engine's index of open orders. */
    public Account(final long id, final String name, final int roles)
    {
        this(id, name, roles, new OrderIndex());
    }

    public Account(final long id, final String name, final int roles, final OrderIndex orderIndex)
    {
        this.id = id;
        this.name = name;
        this.roles = roles;
        this.orderIndex = orderIndex;
    }

    public long available()
    {
        return balance - held;
    }

    /** @return the open order with this client order id, or null. */
    public Order openOrder(final long clientOrderId)
    {
        return orderIndex.get(id, clientOrderId);
    }

    public int openOrderCount()
    {
        return openCount;
    }

    public void addOpen(final Order order)
    {
        orderIndex.add(order);
        openCount++;
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
        orderIndex.remove(order);
        openCount--;
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
