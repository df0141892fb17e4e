package io.gpux.engine;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.core.journal.CommandCodec;
import io.gpux.engine.replay.CommandPrinter;
import io.gpux.engine.replay.ScenarioPrinter;
import io.gpux.engine.replay.Symbols;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The RESTART and COD_SESSION commands (docs/market-rules.md section 14) beyond their golden outputs: the
 * invariants hold after every line of each restart scenario, the open cancel-on-disconnect sessions and the
 * last restart survive a snapshot, are in the state hash, and both commands go through the journal codec.
 */
class RestartTest
{
    private static final Path SCENARIOS = Path.of("../engine/src/test/resources/scenarios/restart");

    @TestFactory
    Stream<DynamicTest> restartScenariosKeepTheInvariants() throws IOException
    {
        final List<Path> files;
        try (Stream<Path> list = Files.list(SCENARIOS))
        {
            files = list.filter(p -> p.toString().endsWith(".scn")).sorted().toList();
        }
        assertEquals(7, files.size(), "restart scenarios");
        return files.stream().map(scn -> DynamicTest.dynamicTest(scn.getFileName().toString(),
            () -> assertNull(ScenarioMinimizer.failureOf(Files.readAllLines(scn)))));
    }

    /** Snapshots taken just before, at and just after the first RESTART all replay the rest exactly. */
    @Test
    void sessionsAndRestartSurviveASnapshot() throws Exception
    {
        final Symbols symbols = new Symbols();
        final List<Command> commands = SnapshotEquivalenceTest.parse(symbols,
            Files.readString(SCENARIOS.resolve("r14-restart-cancel-on-disconnect.scn")));
        int restartAt = 0;
        while (commands.get(restartAt).type != CommandType.RESTART)
        {
            restartAt++;
        }
        for (int k = restartAt - 1; k <= restartAt + 1; k++)
        {
            final StringBuilder expected = new StringBuilder();
            final MatchingEngine straight = new MatchingEngine(event -> { });
            for (int i = 0; i <= k; i++)
            {
                straight.apply(commands.get(i));
            }
            final MatchingEngine restored = SnapshotEquivalenceTest.restore(SnapshotEquivalenceTest.snapshot(straight));
            assertEquals(straight.stateHash(), restored.stateHash(), "state hash after restoring at command " + k);
            final StringBuilder tail = new StringBuilder();
            straight.sink(new ScenarioPrinter(symbols, expected));
            restored.sink(new ScenarioPrinter(symbols, tail));
            for (int i = k + 1; i < commands.size(); i++)
            {
                straight.apply(commands.get(i));
                restored.apply(commands.get(i));
            }
            assertEquals(expected.toString(), tail.toString(), "events after restoring at command " + k);
            assertEquals(straight.stateHash(), restored.stateHash(), "final state hash, restored at " + k);
        }
        assertTrue(commands.size() > restartAt + 1);
    }

    @Test
    void openSessionsAndRestartsAreInTheStateHash()
    {
        final MatchingEngine a = engineWithAccount();
        final MatchingEngine b = engineWithAccount();
        assertEquals(a.stateHash(), b.stateHash());
        final Command open = new Command().reset(CommandType.COD_SESSION, 10);
        open.accountId = 1;
        b.apply(open);
        final Command tick = new Command().reset(CommandType.TICK, 10);
        a.apply(tick);
        assertNotEquals(a.stateHash(), b.stateHash(), "an open cancel-on-disconnect session");
        final Command closed = new Command().reset(CommandType.COD_SESSION, 20);
        closed.accountId = 1;
        closed.sessionClosed = true;
        b.apply(closed);
        a.apply(new Command().reset(CommandType.TICK, 20));
        assertEquals(a.stateHash(), b.stateHash(), "the session closed again");
        b.apply(new Command().reset(CommandType.RESTART, 30));
        a.apply(new Command().reset(CommandType.TICK, 30));
        assertNotEquals(a.stateHash(), b.stateHash(), "a restart");
    }

    @Test
    void journalCodecCarriesBothCommands() throws Exception
    {
        final Symbols symbols = new Symbols();
        symbols.accounts.id("mm");
        final CommandCodec codec = new CommandCodec();
        for (final String line : List.of("COD_SESSION account=mm", "COD_SESSION account=mm closed=true", "RESTART"))
        {
            final Command c = SnapshotEquivalenceTest.parse(symbols, "5 " + line).get(0);
            c.sequence = 7;
            final int length = codec.encode(c);
            final Command back = new Command();
            assertNull(codec.decode(length, back));
            assertEquals(CommandType.valueOf(line.split(" ")[0]), back.type);
            assertEquals("5 " + line, new CommandPrinter(symbols).format(back));
        }
    }

    private static MatchingEngine engineWithAccount()
    {
        final MatchingEngine engine = new MatchingEngine(event -> { });
        final Command account = new Command().reset(CommandType.ACCOUNT, 0);
        account.accountId = 1;
        account.name = "mm";
        account.roles = io.gpux.engine.command.Roles.MARKET_MAKER;
        engine.apply(account);
        return engine;
    }
}
