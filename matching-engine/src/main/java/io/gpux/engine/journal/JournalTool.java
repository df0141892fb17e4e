package io.gpux.engine.journal;

import io.gpux.engine.event.Event;
import io.gpux.engine.pipeline.Quarantine;
import io.gpux.engine.pipeline.Recovery;
import io.gpux.engine.replay.CommandPrinter;
import io.gpux.engine.replay.ScenarioPrinter;
import io.gpux.engine.replay.Symbols;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code gpux journal dump|verify DIR}: prints an exchange's journals in the scenario format, and
 * checks that they replay to the same events and state hashes, from scratch and from every snapshot.
 */
@Command(name = "gpux journal", mixinStandardHelpOptions = true, subcommands = {JournalTool.Dump.class, JournalTool.Verify.class},
    description = "Inspect and check an exchange's journals (DIR is the server's data directory).")
public final class JournalTool implements Runnable
{
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new JournalTool()).execute(args));
    }

    @Override
    public void run()
    {
        throw new CommandLine.ParameterException(spec.commandLine(), "name a subcommand: dump or verify");
    }

    static void requireData(final Path dir) throws IOException
    {
        if (!Files.isDirectory(dir.resolve("commands")))
        {
            throw new IOException(dir + " holds no command journal (expected " + dir.resolve("commands") + ")");
        }
    }

    /** Names from the registrations in the command journal, for readable output. */
    static Symbols symbols(final Journal commands)
    {
        final Symbols symbols = new Symbols();
        final CommandPrinter printer = new CommandPrinter(symbols);
        final Journal.Reader reader = commands.reader();
        final CommandCodec codec = new CommandCodec();
        final io.gpux.engine.command.Command c = new io.gpux.engine.command.Command();
        int n;
        while ((n = reader.next(codec.bytes())) >= 0)
        {
            if (codec.decode(n, c) == null)
            {
                printer.learn(c);
            }
        }
        return symbols;
    }

    @Command(name = "dump", description = "Print the command journal as scenario lines (replayable), or the event journal as event lines.")
    static final class Dump implements Callable<Integer>
    {
        @Parameters(paramLabel = "DIR", description = "the data directory")
        Path dir;

        @Option(names = "--commands", description = "print commands (the default)")
        boolean commands;

        @Option(names = "--events", description = "print events")
        boolean events;

        @Option(names = "--from", paramLabel = "N", description = "start at command (or event) sequence N")
        long from = 1;

        @Override
        public Integer call() throws IOException
        {
            requireData(dir);
            final PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16));
            try (Journal commandJournal = Journal.openReadOnly(dir.resolve("commands")))
            {
                final Symbols symbols = symbols(commandJournal);
                if (events)
                {
                    try (Journal eventJournal = Journal.openReadOnly(dir.resolve("events")))
                    {
                        final ScenarioPrinter printer = new ScenarioPrinter(symbols, out);
                        final EventCodec codec = new EventCodec();
                        final Event e = new Event();
                        final Journal.Reader reader = eventJournal.reader();
                        int n;
                        while ((n = reader.next(codec.bytes())) >= 0)
                        {
                            final String problem = codec.decode(n, e);
                            if (problem != null)
                            {
                                out.println("# bad record at index " + Long.toHexString(reader.index()) + ": " + problem);
                            }
                            else if (e.sequence >= from)
                            {
                                printer.onEvent(e);
                            }
                        }
                    }
                }
                else
                {
                    final CommandPrinter printer = new CommandPrinter(symbols);
                    final CommandCodec codec = new CommandCodec();
                    final io.gpux.engine.command.Command c = new io.gpux.engine.command.Command();
                    final Journal.Reader reader = commandJournal.reader();
                    int n;
                    while ((n = reader.next(codec.bytes())) >= 0)
                    {
                        final String problem = codec.decode(n, c);
                        if (problem != null)
                        {
                            out.println("# bad record at index " + Long.toHexString(reader.index()) + ": " + problem);
                        }
                        else if (c.sequence >= from)
                        {
                            out.println(printer.format(c));
                        }
                    }
                }
            }
            out.flush();
            return 0;
        }
    }

    @Command(name = "verify", description = "Replay the command journal from scratch and from each snapshot; check events and state hashes.")
    static final class Verify implements Callable<Integer>
    {
        @Parameters(paramLabel = "DIR", description = "the data directory")
        Path dir;

        @Override
        public Integer call() throws IOException
        {
            requireData(dir);
            final PrintWriter out = new PrintWriter(System.out, true);
            int failures = 0;
            try (Journal commands = Journal.openReadOnly(dir.resolve("commands"));
                Journal events = Journal.openReadOnly(dir.resolve("events")))
            {
                final long t0 = System.nanoTime();
                final Quarantine quarantine = Quarantine.load(dir);
                final Recovery.Result full;
                try
                {
                    full = Recovery.recover(commands, events, null, null, true, quarantine, m -> out.println("  " + m));
                }
                catch (final Recovery.RecoveryException ex)
                {
                    out.println("FAIL from scratch: " + ex.getMessage());
                    return 1;
                }
                out.printf("from scratch: %d commands%s, %d events match the event journal, %d missing, state hash %016x (%.1f s)%n",
                    full.commandSequence(), full.quarantinedCommands() == 0 ? "" :
                        " (" + full.quarantinedCommands() + " quarantined, replayed as TICKs)",
                    full.checkedEvents(), full.appendedEvents(), full.engine().stateHash(), (System.nanoTime() - t0) / 1e9);
                final List<Path> snapshots = new SnapshotStore(dir.resolve("snapshots"), 1).list();
                for (final Path snapshot : snapshots)
                {
                    final String problem = SnapshotStore.check(snapshot);
                    if (problem != null)
                    {
                        out.println("FAIL " + snapshot.getFileName() + ": " + problem);
                        failures++;
                        continue;
                    }
                    try
                    {
                        final Recovery.Result r = Recovery.recover(commands, events, null, snapshot, true, quarantine, m -> { });
                        final boolean same = r.engine().stateHash() == full.engine().stateHash() &&
                            r.commandSequence() == full.commandSequence();
                        out.printf("%s %s: +%d commands replayed, state hash %016x%n", same ? "ok  " : "FAIL",
                            snapshot.getFileName(), r.replayedCommands(), r.engine().stateHash());
                        failures += same ? 0 : 1;
                    }
                    catch (final Recovery.RecoveryException ex)
                    {
                        out.println("FAIL " + snapshot.getFileName() + ": " + ex.getMessage());
                        failures++;
                    }
                }
                if (full.appendedEvents() > 0)
                {
                    out.println("note: the event journal lacks the last " + full.appendedEvents() +
                        " events (the exchange stopped before writing them; the next start appends them)");
                }
            }
            out.println(failures == 0 ? "journal verified" : failures + " check(s) failed");
            return failures == 0 ? 0 : 1;
        }
    }
}
