package io.gpux.gateway.egress;

import org.agrona.collections.Long2LongHashMap;

/**
 * Per account seen since the egress started (in an event tailed, or at a login): its last event
 * number and that event's engine sequence, as the engine numbered them. The egress counts nothing
 * itself: it takes both from the events it tails and, at a login, from the engine. On the egress
 * thread only.
 */
final class AccountNumbers
{
    private final Long2LongHashMap lastSeqOf = new Long2LongHashMap(0);
    private final Long2LongHashMap lastEventOf = new Long2LongHashMap(0);

    /** The account's {@code seq}-th event, engine sequence {@code eventSeq}, was tailed. */
    void onEvent(final long account, final long seq, final long eventSeq)
    {
        lastSeqOf.put(account, seq);
        lastEventOf.put(account, eventSeq);
    }

    /** The engine had the account at these numbers at a login: taken if newer than what was tailed. */
    void onLogin(final long account, final long lastSeq, final long lastEventSeq)
    {
        if (lastEventSeq > lastEventOf.get(account))
        {
            onEvent(account, lastSeq, lastEventSeq);
        }
    }

    /** The account's last event number (0: none known). */
    long lastSeq(final long account)
    {
        return lastSeqOf.get(account);
    }

    /** The engine sequence of the account's last event (0: none known). */
    long lastEvent(final long account)
    {
        return lastEventOf.get(account);
    }
}
