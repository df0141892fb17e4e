package io.gpux.tools;

import io.gpux.core.journal.SnapshotStore;
import io.gpux.core.journal.Journal;
import io.gpux.core.journal.EventCodec;
import io.gpux.core.journal.DataDirectoryLock;
import io.gpux.core.journal.CommandCodec;
import io.gpux.engine.event.Event;
import io.gpux.core.pipeline.Quarantine;
import io.gpux.core.pipeline.Recovery;
import io.gpux.engine.replay.CommandPrinter;
import io.gpux.engine.replay.ScenarioPrinter;
import io.gpux.engine.replay.Symbols;
import io.gpux.tools.Failures;
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
 *
 * <p>Both only read. {@code dump} runs on the data directory of a live server too (it says so on
 * stderr and prints the journals as far as written); {@code verify} refuses it, since the server
 * appends while the replay reads, which would read as damage. A failure is one line on stderr and
 * exit status 1; {@code --verbose} adds the trace.
 */
@Command(name = "gpux journal", mixinStandardHelpOptions = true, subcommands = {JournalTool.Dump.class, JournalTool.Verify.class},
    description = {"Inspect and check an exchange's journals (DIR is the server's data directory).",
        "Both only read. dump also runs while a server holds DIR (printing the journals as far as written); " +
            "verify refuses to, since the journals grow while it replays them.",
        "Exit status: 0 fine, 1 a damaged journal or a failure (the reason is printed), 2 bad usage."})
public final class JournalTool implements Runnable
{
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--verbose", scope = CommandLine.ScopeType.INHERIT,
        description = "on a failure, print the Java stack trace after the reason")
    boolean verbose;

    /** The command line {@link #main} runs: a failure or a bad option is one line, the trace only with --verbose. */
    public static CommandLine commandLine()
    {
        final JournalTool tool = new JournalTool();
        return new CommandLine(tool)
            .setParameterExceptionHandler((ex, args) ->
            {
                final CommandLine cmd = ex.getCommandLine();
                cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": " + ex.getMessage() + "; see " +
                    cmd.getCommandSpec().qualifiedName() + " --help");
                cmd.getErr().flush();
                return cmd.getCommandSpec().exitCodeOnInvalidInput();
            })
            .setExecutionExceptionHandler((ex, cmd, parsed) ->
            {
                Failures.print(cmd.getErr(), cmd.getCommandSpec().qualifiedName(), Failures.reason(ex), ex, tool.verbose);
                return 1;
            });
    }

    public static void main(final String[] args)
    {
        // no SLF4J provider on this tool's class path: without this, SLF4J says so on stderr in three lines
        if (System.getProperty("slf4j.internal.verbosity") == null)
        {
            System.setProperty("slf4j.internal.verbosity", "ERROR");
        }
        System.exit(commandLine().execute(args));
    }

    @Override
    public void run()
    {
        throw new CommandLine.ParameterException(spec.commandLine(), "name a subcommand: dump or verify");
    }

    /** The data directory must exist and hold a command journal. */
    static void requireData(final Path dir) throws IOException
    {
        if (!Files.exists(dir))
        {
            throw new IOException(dir + " does not exist: name a server's data directory (its --data)");
        }
        if (!Files.isDirectory(dir.resolve("commands")))
        {
            throw new IOException(dir + " holds no command journal (expected " + dir.resolve("commands") +
                "): name a server's data directory (its --data)");
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

    @Command(name = "dump", description = {"Print the command journal as scenario lines (replayable), or the event journal " +
        "as event lines.", "A damaged record is printed as a # comment; one that a server start would refuse " +
        "(not the last record, or a command out of sequence) makes the exit status 1."})
    static final class Dump implements Callable<Integer>
    {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Parameters(paramLabel = "DIR", description = "the data directory")
        Path dir;

        @Option(names = "--commands", description = "print commands (the default)")
        boolean commands;

        @Option(names = "--events", description = "print events")
        boolean events;

        @Option(names = "--from", paramLabel = "N", description = "start at command (or event) sequence N")
        long from = 1;

        /** The first damage a server start would refuse, or null. */
        private String refused;

        @Override
        public Integer call() throws IOException
        {
            final PrintWriter err = spec.commandLine().getErr();
            requireData(dir);
            final String holder = DataDirectoryLock.holder(dir);
            if (holder != null)
            {
                err.println("note: " + dir + " is in use by " + holder + ", a live server: printing the journals as far " +
                    "as written");
                err.flush();
            }
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
                                damaged(out, "event", reader, problem);
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
                    long sequence = 0;
                    int n;
                    while ((n = reader.next(codec.bytes())) >= 0)
                    {
                        final String problem = codec.decode(n, c);
                        if (problem != null)
                        {
                            damaged(out, "command", reader, problem);
                            continue;
                        }
                        if (sequence != 0 && c.sequence != sequence + 1 && refused == null)
                        {
                            refused = "command journal out of sequence at index " + Long.toHexString(reader.index()) +
                                ": command " + c.sequence + " after " + sequence;
                            out.println("# " + refused);
                        }
                        sequence = c.sequence;
                        if (c.sequence >= from)
                        {
                            out.println(printer.format(c));
                        }
                    }
                }
            }
            out.flush();
            if (refused != null)
            {
                err.println(spec.qualifiedName() + ": " + refused + "; a server will not start on this journal " +
                    "(gpux journal verify " + dir + " tells more)");
                err.flush();
                return 1;
            }
            return 0;
        }

        /** A record that does not decode: a torn last record is cut by the next start; one before others is fatal. */
        private void damaged(final PrintWriter out, final String journal, final Journal.Reader reader, final String problem)
        {
            final String index = Long.toHexString(reader.index());
            if (reader.atEnd())
            {
                out.println("# torn tail record at index " + index + ": " + problem + " (the next server start cuts it off)");
                return;
            }
            out.println("# bad record at index " + index + ": " + problem);
            if (refused == null)
            {
                refused = journal + " journal corrupt at index " + index + ": " + problem;
            }
        }
    }

    @Command(name = "verify", description = "Replay the command journal from scratch and from each snapshot; check events and state hashes.")
    static final class Verify implements Callable<Integer>
    {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Parameters(paramLabel = "DIR", description = "the data directory")
        Path dir;

        @Override
        public Integer call() throws IOException
        {
            requireData(dir);
            final String holder = DataDirectoryLock.holder(dir);
            if (holder != null)
            {
                // the server appends while the replay reads: events past the commands read, snapshots past them
                throw new IOException(dir + " is in use by " + holder + ", a live server: its journals grow while verify " +
                    "replays them; stop the server first (journal dump reads a live directory)");
            }
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
