package io.gpux.client.cli;

import io.gpux.client.GpuxClient;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Release;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code gpux release LEASE}: the renter ends its lease now; it is billed up to now and its hold is freed. */
@Command(name = "release", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Ends a lease you rent, now: it is settled up to now (SETTLED, LEASE_ENDED reason=RELEASED) "
        + "and what is left of its hold is freed.",
        "Exit status: 0 done, 1 rejected (e.g. UNKNOWN_LEASE, with the fix), 2 bad usage, 3 connection or login failure."})
public final class ReleaseCommand extends ClientCommand
{
    @Parameters(index = "0", paramLabel = "LEASE", description = "the lease's id (see gpux leases)")
    long leaseId;

    @Override
    int execute() throws Exception
    {
        if (leaseId < 1)
        {
            throw CliException.usage("LEASE must be a lease id, got " + leaseId);
        }
        final EventCollector events = new EventCollector();
        try (GpuxClient client = connect(events))
        {
            return submit(client, events, Envelope.newBuilder().setRelease(Release.newBuilder().setLeaseId(leaseId)),
                new Json().put("lease_id", leaseId), reason -> RejectHints.release(reason, leaseId));
        }
    }

    public static void main(final String[] args)
    {
        GpuxCli.main("release", args);
    }
}
