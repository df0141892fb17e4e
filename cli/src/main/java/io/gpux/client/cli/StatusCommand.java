package io.gpux.client.cli;

import io.gpux.client.GpuxClient;
import io.gpux.proto.v1.WorkloadEndpoint;
import io.gpux.proto.v1.WorkloadState;
import io.gpux.proto.v1.WorkloadStatus;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gpux status --lease L}: the state of the workload on a lease the account rents. */
@Command(name = "status", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Shows the state of the workload on a live lease you rent: PENDING (the agent has not reported "
        + "yet), STARTING, RUNNING (with the endpoints of its ports), EXITED (with its exit status), FAILED (with why) "
        + "or STOPPED, and when the exchange heard it.",
        "Exit status: 0 shown, 1 refused (the lease is not live or not yours, or has no workload), 2 bad usage, "
            + "3 connection or login failure."})
public final class StatusCommand extends ClientCommand
{
    @Option(names = "--lease", required = true, paramLabel = "ID", description = "the lease")
    long leaseId;

    @Override
    int execute() throws Exception
    {
        try (GpuxClient client = connect(null))
        {
            final WorkloadStatus s = client.workloadStatus(leaseId, timeout());
            final String state = s.getState().name().substring("WORKLOAD_".length());
            if (json)
            {
                final List<Json> endpoints = new ArrayList<>();
                for (final WorkloadEndpoint e : s.getEndpointsList())
                {
                    endpoints.add(new Json().put("port", e.getPort()).put("host", e.getHost()).put("host_port", e.getHostPort()));
                }
                final Json line = new Json().put("type", "workload").put("lease_id", leaseId).put("state", state)
                    .putTime("time", s.getTimeMs()).put("endpoints", endpoints);
                if (s.getState() == WorkloadState.WORKLOAD_EXITED)
                {
                    line.put("exit_code", s.getExitCode());
                }
                if (!s.getReason().isEmpty())
                {
                    line.put("reason", s.getReason());
                }
                out().println(line);
            }
            else
            {
                final StringBuilder text = new StringBuilder("lease " + leaseId + ": " + state);
                if (s.getState() == WorkloadState.WORKLOAD_EXITED)
                {
                    text.append(" with status ").append(s.getExitCode());
                }
                if (!s.getReason().isEmpty())
                {
                    text.append(": ").append(s.getReason());
                }
                text.append(" (since ").append(Format.time(s.getTimeMs())).append(')');
                out().println(text);
                for (final WorkloadEndpoint e : s.getEndpointsList())
                {
                    out().println("  port " + e.getPort() + " at " + e.getHost() + ":" + e.getHostPort());
                }
            }
            return 0;
        }
    }

    public static void main(final String[] args)
    {
        GpuxCli.main("status", args);
    }
}
