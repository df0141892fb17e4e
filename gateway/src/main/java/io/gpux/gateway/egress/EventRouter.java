package io.gpux.gateway.egress;

import io.gpux.engine.event.Event;
import io.gpux.engine.event.Recipients;

/**
 * Which accounts an engine event is private to, from the event alone (the engine's rule,
 * {@link Recipients}, by which it numbers each account's events), so that routing is a pure function of
 * the event journal. Public events (TRADE, BOOK) go to no account; trades go to market data subscribers.
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
        return Recipients.of(e, recipients);
    }
}
