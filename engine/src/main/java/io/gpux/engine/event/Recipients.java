package io.gpux.engine.event;

/**
 * Which accounts an engine event is private to, from the event alone: the renter and the owner for
 * lease events, the owner for machine events, the account for order and balance events, the renter
 * ({@code accountId}) and the owner for a PREEMPT_NOTICE. Public events (TRADE, BOOK) go to no account.
 * The engine numbers each recipient's events in this order ({@link Event#accountSeq(int)}), and the
 * gateway routes them by it.
 */
public final class Recipients
{
    private Recipients()
    {
    }

    /**
     * Fills {@code recipients} (length at least 2) with the event's accounts.
     *
     * @return how many (0 to 2).
     */
    public static int of(final Event e, final long[] recipients)
    {
        return switch (e.type)
        {
            case ACCEPTED, REJECTED, CANCELLED, FILL, BALANCE -> one(e.accountId, recipients);
            // a notice journaled without an owner goes to the renter only
            case PREEMPT_NOTICE -> two(e.accountId, e.ownerId, recipients);
            case LEASE_STARTED, LEASE_ENDED, SETTLED -> two(e.renterId, e.ownerId, recipients);
            case MACHINE_ONLINE, MACHINE_OFFLINE -> one(e.ownerId, recipients);
            case TRADE, BOOK -> 0;
        };
    }

    /** The place of {@code account} among the event's recipients (0 or 1), or -1 if it is not one. */
    public static int indexOf(final Event e, final long account, final long[] scratch)
    {
        final int n = of(e, scratch);
        for (int i = 0; i < n; i++)
        {
            if (scratch[i] == account)
            {
                return i;
            }
        }
        return -1;
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
