package io.gpux.gateway.session;

import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A session's pending-request table (sized by what is in flight) and the session registry's limits and revokes. */
class SessionTest
{
    private static Session session(final long id, final long account, final long key)
    {
        return new Session(id, new EmbeddedChannel(), account, "acct-" + account, 0, false, key);
    }

    @Test
    void thePendingTableStartsSmallGrowsWithWhatIsInFlightAndKeepsEveryRequest()
    {
        final Session s = session(1, 1, 1);
        assertEquals(Session.INITIAL_PENDING, s.pendingCapacity(), "an idle session holds a small table");
        final ArrayDeque<long[]> inFlight = new ArrayDeque<>();  // {correlation, request id}
        long requestId = 1000;
        // a steady trickle: one in flight at a time, for many more requests than the table holds
        for (int i = 0; i < 10 * Session.MAX_PENDING / Session.INITIAL_PENDING; i++)
        {
            final long c = s.track(requestId, Session.KIND_COMMAND, 0);
            assertEquals(requestId++, s.requestId(Session.slotOf(c)));
            s.completed();
        }
        assertEquals(Session.INITIAL_PENDING, s.pendingCapacity(), "requests answered one by one never grow it");

        // a burst: the table doubles as needed, and each request in flight is still found by its correlation
        for (int i = 0; i < 1000; i++)
        {
            final long c = s.track(requestId, i % 3 == 0 ? Session.KIND_NEW_KEY : Session.KIND_COMMAND, i);
            assertNotEquals(0, c);
            inFlight.addLast(new long[] {c, requestId++, i});
            if (i % 7 == 0)
            {
                answerOldest(s, inFlight);
            }
        }
        assertEquals(1024, s.pendingCapacity(), "the smallest power of two that holds what was in flight");
        while (!inFlight.isEmpty())
        {
            answerOldest(s, inFlight);
        }
    }

    private static void answerOldest(final Session s, final ArrayDeque<long[]> inFlight)
    {
        final long[] oldest = inFlight.removeFirst();
        final int slot = Session.slotOf(oldest[0]);
        assertEquals(oldest[1], s.requestId(slot));
        assertEquals(oldest[2] % 3 == 0 ? Session.KIND_NEW_KEY : Session.KIND_COMMAND, s.kind(slot));
        assertEquals(oldest[2], s.assignedId(slot));
        s.completed();
    }

    @Test
    void noMoreThanMaxPendingInFlight()
    {
        final Session s = session(1, 1, 1);
        for (int i = 0; i < Session.MAX_PENDING; i++)
        {
            assertNotEquals(0, s.track(i, Session.KIND_COMMAND, 0));
        }
        assertEquals(0, s.track(-1, Session.KIND_COMMAND, 0), "one more is refused (answered BUSY)");
        assertEquals(Session.MAX_PENDING, s.pendingCapacity());
        s.completed();
        assertNotEquals(0, s.track(-1, Session.KIND_COMMAND, 0));
    }

    @Test
    void theRegistryHoldsItsLimitsPerAccountAndInAll()
    {
        final SessionRegistry registry = new SessionRegistry(2, 3);
        final Session a1 = session(1, 10, 100);
        final Session a2 = session(2, 10, 101);
        assertNull(registry.register(a1, k -> true));
        assertNull(registry.register(a2, k -> true));
        final SessionRegistry.Refusal perAccount = registry.register(session(3, 10, 100), k -> true);
        assertTrue(perAccount.message().contains("account acct-10 has its maximum of 2 sessions"), perAccount::message);
        assertNull(registry.register(session(4, 20, 200), k -> true));
        final SessionRegistry.Refusal total = registry.register(session(5, 30, 300), k -> true);
        assertTrue(total.message().contains("the server has its maximum of 3 sessions"), total::message);
        registry.unregister(a1);
        registry.unregister(a1);
        assertEquals(2, registry.sessions());
        assertNull(registry.register(session(6, 30, 300), k -> true), "a place freed is taken again");
        assertEquals(1, registry.sessions(30));
    }

    @Test
    void aRevokeMarksTheKeysSessionsAndAFailedPublishUndoesIt()
    {
        final SessionRegistry registry = new SessionRegistry(8, 8);
        final Session k1 = session(1, 10, 100);
        final Session k1b = session(2, 10, 100);
        final Session k2 = session(3, 10, 101);
        for (final Session s : List.of(k1, k1b, k2))
        {
            assertNull(registry.register(s, k -> true));
        }
        final boolean[] live = {true};
        assertEquals(List.of(k1, k1b), registry.revokeKey(100, () -> live[0] = false));
        assertTrue(!live[0] && k1.revoked() && k1b.revoked() && !k2.revoked());
        assertEquals("the key was revoked", registry.register(session(4, 10, 100), k -> live[0]).message(),
            "no login of the key once it is revoked");
        registry.restoreKey(100, () -> live[0] = true);
        assertTrue(live[0] && !k1.revoked() && !k1b.revoked());
    }
}
