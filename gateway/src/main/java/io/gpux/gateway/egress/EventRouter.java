package io.gpux.gateway.egress;

import io.gpux.engine.event.Event;

/**
 * Which accounts an engine event is private to, from the event alone, so that routing is a pure
 * function of the event journal: the same on the live tail, on a resend and after a restart.
 * Public events (TRADE, BOOK) go to no account; trades go to market data subscribers.
 */
public final class EventRouter
{
    private EventRouter()
    {
    }

    /**
     * Fills {@code recipients} (length at least 2) with the event's accounts.
     *
     * @return how many (0 to 2).
     */
    public static int recipients(final Event e, final long[] recipients)
    {
        return switch (e.type)
        {
            case ACCEPTED, REJECTED, CANCELLED, FILL, BALANCE -> one(e.accountId, recipients);
            // the renter (accountId) and the machine's owner; a notice journaled without an owner goes to the renter only
            case PREEMPT_NOTICE -> two(e.accountId, e.ownerId, recipients);
            case LEASE_STARTED, LEASE_ENDED, SETTLED -> two(e.renterId, e.ownerId, recipients);
            case MACHINE_ONLINE, MACHINE_OFFLINE -> one(e.ownerId, recipients);
            case TRADE, BOOK -> 0;
        };
    }

    private static int one(final long account, final long[] out)
    {
        if (account == 0)
        {
            return 0;
        }
        out[0] = account;
        return 1;
    }

    private static int two(final long a, final long b, final long[] out)
    {
        int n = one(a, out);
        if (b != 0 && b != a)
        {
            out[n++] = b;
        }
        return n;
    }
}
