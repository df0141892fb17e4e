package io.gpux.client.cli;

import io.gpux.client.GpuxClient;
import io.gpux.proto.v1.WorkloadLog;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gpux logs --lease L}: the last lines of the workload's log, read by the agent of the lease's machine. */
@Command(name = "logs", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Prints the last lines of the log of the workload on a live lease you rent, as the agent of the "
        + "lease's machine reads them.",
        "Exit status: 0 printed, 1 refused (the lease is not live or not yours, has no workload, its agent is not "
            + "connected, did not answer, or could not read the log), 2 bad usage, 3 connection or login failure."})
public final class LogsCommand extends ClientCommand
{
    @Option(names = "--lease", required = true, paramLabel = "ID", description = "the lease")
    long leaseId;

    @Option(names = "--lines", paramLabel = "N", defaultValue = "100", description = "how many lines, 1 to 10000 (default ${DEFAULT-VALUE})")
    int lines;

    @Override
    int execute() throws Exception
    {
        if (lines < 1 || lines > 10_000)
        {
            throw CliException.usage("--lines must be 1 to 10000");
        }
        try (GpuxClient client = connect(null))
        {
            final WorkloadLog log = client.logTail(leaseId, lines, timeout());
            if (!log.getProblem().isEmpty())
            {
                throw new CliException(CliException.REJECTED, "the agent could not read the log of lease " + leaseId + ": "
                    + log.getProblem());
            }
            if (json)
            {
                out().println(new Json().put("type", "log").put("lease_id", leaseId).putStrings("lines", log.getLinesList()));
            }
            else
            {
                log.getLinesList().forEach(out()::println);
            }
            return 0;
        }
    }

    public static void main(final String[] args)
    {
        GpuxCli.main("logs", args);
    }
}
