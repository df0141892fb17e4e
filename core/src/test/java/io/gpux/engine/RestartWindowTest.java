package io.gpux.engine;

import io.gpux.engine.command.Command;
import io.gpux.engine.event.EventType;
import io.gpux.engine.event.RejectReason;
import io.gpux.core.journal.CommandCodec;
import io.gpux.engine.replay.CommandPrinter;
import io.gpux.engine.replay.ScenarioException;
import io.gpux.engine.replay.Symbols;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The {@code CONFIG restartWindowMs} setting (docs/market-rules.md sections 2 and 14) beyond its golden
 * scenarios: how it is parsed, printed, journaled and validated, and that it is in the state hash and in
 * snapshots, older snapshots included.
 */
class RestartWindowTest
{
    private static final String MACHINE_THEN_RESTART = """
        0 MARKET id=H100
        0 CONFIG restartWindowMs=30000
        0 ACCOUNT id=own roles=OWNER
        0 MACHINE id=m1 owner=own market=H100 gpus=1
        0 HEARTBEAT machine=m1
        5000 TICK
        10000 RESTART""";

    @Test
    void parsesPrintsAndJournals() throws Exception
    {
        final Symbols symbols = new Symbols();
        final Command c = SnapshotEquivalenceTest.parse(symbols, "5 CONFIG heartbeatTimeoutMs=15000 restartWindowMs=90000").get(0);
        assertEquals(90_000, c.restartWindowMs);
        assertEquals(15_000, c.heartbeatTimeoutMs);
        c.sequence = 3;
        final CommandCodec codec = new CommandCodec();
        final int length = codec.encode(c);
        final Command back = new Command();
        assertNull(codec.decode(length, back));
        assertEquals(90_000, back.restartWindowMs);
        assertEquals("5 CONFIG heartbeatTimeoutMs=15000 restartWindowMs=90000", new CommandPrinter(symbols).format(back));

        final Command without = SnapshotEquivalenceTest.parse(symbols, "5 CONFIG heartbeatTimeoutMs=15000").get(0);
        assertEquals(Command.ABSENT, without.restartWindowMs);
        final Command withoutBack = new Command();
        assertNull(codec.decode(codec.encode(without), withoutBack));
        assertEquals(Command.ABSENT, withoutBack.restartWindowMs, "a record without the field decodes as before it existed");

        final ScenarioException notANumber = assertThrows(ScenarioException.class,
            () -> SnapshotEquivalenceTest.parse(symbols, "5 CONFIG restartWindowMs=1m"));
        assertEquals("line 1: restartWindowMs is not an integer: '1m'", notANumber.getMessage());
    }

    @Test
    void outOfRangeIsInvalidParameterAndChangesNothing() throws Exception
    {
        final List<RejectReason> rejects = new ArrayList<>();
        final MatchingEngine engine = new MatchingEngine(e ->
        {
            if (e.type == EventType.REJECTED)
            {
                rejects.add(e.rejectReason);
            }
        });
        final Symbols symbols = new Symbols();
        for (final Command c : SnapshotEquivalenceTest.parse(symbols, """
            0 CONFIG restartWindowMs=0
            0 CONFIG restartWindowMs=2592000000"""))
        {
            engine.apply(c);
        }
        assertEquals(List.of(), rejects, "0 and 30 days are allowed");
        assertEquals(Admin.MAX_HEARTBEAT_MS, engine.restartWindowMs);

        for (final Command c : SnapshotEquivalenceTest.parse(symbols, """
            1 CONFIG restartWindowMs=-1
            1 CONFIG restartWindowMs=2592000001
            1 CONFIG heartbeatTimeoutMs=1000 restartWindowMs=-5"""))
        {
            engine.apply(c);
        }
        assertEquals(List.of(RejectReason.INVALID_PARAMETER, RejectReason.INVALID_PARAMETER, RejectReason.INVALID_PARAMETER),
            rejects);
        assertEquals(Admin.MAX_HEARTBEAT_MS, engine.restartWindowMs);
        assertEquals(MatchingEngine.DEFAULT_HEARTBEAT_TIMEOUT_MS, engine.heartbeatTimeoutMs,
            "a rejected CONFIG applies none of its keys");
        final MatchingEngine same = new MatchingEngine(e -> { });
        for (final Command c : SnapshotEquivalenceTest.parse(new Symbols(), """
            0 CONFIG restartWindowMs=2592000000
            1 TICK"""))
        {
            same.apply(c);
        }
        assertEquals(same.stateHash(), engine.stateHash());
    }

    @Test
    void isInTheStateHashOnlyWhenNotTheDefault() throws Exception
    {
        final MatchingEngine a = new MatchingEngine(e -> { });
        final MatchingEngine b = new MatchingEngine(e -> { });
        a.apply(SnapshotEquivalenceTest.parse(new Symbols(), "0 TICK").get(0));
        b.apply(SnapshotEquivalenceTest.parse(new Symbols(), "0 CONFIG restartWindowMs=60000").get(0));
        assertEquals(a.stateHash(), b.stateHash(), "the default hashes as before the setting existed");
        b.apply(SnapshotEquivalenceTest.parse(new Symbols(), "0 CONFIG restartWindowMs=59999").get(0));
        assertNotEquals(a.stateHash(), b.stateHash());
    }

    /** A snapshot taken inside the restart window replays the rest exactly; an older one loads with the default. */
    @Test
    void survivesASnapshotAndOlderSnapshotsStillLoad() throws Exception
    {
        final Symbols symbols = new Symbols();
        final List<String> straightEvents = new ArrayList<>();
        final MatchingEngine straight = new MatchingEngine(e -> straightEvents.add(e.timeMs + " " + e.type));
        for (final Command c : SnapshotEquivalenceTest.parse(symbols, MACHINE_THEN_RESTART))
        {
            straight.apply(c);
        }
        final byte[] snapshot = SnapshotEquivalenceTest.snapshot(straight);
        final MatchingEngine restored = SnapshotEquivalenceTest.restore(snapshot);
        assertEquals(30_000, restored.restartWindowMs);
        assertEquals(straight.stateHash(), restored.stateHash());

        final List<String> restoredEvents = new ArrayList<>();
        restored.sink(e -> restoredEvents.add(e.timeMs + " " + e.type));
        straightEvents.clear();
        for (final Command c : SnapshotEquivalenceTest.parse(symbols, "25000 TICK\n39999 TICK\n40000 TICK"))
        {
            straight.apply(c);
            restored.apply(c);
        }
        assertEquals(List.of("40000 MACHINE_OFFLINE"), straightEvents, "silent until T + restartWindowMs");
        assertEquals(straightEvents, restoredEvents);

        // version 3: the market without the levers' fields (added in version 5), read up to the sessions (what
        // follows, the restart window and the accounts' event numbers, a version-3 reader leaves unread)
        final int leversAt = 2 * Integer.BYTES + 10 * Long.BYTES + Integer.BYTES // magic, version, counters, markets
            + Long.BYTES + 2 + "H100".length() + Long.BYTES + 1 + Long.BYTES + Long.BYTES; // id .. minIncrement
        final int leversBytes = Integer.BYTES + 1; // preemptIncrementBps, fragmentFirst
        final byte[] version3 = new byte[snapshot.length - leversBytes];
        System.arraycopy(snapshot, 0, version3, 0, leversAt);
        System.arraycopy(snapshot, leversAt + leversBytes, version3, leversAt, snapshot.length - leversAt - leversBytes);
        ByteBuffer.wrap(version3).putInt(Integer.BYTES, 3);
        final MatchingEngine old = SnapshotEquivalenceTest.restore(version3);
        assertEquals(MatchingEngine.DEFAULT_RESTART_WINDOW_MS, old.restartWindowMs);
        assertEquals(10_000, old.restartedAtMs);
    }
}
