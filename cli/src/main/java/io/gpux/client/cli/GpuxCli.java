package io.gpux.client.cli;

import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * {@code gpux}: the command-line client of the exchange. Each subcommand is also a launcher command of
 * its own ({@code ./gpux bid ...} runs {@link BidCommand#main}, which runs {@code gpux bid ...} here).
 *
 * <p>Exit status: 0 done, 1 the exchange refused (the reason is printed), 2 bad usage (unknown option,
 * malformed number, missing credentials), 3 the gateway cannot be reached or refused the login, 4 an IOC or
 * FOK bid that filled nothing.
 *
 * <p>In a test: {@code GpuxCli.commandLine(new GpuxCli(env)).setOut(out).setErr(err).execute(args)}
 * (a plain {@code new CommandLine(new GpuxCli()).execute(args)} works too, with picocli's own report
 * of usage errors).
 */
@Command(name = "gpux", mixinStandardHelpOptions = true, version = "gpux 0.1.0",
    description = "The gpux exchange's command-line client.",
    subcommands = {
        BidCommand.class, AskCommand.class, CancelCommand.class, ReplaceCommand.class, ReleaseCommand.class, QuoteCommand.class, BookCommand.class,
        MarketsCommand.class, HistoryCommand.class,
        LeasesCommand.class, WatchCommand.class, AgentCommand.class, AdminCommand.class, JobCommand.class,
        LaunchCommand.class, StatusCommand.class, LogsCommand.class, RunCommand.class,
        OffersCommand.class, StatementCommand.class,
        CommandLine.HelpCommand.class})
public final class GpuxCli implements Callable<Integer>
{
    @Spec
    CommandSpec spec;

    private final Map<String, String> env;

    /** A CLI that reads its credentials from the process environment. */
    public GpuxCli()
    {
        this(System.getenv());
    }

    /** A CLI with the given environment (GPUX_KEY_ID, GPUX_SECRET; GPUX_TLS, GPUX_TLS_CA, GPUX_TLS_FINGERPRINT). */
    public GpuxCli(final Map<String, String> env)
    {
        this.env = Map.copyOf(env);
    }

    Map<String, String> env()
    {
        return env;
    }

    @Override
    public Integer call()
    {
        spec.commandLine().usage(spec.commandLine().getErr());
        return CliException.USAGE;
    }

    /** The command line the launcher runs: case-insensitive enums, short usage-error reports. */
    public static CommandLine commandLine(final GpuxCli cli)
    {
        return new CommandLine(cli)
            .setCaseInsensitiveEnumValuesAllowed(true)
            .setParameterExceptionHandler(GpuxCli::onBadInput)
            .setExecutionExceptionHandler((ex, cmd, parsed) ->
            {
                cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": internal error: " + ex);
                return CliException.REJECTED;
            });
    }

    private static int onBadInput(final ParameterException ex, final String[] args)
    {
        final CommandLine cmd = ex.getCommandLine();
        final PrintWriter err = cmd.getErr();
        final String name = cmd.getCommandSpec().qualifiedName();
        err.println(name + ": " + ex.getMessage());
        UnmatchedArgumentException.printSuggestions(ex, err);
        err.println("Try '" + name + " --help' for usage.");
        err.flush();
        return cmd.getCommandSpec().exitCodeOnInvalidInput();
    }

    /** Runs {@code gpux ARGS} and returns the exit status. */
    public static int run(final String... args)
    {
        return commandLine(new GpuxCli()).execute(args);
    }

    /** {@code gpux ARGS}: exits with the command's status. */
    public static void main(final String[] args)
    {
        System.exit(run(args));
    }

    /** {@code gpux COMMAND ARGS}, for the launcher commands that run one subcommand. */
    static void main(final String command, final String[] args)
    {
        final String[] all = new String[args.length + 1];
        all[0] = command;
        System.arraycopy(args, 0, all, 1, args.length);
        main(all);
    }
}
