package io.gpux.engine;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.event.Event;
import io.gpux.engine.event.RejectReason;
import io.gpux.core.journal.CommandCodec;
import io.gpux.engine.replay.CommandPrinter;
import io.gpux.engine.replay.ScenarioParser;
import io.gpux.engine.replay.Symbols;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * API keys (KEY): what the gateway reads back after a restart (from a snapshot or the journal), the
 * state hash, and the journal and scenario round trips of the command.
 */
class ApiKeysTest
{
    private static final String SCENARIO = """
        0 ACCOUNT id=alice roles=RENTER
        0 ACCOUNT id=bob roles=OWNER
        1 KEY account=alice key=7
        2 KEY account=bob key=3
        3 KEY account=alice key=12
        4 KEY account=alice key=7 revoke=true
        5 KEY account=bob key=900
        """;

    private final Symbols symbols = new Symbols();
    private final List<Event> events = new ArrayList<>();

    private MatchingEngine run(final String scenario) throws Exception
    {
        final MatchingEngine engine = new MatchingEngine(e ->
        {
            final Event copy = new Event();
            copy.type = e.type;
            copy.rejectReason = e.rejectReason;
            copy.accountId = e.accountId;
            copy.command = e.command;
            events.add(copy);
        });
        for (final Command c : SnapshotEquivalenceTest.parse(symbols, scenario))
        {
            engine.apply(c);
        }
        return engine;
    }

    private long account(final String name)
    {
        return symbols.accounts.existing(name);
    }

    private static long[][] liveKeys(final MatchingEngine engine)
    {
        final List<long[]> keys = new ArrayList<>();
        engine.forEachKey((keyId, accountId) -> keys.add(new long[]{keyId, accountId}));
        return keys.toArray(new long[0][]);
    }

    @Test
    void keyAccountAnswersLiveKeysOnly() throws Exception
    {
        final MatchingEngine engine = run(SCENARIO);
        assertEquals(List.of(), events);
        assertEquals(0, engine.keyAccount(7), "revoked");
        assertEquals(account("bob"), engine.keyAccount(3));
        assertEquals(account("alice"), engine.keyAccount(12));
        assertEquals(account("bob"), engine.keyAccount(900));
        assertEquals(0, engine.keyAccount(4), "never added");
        assertEquals(0, engine.keyAccount(0));
        assertEquals(0, engine.keyAccount(-3));
        assertArrayEquals(new long[][]{{3, account("bob")}, {12, account("alice")}, {900, account("bob")}},
            liveKeys(engine), "live keys in key id order");
    }

    @Test
    void keysSurviveASnapshotRestore() throws Exception
    {
        final MatchingEngine engine = run(SCENARIO);
        final MatchingEngine restored = SnapshotEquivalenceTest.restore(SnapshotEquivalenceTest.snapshot(engine));
        assertEquals(engine.stateHash(), restored.stateHash());
        assertEquals(0, restored.keyAccount(7));
        assertEquals(account("bob"), restored.keyAccount(3));
        assertEquals(account("alice"), restored.keyAccount(12));
        assertEquals(account("bob"), restored.keyAccount(900));
        assertEquals(0, restored.keyAccount(4));
        assertArrayEquals(liveKeys(engine), liveKeys(restored));

        // a revoked id stays taken after the restore too, and revoking goes on as before it
        final Command reAdd = new Command().reset(CommandType.KEY, 10);
        reAdd.accountId = account("bob");
        reAdd.keyId = 7;
        final List<RejectReason> reasons = new ArrayList<>();
        restored.sink(e -> reasons.add(e.rejectReason));
        restored.apply(reAdd);
        final Command revoke = new Command().reset(CommandType.KEY, 11);
        revoke.accountId = account("alice");
        revoke.keyId = 12;
        revoke.revoke = true;
        restored.apply(revoke);
        assertEquals(List.of(RejectReason.DUPLICATE_ID), reasons);
        assertEquals(0, restored.keyAccount(12));
    }

    @Test
    void aSnapshotOfVersionOneHasNoKeysAndStillRestores() throws Exception
    {
        final MatchingEngine engine = run("0 ACCOUNT id=alice roles=RENTER\n0 DEPOSIT account=alice amount=5\n");
        final byte[] v2 = SnapshotEquivalenceTest.snapshot(engine);
        final byte[] v1 = Arrays.copyOf(v2, v2.length - Integer.BYTES); // without the key count (0)
        ByteBuffer.wrap(v1).putInt(Integer.BYTES, 1);
        final MatchingEngine restored = SnapshotEquivalenceTest.restore(v1);
        // a snapshot older than the accounts' event numbers restores them as 0: the rest is the same state
        assertEquals(quietHash(engine), quietHash(restored));
        assertEquals(0, liveKeys(restored).length);
    }

    @Test
    void everyKeyChangeChangesTheStateHashAndRejectsDoNot() throws Exception
    {
        final MatchingEngine engine = run("0 ACCOUNT id=alice roles=RENTER\n0 ACCOUNT id=bob roles=OWNER\n");
        long before = quietHash(engine);
        final String[] changing = {"0 KEY account=alice key=1", "0 KEY account=alice key=2",
            "0 KEY account=alice key=1 revoke=true"};
        final String[] rejected = {"0 KEY account=bob key=1", "0 KEY account=alice key=1 revoke=true",
            "0 KEY account=bob key=2 revoke=true", "0 KEY account=carol key=3", "0 KEY account=bob key=0"};
        final ScenarioParser parser = new ScenarioParser(symbols);
        for (final String line : changing)
        {
            final Command c = new Command();
            parser.parse(line, 1, c);
            engine.apply(c);
            assertNotEquals(before, quietHash(engine), line);
            before = quietHash(engine);
        }
        for (final String line : rejected)
        {
            final Command c = new Command();
            parser.parse(line, 1, c);
            engine.apply(c);
            assertEquals(before, quietHash(engine), line);
        }
        assertEquals(rejected.length, events.size(), "one REJECTED per rejected line, nothing else");
    }

    @Test
    void aStateWithoutKeysHashesTheSameAsAnotherWithout() throws Exception
    {
        final MatchingEngine a = run("0 ACCOUNT id=alice roles=RENTER\n");
        final MatchingEngine b = run("0 ACCOUNT id=alice roles=RENTER\n0 KEY account=alice key=0\n");
        assertEquals(quietHash(a), quietHash(b), "a rejected KEY leaves the state as it was (but for the REJECTED's number)");
    }

    @Test
    void keyCommandsRoundTripThroughTheJournalAndTheScenarioFormat() throws Exception
    {
        final CommandCodec codec = new CommandCodec();
        final CommandPrinter printer = new CommandPrinter(symbols);
        final ScenarioParser parser = new ScenarioParser(symbols);
        final String[] lines = {"5 KEY account=alice key=9007199254740993", "6 KEY account=alice key=42 revoke=true",
            "7 KEY account=alice key=-1"};
        int n = 0;
        for (final String line : lines)
        {
            final Command c = new Command();
            parser.parse(line, ++n, c);
            final int length = codec.encode(c);
            final Command decoded = new Command();
            assertNull(codec.decode(length, decoded));
            assertEquals(c.keyId, decoded.keyId);
            assertEquals(c.revoke, decoded.revoke);
            assertEquals(c.accountId, decoded.accountId);
            assertEquals(CommandType.KEY, decoded.type);
            assertEquals(line, printer.format(decoded));
            final Command copy = new Command();
            copy.copyFrom(decoded);
            assertEquals(line, printer.format(copy));
        }
        final Command reset = new Command();
        new ScenarioParser(symbols).parse(lines[1], 1, reset);
        reset.reset(CommandType.TICK, 0);
        assertEquals(0, reset.keyId);
        assertEquals(false, reset.revoke);
    }

    /** The state hash but for the accounts' event numbers, which a REJECTED moves on too. */
    private static long quietHash(final MatchingEngine engine)
    {
        return new StateWalker(engine, false).hash();
    }
}
