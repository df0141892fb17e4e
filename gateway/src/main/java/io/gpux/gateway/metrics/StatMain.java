package io.gpux.gateway.metrics;

import io.gpux.core.counters.CounterValue;
import io.gpux.core.counters.CountersFile;
import io.gpux.tools.Failures;
import org.agrona.concurrent.status.CountersReader;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code ./gpux stat}: the exchange's counters, read from the counters file of a data directory while
 * the server runs (Aeron's AeronStat): one line per counter, then the figures worked out from them.
 * It only reads; it never holds the server up.
 */
@Command(name = "gpux stat", mixinStandardHelpOptions = true,
    description = {"The exchange's counters, read from DATA/counters.dat (also after the server stopped: the figures " +
        "its last run left).", "Exit 1 when there are no counters to read."})
public final class StatMain implements Callable<Integer>
{
    @Option(names = "--data", description = "the server's data directory (default ${DEFAULT-VALUE})")
    Path data = Path.of("data");

    @Option(names = "--watch", arity = "0..1", fallbackValue = "1", paramLabel = "SECONDS",
        description = "print again every SECONDS (default 1 when given) until interrupted")
    Integer watchSeconds;

    @Option(names = "--count", description = "with --watch: stop after this many prints")
    int count = Integer.MAX_VALUE;

    @Option(names = "--filter", description = "only the counters whose name or labels contain this text")
    String filter;

    @Option(names = "--verbose", description = "on a failure, print the Java stack trace after the reason")
    boolean verbose;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception
    {
        if (watchSeconds != null && watchSeconds < 1)
        {
            throw new CommandLine.ParameterException(spec.commandLine(), "--watch " + watchSeconds + " is too small: at least 1 second");
        }
        final PrintWriter out = spec.commandLine().getOut();
        try (CountersFile file = CountersFile.open(data))
        {
            final CountersReader reader = new CountersReader(file.metadata(), file.values());
            for (int printed = 0; printed < (watchSeconds == null ? 1 : count); printed++)
            {
                if (printed > 0)
                {
                    Thread.sleep(watchSeconds * 1000L);
                    out.print("\033[H\033[2J");
                }
                print(out, file, CounterValue.readAll(reader), System.currentTimeMillis());
                out.flush();
            }
        }
        return 0;
    }

    private void print(final PrintWriter out, final CountersFile file, final List<CounterValue> values, final long nowMs)
    {
        final boolean running = file.serverRunning();
        out.printf("%s - server pid %d %s, started %s%s%n", Instant.ofEpochMilli(nowMs), file.pid(),
            running ? "running" : "not running (the figures its last run left)", Instant.ofEpochMilli(file.startTimeMs()),
            running ? ", up " + (nowMs - file.startTimeMs()) / 1000 + " s" : "");
        out.println("=".repeat(80));
        for (final CounterValue v : values)
        {
            if (filter == null || v.label().contains(filter))
            {
                out.printf("%3d: %,20d - %s%n", v.counterId(), v.value(), v.label());
            }
        }
        derived(out, CountersCollector.SNAPSHOT_AGE, Figures.snapshotAgeMs(values, nowMs));
        derived(out, CountersCollector.EGRESS_BACKLOG, Figures.egressBacklog(values));
    }

    private void derived(final PrintWriter out, final String name, final long value)
    {
        if (filter == null || name.contains(filter))
        {
            out.printf("%3s  %,20d - %s%n", "", value, name);
        }
    }

    /** The command line {@link #main} runs: a failure is one line, no trace unless --verbose. */
    public static CommandLine commandLine(final StatMain stat)
    {
        return new CommandLine(stat)
            .setParameterExceptionHandler((ex, args) ->
            {
                final CommandLine cmd = ex.getCommandLine();
                cmd.getErr().println("gpux stat: " + ex.getMessage() + "; see gpux stat --help");
                cmd.getErr().flush();
                return cmd.getCommandSpec().exitCodeOnInvalidInput();
            })
            .setExecutionExceptionHandler((ex, cmd, parsed) ->
            {
                Failures.print(cmd.getErr(), "gpux stat", Failures.reason(ex), ex, stat.verbose);
                return 1;
            });
    }

    public static void main(final String[] args)
    {
        System.exit(commandLine(new StatMain()).execute(args));
    }
}
