package io.gpux.client.cli;

import io.gpux.client.GpuxClient;
import io.gpux.client.RequestFailedException;
import io.gpux.client.workload.JobFile;
import io.gpux.client.workload.WorkloadSpecs;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Response;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gpux launch --lease L JOB.yaml}: runs a job file's workload on a lease the account rents. */
@Command(name = "launch", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Launches the workload of a job file (its run, env, ports, sshPublicKey and checkpoint) on a live "
        + "lease you rent; the agent of the lease's machine runs it. Follow it with gpux status and gpux logs.",
        "Exit status: 0 launched, 1 refused (the lease is not live or not yours, it already has a workload), "
            + "2 bad usage or a bad job file, 3 connection or login failure."})
public final class LaunchCommand extends ClientCommand
{
    @Option(names = "--lease", required = true, paramLabel = "ID", description = "the lease to run the workload on")
    long leaseId;

    @Option(names = "--attempt", paramLabel = "N", defaultValue = "1",
        description = "which attempt of the job this is, from 1 (GPUX_ATTEMPT; default ${DEFAULT-VALUE})")
    int attempt;

    @Parameters(paramLabel = "JOB.yaml", description = "the job file (docs/workloads.md)")
    Path file;

    @Override
    int execute() throws Exception
    {
        if (attempt < 1)
        {
            throw CliException.usage("--attempt must be 1 or more");
        }
        final JobFile job = JobCommand.read(file);
        try (GpuxClient client = connect(null))
        {
            final Response r = client.launch(leaseId,
                WorkloadSpecs.toProto(job.workload(), job.checkpointOnWire(), attempt), timeout());
            if (r.getReason() != Reason.REASON_OK)
            {
                throw new RequestFailedException(r);
            }
            if (json)
            {
                out().println(new Json().put("type", "launched").put("lease_id", leaseId).put("job", job.name())
                    .put("runtime", job.workload().runtime().fileName()).put("attempt", attempt));
            }
            else
            {
                out().println("launched " + job.name() + " (" + job.workload().runtime().fileName() + ", attempt " + attempt
                    + ") on lease " + leaseId);
            }
            return 0;
        }
    }

    public static void main(final String[] args)
    {
        GpuxCli.main("launch", args);
    }
}
