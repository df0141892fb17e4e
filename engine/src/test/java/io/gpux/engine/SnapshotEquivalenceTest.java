package io.gpux.engine;

import io.gpux.engine.command.Command;
import io.gpux.engine.replay.ScenarioException;
import io.gpux.engine.replay.ScenarioParser;
import io.gpux.engine.replay.ScenarioPrinter;
import io.gpux.engine.replay.Symbols;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Restoring a snapshot taken after command k and applying the rest gives exactly the events and the
 * state hash of applying everything, for many k over a busy market (preemption, reclaim, offline
 * machines, funds running out); the restored engine's per-account lists of leases and machines match
 * a walk of all of them.
 */
class SnapshotEquivalenceTest
{
    @Test
    void snapshotPlusTailEqualsFullReplay() throws Exception
    {
        final Symbols symbols = new Symbols();
        final List<Command> commands = parse(symbols, io.gpux.engine.replay.RandomScenario.scenario(42, 4000));
        final StringBuilder full = new StringBuilder();
        final MatchingEngine reference = new MatchingEngine(new ScenarioPrinter(symbols, full));
        final List<Integer> offsets = new ArrayList<>();
        final List<Long> hashes = new ArrayList<>();
        for (final Command c : commands)
        {
            reference.apply(c);
            offsets.add(full.length());
            hashes.add(reference.stateHash());
        }
        int checked = 0;
        for (int k = 0; k < commands.size(); k += 97)
        {
            final MatchingEngine prefix = new MatchingEngine(event -> { });
            for (int i = 0; i <= k; i++)
            {
                prefix.apply(commands.get(i));
            }
            final MatchingEngine restored = restore(snapshot(prefix));
            assertEquals(hashes.get(k), restored.stateHash(), "state hash after restoring at command " + k);
            new InvariantChecker(restored).checkAccountIndexes();
            final StringBuilder tail = new StringBuilder();
            restored.sink(new ScenarioPrinter(symbols, tail));
            for (int i = k + 1; i < commands.size(); i++)
            {
                restored.apply(commands.get(i));
            }
            assertEquals(full.substring(offsets.get(k)), tail.toString(), "events after restoring at command " + k);
            assertEquals(reference.stateHash(), restored.stateHash(), "final state hash, restored at " + k);
            new InvariantChecker(restored).checkAccountIndexes();
            checked++;
        }
        assertTrue(checked > 30);
    }

    @Test
    void hashDiffersWhenStateDiffers() throws Exception
    {
        final Symbols symbols = new Symbols();
        final List<Command> commands = parse(symbols, io.gpux.engine.replay.RandomScenario.scenario(7, 500));
        final MatchingEngine a = new MatchingEngine(event -> { });
        final MatchingEngine b = new MatchingEngine(event -> { });
        for (final Command c : commands)
        {
            a.apply(c);
            b.apply(c);
        }
        assertEquals(a.stateHash(), b.stateHash());
        final Command deposit = new Command().reset(io.gpux.engine.command.CommandType.DEPOSIT, a.lastCommandTime);
        deposit.accountId = symbols.accounts.existing("r1");
        deposit.amount = 1;
        b.apply(deposit);
        assertTrue(a.stateHash() != b.stateHash(), "a deposit of one micro-unit must change the hash");
    }

    static byte[] snapshot(final MatchingEngine engine) throws IOException
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        EngineSnapshot.write(engine, new DataOutputStream(bytes));
        return bytes.toByteArray();
    }

    static MatchingEngine restore(final byte[] snapshot) throws IOException
    {
        final MatchingEngine engine = new MatchingEngine(event -> { });
        EngineSnapshot.read(engine, new DataInputStream(new ByteArrayInputStream(snapshot)));
        return engine;
    }

    static List<Command> parse(final Symbols symbols, final String text) throws ScenarioException
    {
        final ScenarioParser parser = new ScenarioParser(symbols);
        final List<Command> out = new ArrayList<>();
        int n = 0;
        for (final String line : text.split("\n"))
        {
            final Command c = new Command();
            if (parser.parse(line, ++n, c))
            {
                out.add(c);
            }
        }
        return out;
    }
}
