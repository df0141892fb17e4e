package io.gpux.engine;

import io.gpux.engine.event.Event;
import io.gpux.engine.event.Recipients;
import io.gpux.engine.funds.Account;

import java.util.HashMap;
import java.util.Map;

import static io.gpux.engine.Invariants.require;

/**
 * The numbering of the events (rulebook sections 10 and 11): engine sequence numbers without gaps,
 * times that never go back, and each recipient account's event numbers (gap-free, each linked back to
 * the account's previous event, and the account's last number and event in its state, see
 * docs/protocol.md).
 */
final class EventNumberInvariants
{
    private final MatchingEngine engine;
    private long lastSequence;
    /** Per account: its last event number and that event's sequence, from the events. */
    private final Map<Long, long[]> accountEvents = new HashMap<>();
    private final long[] recipients = new long[2];
    private long lastEventTime = Long.MIN_VALUE;

    EventNumberInvariants(final MatchingEngine engine)
    {
        this.engine = engine;
    }

    void onEvent(final Event e)
    {
        require(e.sequence == lastSequence + 1, "event sequence " + e.sequence + " after " + lastSequence);
        lastSequence = e.sequence;
        require(e.timeMs >= lastEventTime, "event time " + e.timeMs + " after " + lastEventTime + " (" + e.type + ")");
        lastEventTime = e.timeMs;
        checkNumbers(e);
    }

    private void checkNumbers(final Event e)
    {
        final int n = Recipients.of(e, recipients);
        for (int i = 0; i < n; i++)
        {
            final Account a = engine.account(recipients[i]);
            if (a == null)
            {
                require(e.accountSeq(i) == 0, e.type + " " + e.sequence + " numbered for account " + recipients[i] + " the engine does not hold");
                continue;
            }
            final long[] last = accountEvents.computeIfAbsent(a.id, k -> new long[2]);
            require(e.accountSeq(i) == last[0] + 1 && e.previous(i) == last[1], e.type + " " + e.sequence + " is account " +
                a.id + "'s event " + e.accountSeq(i) + " after " + e.previous(i) + ", not " + (last[0] + 1) + " after " + last[1]);
            last[0] = e.accountSeq(i);
            last[1] = e.sequence;
            require(a.lastSeq == last[0] && a.lastEventSequence == last[1], "account " + a.id + " holds event " + a.lastSeq +
                " at " + a.lastEventSequence + ", its events say " + last[0] + " at " + last[1]);
        }
    }
}
