package io.gpux.bench.platform;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The echo's bookkeeping, over real loopback sockets: no timing is asserted, only that every message is counted right. */
class LoopbackFloorTest
{
    @Test
    void everyMessageComesBackOnceInOrderOnItsOwnConnectionAndOnlyTheMeasuredOnesAreRecorded() throws Exception
    {
        final LoopbackFloor.Result r = LoopbackFloor.run(20_000, 3, 100, 0, 3_000, 1_000);
        assertEquals(3_000, r.sent());
        assertEquals(3_000, r.received());
        assertEquals(3_000, r.echoed());
        assertEquals(0, r.outOfOrder());
        assertEquals(2_000, r.fromDue().getTotalCount());
        assertEquals(2_000, r.fromSend().getTotalCount());
        // the latency from the send is part of that from when the message was due
        assertTrue(r.fromSend().getValueAtPercentile(50) <= r.fromDue().getValueAtPercentile(50));
        // each side's every message went through at least one write and one read
        assertTrue(r.load().writes >= 1 && r.load().reads >= 1 && r.echo().writes >= 1 && r.echo().reads >= 1);
        assertTrue(r.load().writes <= 3_000 && r.echo().writes <= 3_000);
    }

    @Test
    void theEchosWorkIsDoneForEachMessage() throws Exception
    {
        final LoopbackFloor.Result r = LoopbackFloor.run(10_000, 1, 24, 200_000, 50, 0);
        assertEquals(50, r.received());
        // no message comes back before the echo has spun its 0.2 ms for it (HdrHistogram keeps 3 digits)
        assertTrue(r.fromSend().getMinValue() >= 199_000, "min " + r.fromSend().getMinValue());
    }

    @Test
    void aMessageTooSmallForItsHeaderIsRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> LoopbackFloor.run(1_000, 1, 16, 0, 10, 0));
    }
}
