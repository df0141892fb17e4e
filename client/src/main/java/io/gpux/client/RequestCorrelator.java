package io.gpux.client;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Request correlation of one {@link GpuxClient}: the request ids (increasing, unique for the client's
 * life), the places taken in the order-entry queue, and the blocking callers waiting for the answer
 * to a request id. Ids and places are taken on any thread; answers are matched on the event loop.
 */
final class RequestCorrelator
{
    /** A blocking caller waiting for the answer to one request. */
    static final class Waiter extends CompletableFuture<Object>
    {
        final boolean survivesReconnect;

        Waiter(final boolean survivesReconnect)
        {
            this.survivesReconnect = survivesReconnect;
        }
    }

    private final int maxPendingCommands;
    private final AtomicLong requestIds = new AtomicLong();
    private final AtomicInteger pendingReservations = new AtomicInteger();
    private final Map<Long, Waiter> waiters = new ConcurrentHashMap<>();

    RequestCorrelator(final int maxPendingCommands)
    {
        this.maxPendingCommands = maxPendingCommands;
    }

    long nextRequestId()
    {
        return requestIds.incrementAndGet();
    }

    /** Takes a place in the order-entry queue for a caller on any thread; false when full. */
    boolean reserveOrderEntry()
    {
        if (pendingReservations.incrementAndGet() > maxPendingCommands)
        {
            pendingReservations.decrementAndGet();
            return false;
        }
        return true;
    }

    /** Gives back the place of an order-entry command that was answered or dropped. */
    void releaseOrderEntry()
    {
        pendingReservations.decrementAndGet();
    }

    /** Order-entry commands issued and not answered yet. */
    int unansweredOrderEntry()
    {
        return pendingReservations.get();
    }

    void addWaiter(final long requestId, final Waiter waiter)
    {
        waiters.put(requestId, waiter);
    }

    void removeWaiter(final long requestId)
    {
        waiters.remove(requestId);
    }

    void completeWaiter(final long requestId, final Object answer)
    {
        if (!waiters.isEmpty())
        {
            final Waiter waiter = waiters.remove(requestId);
            if (waiter != null)
            {
                waiter.complete(answer);
            }
        }
    }

    void failWaiter(final long requestId, final Throwable cause)
    {
        if (!waiters.isEmpty())
        {
            final Waiter waiter = waiters.remove(requestId);
            if (waiter != null)
            {
                waiter.completeExceptionally(cause);
            }
        }
    }

    /** The connection dropped: fails the waiters whose requests are not re-sent after a reconnect. */
    void onConnectionLost(final Throwable cause)
    {
        for (final Iterator<Waiter> it = waiters.values().iterator(); it.hasNext(); )
        {
            final Waiter waiter = it.next();
            if (!waiter.survivesReconnect)
            {
                waiter.completeExceptionally(cause);
                it.remove();
            }
        }
    }

    /** The client closed: fails every waiter and gives back every place. */
    void onClosed(final Throwable cause)
    {
        for (final Iterator<Waiter> it = waiters.values().iterator(); it.hasNext(); )
        {
            it.next().completeExceptionally(cause);
            it.remove();
        }
        pendingReservations.set(0);
    }
}
