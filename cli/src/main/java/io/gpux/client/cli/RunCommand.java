package io.gpux.client.cli;

import io.gpux.client.GpuxClient;
import io.gpux.common.Money;
import io.gpux.client.workload.JobFile;
import io.gpux.client.workload.ManagedJob;
import io.gpux.proto.v1.EndReason;
import io.gpux.proto.v1.NoticeReason;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.WorkloadState;
import io.gpux.proto.v1.WorkloadStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gpux run JOB.yaml}: a managed job, kept running across preemptions until it succeeds or gives up. */
@Command(name = "run", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Runs a job file to the end: bids for its resources up to its maxPrice, launches its workload on "
        + "the lease, and after a preemption, an owner reclaim, a lost machine or a failed attempt bids and launches "
        + "again (GPUX_ATTEMPT counts the attempts), one attempt at a time. Prints each status change and the "
        + "workload's log lines; releases the lease as soon as the workload exits 0. Ctrl-C cancels the bid and "
        + "releases the lease.",
        "Exit status: 0 the job succeeded, 1 it gave up (more than maxFailures attempts failed, or the bid was "
            + "refused), 2 bad usage or a bad job file, 3 connection or login failure, 130 cancelled with Ctrl-C."})
public final class RunCommand extends ClientCommand
{
    /** Exit status of a run cancelled with Ctrl-C. */
    static final int CANCELLED = 130;

    @Option(names = "--log-interval", paramLabel = "DURATION", defaultValue = "1s", converter = Converters.DurationOrZeroMs.class,
        description = "how often the workload's log is read for new lines (default ${DEFAULT-VALUE}; 0: not at all)")
    long logIntervalMs;

    @Parameters(paramLabel = "JOB.yaml", description = "the job file (docs/workloads.md)")
    Path file;

    @Override
    int execute() throws Exception
    {
        final JobFile job = JobCommand.read(file);
        if (logIntervalMs < 0)
        {
            throw CliException.usage("--log-interval must not be negative");
        }
        try (GpuxClient client = connect(null))
        {
            final ManagedJob managed = new ManagedJob(client, job, new Printer());
            if (logIntervalMs > 0)
            {
                managed.followLogs(Duration.ofMillis(logIntervalMs));
            }
            final CountDownLatch stopAsked = new CountDownLatch(1);
            try (StopSignals signals = new StopSignals(stopAsked::countDown, () -> { }).install())
            {
                say(new Json().put("type", "started").put("job", job.name()).put("market", job.resources().market())
                    .put("gpus", job.resources().gpus()).put("max_price", Money.formatPrice(job.resources().maxPriceTicks())),
                    "running " + job.name() + ": " + job.resources().gpus() + " GPU(s) of " + job.resources().market()
                        + " up to " + Money.formatPrice(job.resources().maxPriceTicks()) + "/GPU-h; Ctrl-C cancels");
                managed.start();
                ManagedJob.Report report = null;
                while (report == null)
                {
                    if (stopAsked.await(100, TimeUnit.MILLISECONDS))
                    {
                        say(new Json().put("type", "cancelling"), "cancelled: the bid is cancelled and the lease released");
                        managed.cancel();
                        report = await(managed, timeout());
                        break;
                    }
                    if (managed.result().isDone())
                    {
                        report = managed.result().get();
                    }
                }
                report(report);
                return switch (report.outcome())
                {
                    case SUCCEEDED -> 0;
                    case GAVE_UP -> 1;
                    case CANCELLED -> CANCELLED;
                };
            }
        }
    }

    private ManagedJob.Report await(final ManagedJob managed, final Duration timeout) throws Exception
    {
        try
        {
            return managed.result().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final TimeoutException ex)
        {
            throw new CliException(CliException.CONNECTION, "the lease's release was not confirmed within "
                + timeout.toMillis() + " ms; see gpux leases");
        }
        catch (final ExecutionException ex)
        {
            throw new IllegalStateException(ex.getCause());
        }
    }

    private void report(final ManagedJob.Report r)
    {
        final String outcome = switch (r.outcome())
        {
            case SUCCEEDED -> "succeeded";
            case GAVE_UP -> "gave up";
            case CANCELLED -> "cancelled";
        };
        final List<Json> attempts = new ArrayList<>();
        final StringBuilder text = new StringBuilder();
        text.append(outcome).append(": ").append(r.reason()).append('\n')
            .append(r.attempts().size()).append(" attempt(s), ").append(r.failures()).append(" failed, ")
            .append(r.interruptions()).append(" interrupted; ").append(String.format("%.4f", r.gpuHours()))
            .append(" GPU-hours, cost ").append(Format.money(r.costMicros())).append(", time lost to interruptions ")
            .append(seconds(r.lostMs()));
        for (final ManagedJob.Attempt a : r.attempts())
        {
            attempts.add(new Json().put("attempt", a.number()).put("lease_id", a.leaseId()).put("gpus", a.gpus())
                .put("price", Money.formatPrice(a.price())).putSpan("readiness_ms", a.readinessMs()).put("result", a.result()));
            text.append("\n  attempt ").append(a.number()).append(" on lease ").append(a.leaseId()).append(": ")
                .append(a.readinessMs() < 0 ? "never ran" : "running " + a.readinessMs() + " ms after the fill")
                .append(", ").append(a.result());
        }
        say(new Json().put("type", "report").put("outcome", outcome).put("reason", r.reason())
            .put("failures", r.failures()).put("interruptions", r.interruptions())
            .put("gpu_hours", String.format(Locale.ROOT, "%.6f", r.gpuHours())).put("cost", Format.money(r.costMicros()))
            .put("lost_ms", r.lostMs()).put("attempts", attempts), text.toString());
    }

    private static String seconds(final long ms)
    {
        return String.format("%.1f s", ms / 1000.0);
    }

    private void say(final Json json, final String text)
    {
        synchronized (this)
        {
            out().println(this.json ? json.toString() : text);
            out().flush();
        }
    }

    /** Prints what the job hears, one line each. */
    private final class Printer implements ManagedJob.Listener
    {
        @Override
        public void onLeaseStarted(final long leaseId, final long machineId, final int gpus, final long price)
        {
            say(new Json().put("type", "lease_started").put("lease_id", leaseId).put("machine_id", machineId)
                .put("gpus", gpus).put("price", Money.formatPrice(price)),
                "lease " + leaseId + " started: " + gpus + " GPU(s) of machine " + machineId + " at " + Money.formatPrice(price)
                    + "/GPU-h");
        }

        @Override
        public void onLaunched(final int attempt, final long leaseId)
        {
            say(new Json().put("type", "launched").put("attempt", attempt).put("lease_id", leaseId),
                "attempt " + attempt + " launched on lease " + leaseId);
        }

        @Override
        public void onStatus(final int attempt, final long leaseId, final WorkloadStatus status)
        {
            final String state = switch (status.getState())
            {
                case WORKLOAD_EXITED -> "EXITED " + status.getExitCode();
                case WORKLOAD_FAILED -> "FAILED: " + status.getReason();
                default -> status.getState().name().substring("WORKLOAD_".length());
            };
            final Json line = new Json().put("type", "status").put("attempt", attempt).put("lease_id", leaseId)
                .put("state", status.getState() == WorkloadState.UNRECOGNIZED ? "UNKNOWN"
                    : status.getState().name().substring("WORKLOAD_".length()));
            if (status.getState() == WorkloadState.WORKLOAD_EXITED)
            {
                line.put("exit_code", status.getExitCode());
            }
            say(line.putText("reason", status.getReason()),
                "attempt " + attempt + " on lease " + leaseId + ": " + state);
        }

        @Override
        public void onNotice(final int attempt, final long leaseId, final long effectiveAtMs, final NoticeReason reason)
        {
            say(new Json().put("type", "notice").put("attempt", attempt).put("lease_id", leaseId)
                .put("reason", reason.name()).putTime("effective", effectiveAtMs),
                "lease " + leaseId + " notice (" + reason.name() + "): it ends at " + Instant.ofEpochMilli(effectiveAtMs)
                    + "; bidding again");
        }

        @Override
        public void onLeaseEnded(final long leaseId, final EndReason reason)
        {
            say(new Json().put("type", "lease_ended").put("lease_id", leaseId).put("reason", reason.name()),
                "lease " + leaseId + " ended: " + reason.name());
        }

        @Override
        public void onLog(final long leaseId, final List<String> lines)
        {
            for (final String line : lines)
            {
                say(new Json().put("type", "log").put("lease_id", leaseId).put("line", line), "| " + line);
            }
        }

        @Override
        public void onBidFailed(final Reason reason)
        {
            say(new Json().put("type", "bid_failed").put("reason", reason.name()), "the bid was refused: " + reason.name());
        }
    }

    public static void main(final String[] args)
    {
        GpuxCli.main("run", args);
    }
}
