package io.gpux.gateway.offers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

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
        board.onEvent();
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

        board.onEvent();
        nanos.addAndGet(500 * MS);
        board.onBatchApplied(replayer.engine());
        assertSame(first, read(), "a balance is no offer's change");

        nanos.addAndGet(500 * MS);
        board.onBatchApplied(replayer.engine());
        final OfferSnapshot aged = read();
        assertEquals(false, first == aged, "published again after the maximum age, with the engine's time");
    }

    @Test
    void aCopyTakesOnlyTheTouchedMachinesAndChangesWithoutEventsReachIt() throws Exception
    {
        replayer.line("0 MARKET id=M1");
        replayer.line("0 MARKET id=M2");
        replayer.line("0 CONFIG heartbeatTimeoutMs=172800000");
        replayer.line("0 ACCOUNT id=o roles=OWNER");
        replayer.line("0 MACHINE id=m1 owner=o market=M1 gpus=8");
        replayer.line("0 MACHINE id=m2 owner=o market=M2 gpus=8");
        replayer.line("0 HEARTBEAT machine=m1");
        replayer.line("0 HEARTBEAT machine=m2");
        replayer.line("0 ASK id=a1 account=o machine=m1 gpus=4 price=2");
        replayer.line("0 ASK id=a2 account=o machine=m2 gpus=4 price=3");
        board.onRecovered(replayer.engine());
        final OfferSnapshot first = read();
        assertEquals(2, first.rows().size());
        assertEquals(950_000, first.rows().get(0).reliabilityPpm(), "a new machine's reliability is capped at 95%");
        assertEquals(2, first.machinesOf(replayer.engine().machine(first.rows().get(0).machineId()).owner.id));

        // a registration has no event of its own: it reaches the owner's machine count
        replayer.line("10 MACHINE id=m3 owner=o market=M1 gpus=2");
        nanos.addAndGet(20 * MS);
        board.onBatchApplied(replayer.engine());
        final OfferSnapshot registered = read();
        assertEquals(false, first == registered, "copied after the registration");
        assertEquals(3, registered.machinesOf(replayer.engine().machine(first.rows().get(0).machineId()).owner.id));
        assertSame(first.rows().get(0), registered.rows().get(0), "an untouched machine's row is not copied again");
        assertSame(first.rows().get(1), registered.rows().get(1), "an untouched machine's row is not copied again");

        // the first birthday recomputes both reliabilities without any event; a halt has none either
        replayer.line("86400001 TICK");
        replayer.line("86400001 HALT market=M2");
        board.onEvent();
        final AtomicReference<OfferSnapshot> answered = new AtomicReference<>();
        board.read(answered::set);
        assertNull(answered.get(), "stale: not answered before the copy");
        nanos.addAndGet(20 * MS);
        board.onBatchApplied(replayer.engine());
        assertEquals(1, answered.get().rows().size(), "the halted market's offer is gone");
        assertEquals(1_000_000, answered.get().rows().get(0).reliabilityPpm(), "online all its first day");

        replayer.line("86400002 RESUME market=M2");
        nanos.addAndGet(20 * MS);
        board.onBatchApplied(replayer.engine());
        assertEquals(2, read().rows().size(), "resumed");
    }

    private OfferSnapshot read()
    {
        final AtomicReference<OfferSnapshot> got = new AtomicReference<>();
        board.read(got::set);
        return got.get();
    }
}
