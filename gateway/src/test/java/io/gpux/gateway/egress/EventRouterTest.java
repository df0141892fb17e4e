package io.gpux.gateway.egress;

import io.gpux.engine.event.Event;
import io.gpux.engine.event.EventType;
import io.gpux.engine.event.NoticeReason;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Who gets a preemption notice: the lease's renter and the machine's owner, each once. */
class EventRouterTest
{
    private static final long RENTER = 7;
    private static final long OWNER = 11;

    private static Event notice(final long renter, final long owner)
    {
        final Event e = new Event();
        e.type = EventType.PREEMPT_NOTICE;
        e.leaseId = 3;
        e.noticeReason = NoticeReason.OUTBID;
        e.effectiveMs = 30_000;
        e.accountId = renter;
        e.ownerId = owner;
        return e;
    }

    @Test
    void aNoticeGoesToTheRenterAndToTheMachinesOwner()
    {
        final long[] to = new long[2];
        assertEquals(2, EventRouter.recipients(notice(RENTER, OWNER), to));
        assertArrayEquals(new long[] {RENTER, OWNER}, to);
    }

    @Test
    void aNoticeJournaledWithoutItsOwnerGoesToTheRenterAlone()
    {
        final long[] to = new long[2];
        assertEquals(1, EventRouter.recipients(notice(RENTER, 0), to));
        assertEquals(RENTER, to[0]);
    }

    @Test
    void anAccountThatRentsItsOwnMachineGetsTheNoticeOnce()
    {
        final long[] to = new long[2];
        assertEquals(1, EventRouter.recipients(notice(RENTER, RENTER), to));
        assertEquals(RENTER, to[0]);
    }
}
