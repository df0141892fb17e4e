package io.gpux.engine;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.replay.CommandPrinter;
import io.gpux.engine.replay.ScenarioException;
import io.gpux.engine.replay.ScenarioReplayer;
import io.gpux.engine.replay.Symbols;

import java.util.ArrayList;
import java.util.List;

/**
 * One fuzz run: an engine set up by {@link #HEADER} (two markets, accounts of every role with money, three
 * machines online, so that the first commands can already trade), then the commands {@link FuzzCommands} reads
 * from the bytes, each applied and followed by the {@link InvariantChecker}. The engine must never throw and the
 * invariants must hold after every command; a failure is an {@link AssertionError} listing the commands up to
 * the failing one in the scenario format, ready for a golden scenario or an {@link EngineRegressionTest} case.
 */
final class FuzzRun
{
    static final String[] MARKETS = {"H100", "L4"};
    static final String[] ACCOUNTS = {"own", "mm", "rich", "poor", "admin"};
    static final String[] MACHINES = {"m1", "m2", "m3"};
    static final String[] HEADER = {
        "0 MARKET id=H100 graceMs=1000 prepayMs=60000",
        "0 MARKET id=L4 preemption=off maxGpusPerOrder=8 feeBps=100",
        "0 ACCOUNT id=own roles=OWNER",
        "0 ACCOUNT id=mm roles=MARKET_MAKER",
        "0 ACCOUNT id=rich roles=RENTER",
        "0 ACCOUNT id=poor roles=RENTER",
        "0 ACCOUNT id=admin roles=ADMIN",
        "0 DEPOSIT account=rich amount=1000000",
        "0 DEPOSIT account=poor amount=20",
        "0 DEPOSIT account=mm amount=5000",
        "0 MACHINE id=m1 owner=own market=H100 gpus=8",
        "0 MACHINE id=m2 owner=mm market=H100 gpus=4",
        "0 MACHINE id=m3 owner=own market=L4 gpus=2",
        "0 HEARTBEAT machine=m1",
        "0 HEARTBEAT machine=m2",
        "0 HEARTBEAT machine=m3",
    };
    /** Commands read from one input at most: an input's cost stays bounded, however long the fuzzer makes it. */
    static final int MAX_COMMANDS = 2_000;

    private FuzzRun()
    {
    }

    /** @return the number of commands read from the bytes and applied. */
    static int run(final byte[] data)
    {
        final ScenarioReplayer replayer = new ScenarioReplayer(new StringBuilder());
        final MatchingEngine engine = replayer.engine();
        final InvariantChecker checker = new InvariantChecker(engine);
        engine.sink(checker.tee(null));
        final Symbols symbols = replayer.symbols();
        final List<String> history = new ArrayList<>(List.of(HEADER));
        try
        {
            for (final String line : HEADER)
            {
                if (line.contains("DEPOSIT"))
                {
                    final long account = symbols.accounts.id(line.replaceAll(".*account=(\\w+).*", "$1"));
                    checker.expectDeposit(account, Long.parseLong(line.replaceAll(".*amount=(\\d+).*", "$1")) * 1_000_000L);
                }
                replayer.line(line);
            }
        }
        catch (final ScenarioException ex)
        {
            throw new AssertionError("header: " + ex.getMessage(), ex);
        }
        final FuzzCommands commands = new FuzzCommands(data, symbols);
        final CommandPrinter printer = new CommandPrinter(symbols);
        final Command c = new Command();
        int applied = 0;
        while (commands.hasNext() && applied < MAX_COMMANDS)
        {
            commands.next(c);
            history.add(print(printer, c));
            applied++;
            try
            {
                applyAndCheck(engine, checker, c);
            }
            catch (final RuntimeException | AssertionError ex)
            {
                throw new AssertionError("command " + applied + " failed: " + ex + "\n" + String.join("\n", history), ex);
            }
        }
        return applied;
    }

    /** Applies a command and checks the invariants after it (a DEPOSIT announced to the checker first). */
    static void applyAndCheck(final MatchingEngine engine, final InvariantChecker checker, final Command c)
    {
        if (c.type == CommandType.DEPOSIT)
        {
            checker.expectDeposit(c.accountId, c.amount);
        }
        engine.apply(c);
        checker.check();
    }

    /** The command in the scenario format (a registration also names what it registers, for the lines after it). */
    static String print(final CommandPrinter printer, final Command c)
    {
        try
        {
            printer.learn(c);
            return printer.format(c);
        }
        catch (final RuntimeException ex)
        {
            return c.type + " (unprintable: " + ex + ")";
        }
    }
}
