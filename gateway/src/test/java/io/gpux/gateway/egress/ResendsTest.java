package io.gpux.gateway.egress;

import io.gpux.gateway.session.Session;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The resends' registry on the egress: the limits, and a resend ended while the reader has it. */
class ResendsTest
{
    private final Resends resends = new Resends(new Egress.ResendLimits(2, 3, 1 << 20));

    private ResendCursor start(final long sessionId, final long accountId)
    {
        // the readers are never touched: these tests read no journal
        resends.start(new Session(sessionId, new EmbeddedChannel(), accountId, "a" + accountId, 0, false, 1), null, 0, 1_000);
        return resends.of(sessionId);
    }

    @Test
    void anAccountAndTheGatewayMayRunOnlySoManyResendsAtOnce()
    {
        start(1, 101);
        assertNull(resends.refusal(101));
        start(2, 101);
        assertTrue(resends.refusal(101).contains("the account has 2 resends in progress"), resends.refusal(101));
        assertNull(resends.refusal(102));
        final ResendCursor third = start(3, 102);
        assertTrue(resends.refusal(103).contains("the gateway has 3 resends in progress"), resends.refusal(103));
        resends.end(third);
        assertNull(resends.refusal(103));
        assertEquals(2, resends.inProgress());
    }

    @Test
    void aResendEndedWhileTheReaderHasItIsClosedWhenItComesBack()
    {
        final ResendCursor c = start(1, 101);
        final ByteBuf held = c.held();
        c.busy = true;
        resends.end(c);
        assertNull(resends.of(1), "forgotten at once");
        assertNull(resends.refusal(101));
        assertTrue(c.ended, "to be closed when the reader hands it back");
        assertEquals(1, held.refCnt(), "what it held is still the cursor's: the reader may be using the cursor");
        c.busy = false;
        c.close();
        assertEquals(0, held.refCnt());
    }

    @Test
    void aResendEndedOnTheEgressIsClosedAtOnce()
    {
        final ResendCursor c = start(1, 101);
        final ByteBuf held = c.held();
        assertNotNull(resends.of(1));
        resends.end(c);
        assertEquals(0, held.refCnt());
        assertTrue(!c.ended);
    }
}
