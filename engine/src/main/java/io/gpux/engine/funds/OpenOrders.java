package io.gpux.engine.funds;

import io.gpux.engine.book.Order;

/** An account's open orders by client order id, read-only (kept for the callers of {@code account.openOrders}). */
public final class OpenOrders
{
    private final Account account;

    OpenOrders(final Account account)
    {
        this.account = account;
    }

    /** @return the open order with this client order id, or null. */
    public Order get(final long clientOrderId)
    {
        return account.openOrder(clientOrderId);
    }

    public boolean containsKey(final long clientOrderId)
    {
        return account.openOrder(clientOrderId) != null;
    }

    public int size()
    {
        return account.openOrderCount();
    }

    public boolean isEmpty()
    {
        return account.openOrderCount() == 0;
    }
}
