package io.gpux.gateway.offers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.gpux.engine.event.EventType;
import io.gpux.engine.replay.ScenarioReplayer;
import java.io.Writer;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The board is copied after a change, at most once per interval and at least once per maximum age, and
 * a search that comes while a change waits is answered by the next copy, never by the stale one.
 */
class OfferBoardTest
{
    private static final long MS = 1_000_000;

    private final AtomicLong nanos = new AtomicLong(1_000 * MS);
    private final OfferBoard board = new OfferBoard(nanos::get, 20 * MS, 1_000 * MS);
    private final ScenarioReplayer replayer = new ScenarioReplayer(Writer.nullWriter());

    @Test
    void aSearchDuringAChangeWaitsForTheNextCopy() throws Exception
    {
        replayer.line("0 MARKET id=M1");
        replayer.line("0 ACCOUNT id=o roles=OWNER");
        replayer.line("0 MACHINE id=m1 owner=o market=M1 gpus=8");
        replayer.line("0 HEARTBEAT machine=m1");
        board.onRecovered(replayer.engine());
        final OfferSnapshot empty = read();
        assertEquals(0, empty.rows().size());

        // an ask: its events mark the board stale; the copy waits out the interval since the last one
        replayer.line("10 ASK id=a1 account=o machine=m1 gpus=4 price=2");
        board.onEvent(EventType.ACCEPTED);
        nanos.addAndGet(5 * MS);
        board.onBatchApplied(replayer.engine());
        final AtomicReference<OfferSnapshot> answered = new AtomicReference<>();
        board.read(answered::set);
        assertNull(answered.get(), "not answered from the stale copy");

        nanos.addAndGet(15 * MS);
        board.onBatchApplied(replayer.engine());
        assertEquals(1, answered.get().rows().size(), "answered by the copy that holds the ask");
        assertEquals(4, answered.get().rows().get(0).freeGpus());
        assertSame(answered.get(), read(), "fresh: answered at once");
    }

    @Test
    void batchesWithoutChangesCopyOnlyOnceTheCopyIsOld() throws Exception
    {
        replayer.line("0 MARKET id=M1");
        board.onRecovered(replayer.engine());
        final OfferSnapshot first = read();

        board.onEvent(EventType.BALANCE);
        nanos.addAndGet(500 * MS);
        board.onBatchApplied(replayer.engine());
        assertSame(first, read(), "a balance is no offer's change");

        nanos.addAndGet(500 * MS);
        board.onBatchApplied(replayer.engine());
        final OfferSnapshot aged = read();
        assertEquals(false, first == aged, "copied again after the maximum age (reliabilities move with time alone)");
    }

    private OfferSnapshot read()
    {
        final AtomicReference<OfferSnapshot> got = new AtomicReference<>();
        board.read(got::set);
        return got.get();
    }
}
