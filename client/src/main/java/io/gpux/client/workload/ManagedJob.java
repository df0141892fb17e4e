package io.gpux.client.workload;

import io.gpux.client.ClientListener;
import io.gpux.client.GpuxClient;
import io.gpux.client.SpotRequest;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.EndReason;
import io.gpux.proto.v1.NoticeReason;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.WorkloadLog;
import io.gpux.proto.v1.WorkloadState;
import io.gpux.proto.v1.WorkloadStatus;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A job kept running until it succeeds: it bids for the job file's resources (a {@link SpotRequest}
 * at {@code maxPrice}), launches the workload on each lease it gets, and after a preemption, an owner
 * reclaim, a machine going offline or a failed attempt bids and launches again with the next
 * {@code GPUX_ATTEMPT}, until the workload exits 0 on a lease without a notice (then the lease is
 * released at once) or more than {@code maxFailures} attempts have failed.
 *
 * <ul>
 *   <li>One attempt at a time: a lease that starts while the last attempt's lease still runs out its
 *   notice waits, and gets the next launch once that lease has ended.</li>
 *   <li>A noticed attempt's lease is released as soon as its workload has stopped (exited or failed
 *   after the notice: its checkpoint is written), so the renter stops paying for idle GPUs and the
 *   bid that preempted it starts at once (a hand-over), instead of at the notice's effective time.</li>
 *   <li>A failure is an attempt whose workload is {@code FAILED}, or {@code EXITED} non-zero, on a
 *   lease without a notice, or whose launch the exchange refused; its lease is released and the job
 *   bids again. A workload that exits (with any status) after its lease's notice, and a lease that
 *   ends early (preempted, reclaimed, machine offline, out of funds), is an interruption, not a
 *   failure.</li>
 *   <li>The job's resources are bid for as one gang (all GPUs on one machine): a workload runs on one
 *   lease.</li>
 * </ul>
 *
 * <p>Its state is touched on the client's event thread only; {@link #start}, {@link #cancel} hop onto
 * it. The log follower ({@link #followLogs}) runs on a thread of its own.
 */
public final class ManagedJob implements ClientListener, SpotRequest.Listener
{
    /** How the job ended. */
    public enum Outcome
    {
        SUCCEEDED, GAVE_UP, CANCELLED
    }

    /** One attempt: the lease it ran on and how long from the fill to RUNNING ({@code -1}: never ran). */
    public record Attempt(int number, long leaseId, int gpus, long price, long readinessMs, String result)
    {
    }

    /**
     * What the job did.
     *
     * @param costMicros the sum of its leases' settlements (what the renter paid), in micro-units.
     * @param gpuMs      GPU-milliseconds billed (GPUs × settled milliseconds).
     * @param lostMs     the time between each notice and the next attempt's RUNNING, summed.
     */
    public record Report(Outcome outcome, String reason, List<Attempt> attempts, int failures, int interruptions,
        long gpuMs, long costMicros, long lostMs)
    {
        public double gpuHours()
        {
            return gpuMs / 3_600_000.0;
        }
    }

    /** What the job's owner hears, on the client's event thread (logs: on the follower's). */
    public interface Listener
    {
        default void onLeaseStarted(final long leaseId, final long machineId, final int gpus, final long price)
        {
        }

        default void onLaunched(final int attempt, final long leaseId)
        {
        }

        default void onStatus(final int attempt, final long leaseId, final WorkloadStatus status)
        {
        }

        default void onNotice(final int attempt, final long leaseId, final long effectiveAtMs, final NoticeReason reason)
        {
        }

        default void onLeaseEnded(final long leaseId, final EndReason reason)
        {
        }

        default void onLog(final long leaseId, final List<String> lines)
        {
        }

        default void onBidFailed(final Reason reason)
        {
        }
    }

    private static final int LOG_LINES = 200;

    private final GpuxClient client;
    private final JobFile job;
    private final Listener listener;
    private final SpotRequest spot;
    private final CompletableFuture<Report> done = new CompletableFuture<>();

    private final List<Attempt> attempts = new ArrayList<>();
    private final Map<Long, Integer> leaseGpus = new HashMap<>();
    private final Map<Long, Long> leaseStartedMs = new HashMap<>();
    private final Map<Long, Long> leasePrice = new HashMap<>();
    private final List<Long> waitingLeases = new ArrayList<>();
    private AccountEvent event;
    private int attempt;
    private long currentLease;
    private long launchRequestId;
    private boolean noticed;
    /** Whether the noticed attempt's lease was released once its workload stopped. */
    private boolean handedOver;
    private boolean runningSeen;
    private boolean attemptFailed;
    private long pendingNoticeMs = -1;
    private int failures;
    private int interruptions;
    private long gpuMs;
    private long costMicros;
    private long lostMs;
    private Outcome outcome;
    private String outcomeReason;
    private volatile long followedLease;
    private ScheduledExecutorService follower;

    public ManagedJob(final GpuxClient client, final JobFile job, final Listener listener)
    {
        this.client = client;
        this.job = job;
        this.listener = listener == null ? new Listener() { } : listener;
        final JobFile.Resources r = job.resources();
        this.spot = new SpotRequest(client, r.market(), r.gpus(), r.maxPriceTicks(),
            new SpotRequest.Constraints(true, r.region(), r.minReliabilityNanos() / 1000, 0), this);
    }

    /** Starts listening and bidding. */
    public ManagedJob start()
    {
        client.addListener(this);
        spot.start();
        return this;
    }

    /** Polls the running attempt's log every {@code interval} and hands new lines to {@code onLog}. */
    public ManagedJob followLogs(final Duration interval)
    {
        follower = Executors.newSingleThreadScheduledExecutor(r ->
        {
            final Thread t = new Thread(r, "gpux-job-logs");
            t.setDaemon(true);
            return t;
        });
        final List<String> previous = new ArrayList<>();
        final long[] previousLease = {0};
        follower.scheduleWithFixedDelay(() -> pollLog(previous, previousLease), interval.toMillis(), interval.toMillis(),
            TimeUnit.MILLISECONDS);
        return this;
    }

    /** Cancels the bid and releases the leases; the report follows once they have ended. */
    public void cancel()
    {
        client.execute(() -> finish(Outcome.CANCELLED, "cancelled"));
    }

    /** Completes with the report once the job has ended and its leases have ended too. */
    public CompletableFuture<Report> result()
    {
        return done;
    }

    public JobFile job()
    {
        return job;
    }

    // ------------------------------------------------------------------------------------------
    // Client events (event thread): the spot request sees each first.

    @Override
    public void onEvent(final AccountEvent accountEvent)
    {
        event = accountEvent;
        ClientListener.dispatchEvent(spot, accountEvent);
        switch (accountEvent.getKindCase())
        {
            case SETTLED ->
            {
                final Integer gpus = leaseGpus.get(accountEvent.getSettled().getLeaseId());
                if (gpus != null)
                {
                    costMicros += accountEvent.getSettled().getCharge();
                    gpuMs += gpus * accountEvent.getSettled().getMs();
                }
            }
            default ->
            {
            }
        }
        maybeComplete();
    }

    @Override
    public void onResponse(final long requestId, final Response response)
    {
        spot.onResponse(requestId, response);
        if (requestId != launchRequestId || launchRequestId == 0)
        {
            return;
        }
        launchRequestId = 0;
        if (response.getReason() != Reason.REASON_OK && response.getReason() != Reason.UNKNOWN_LEASE)
        {
            failAttempt("launch refused: " + response.getReason() + (response.getMessage().isEmpty() ? "" : " " + response.getMessage()));
        }
    }

    @Override
    public void onWorkloadStatus(final WorkloadStatus status)
    {
        if (status.getLeaseId() != currentLease || currentLease == 0)
        {
            return;
        }
        listener.onStatus(attempt, currentLease, status);
        switch (status.getState())
        {
            case WORKLOAD_RUNNING ->
            {
                if (!runningSeen)
                {
                    runningSeen = true;
                    final Long started = leaseStartedMs.get(currentLease);
                    setReadiness(started == null ? -1 : Math.max(0, status.getTimeMs() - started));
                    if (pendingNoticeMs >= 0)
                    {
                        lostMs += Math.max(0, status.getTimeMs() - pendingNoticeMs);
                        pendingNoticeMs = -1;
                    }
                }
            }
            case WORKLOAD_EXITED ->
            {
                if (noticed)
                {
                    setResult("interrupted (exited " + status.getExitCode() + " after its notice)");
                    handOver();
                }
                else if (status.getExitCode() == 0)
                {
                    setResult("succeeded");
                    finish(Outcome.SUCCEEDED, "the workload exited 0");
                }
                else
                {
                    failAttempt("exited " + status.getExitCode());
                }
            }
            case WORKLOAD_FAILED ->
            {
                if (!noticed)
                {
                    failAttempt("failed: " + status.getReason());
                }
                else
                {
                    handOver();
                }
            }
            default ->
            {
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // The spot request's leases (event thread, inside onEvent)

    @Override
    public void onLeaseStarted(final long leaseId, final long machineId, final int gpus, final long price)
    {
        leaseGpus.put(leaseId, gpus);
        leasePrice.put(leaseId, price);
        leaseStartedMs.put(leaseId, event == null ? 0 : event.getTimeMs());
        listener.onLeaseStarted(leaseId, machineId, gpus, price);
        if (outcome != null)
        {
            return;
        }
        if (currentLease == 0)
        {
            launch(leaseId, gpus, price);
        }
        else
        {
            waitingLeases.add(leaseId);
        }
    }

    @Override
    public void onPreemptionNotice(final long leaseId, final long effectiveAtMs)
    {
        final NoticeReason reason = event != null && event.hasPreemptNotice() ? event.getPreemptNotice().getReason()
            : NoticeReason.NOTICE_REASON_UNSPECIFIED;
        if (leaseId != currentLease)
        {
            waitingLeases.remove(leaseId);
            return;
        }
        listener.onNotice(attempt, leaseId, effectiveAtMs, reason);
        if (!noticed && !attemptFailed && outcome == null)
        {
            noticed = true;
            interruptions++;
            pendingNoticeMs = event == null ? 0 : event.getTimeMs();
            setResult("interrupted (" + reason + ")");
        }
    }

    @Override
    public void onLeaseEnded(final long leaseId, final EndReason reason)
    {
        listener.onLeaseEnded(leaseId, reason);
        waitingLeases.remove(leaseId);
        if (leaseId != currentLease)
        {
            return;
        }
        if (!noticed && !attemptFailed && outcome == null)
        {
            // ended early without a notice we saw (machine offline, expired): an interruption
            interruptions++;
            pendingNoticeMs = event == null ? 0 : event.getTimeMs();
            setResult("interrupted (lease " + reason + ")");
        }
        currentLease = 0;
        followedLease = 0;
        launchRequestId = 0;
        if (outcome == null && !waitingLeases.isEmpty())
        {
            final long next = waitingLeases.remove(0);
            launch(next, leaseGpus.get(next), leasePrice.get(next));
        }
    }

    @Override
    public void onBidFailed(final long orderId, final Reason reason)
    {
        listener.onBidFailed(reason);
        if (outcome == null)
        {
            finish(Outcome.GAVE_UP, "the bid was refused: " + reason);
        }
    }

    // ------------------------------------------------------------------------------------------

    private void launch(final long leaseId, final int gpus, final long price)
    {
        attempt++;
        currentLease = leaseId;
        noticed = false;
        handedOver = false;
        runningSeen = false;
        attemptFailed = false;
        attempts.add(new Attempt(attempt, leaseId, gpus, price, -1, "running"));
        launchRequestId = client.launch(leaseId, WorkloadSpecs.toProto(job.workload(), job.checkpointOnWire(), attempt));
        followedLease = leaseId;
        listener.onLaunched(attempt, leaseId);
    }

    /**
     * The noticed attempt's workload has stopped (its checkpoint written): release its lease now rather than
     * pay for idle GPUs until the notice's effective time; the rules end it at once and start the lease that
     * preempted it (a hand-over).
     */
    private void handOver()
    {
        if (!handedOver && currentLease != 0 && outcome == null)
        {
            handedOver = true;
            client.release(currentLease);
        }
    }

    private void failAttempt(final String why)
    {
        if (attemptFailed || outcome != null)
        {
            return;
        }
        attemptFailed = true;
        failures++;
        setResult("failed: " + why);
        // the lease goes; its end makes the spot request bid again
        client.release(currentLease);
        if (failures > job.maxFailures())
        {
            finish(Outcome.GAVE_UP, failures + " attempts failed (maxFailures " + job.maxFailures() + "); the last " + why);
        }
    }

    private void finish(final Outcome how, final String why)
    {
        if (outcome != null)
        {
            return;
        }
        outcome = how;
        outcomeReason = why;
        followedLease = 0;
        spot.close(true);
        client.execute(this::maybeComplete);
    }

    private void maybeComplete()
    {
        if (outcome == null || done.isDone() || spot.bidCount() > 0 || spot.leaseCount() > 0)
        {
            return;
        }
        client.removeListener(this);
        if (follower != null)
        {
            follower.shutdownNow();
        }
        done.complete(new Report(outcome, outcomeReason, List.copyOf(attempts), failures, interruptions, gpuMs, costMicros,
            lostMs));
    }

    private void setReadiness(final long ms)
    {
        final Attempt a = attempts.get(attempts.size() - 1);
        attempts.set(attempts.size() - 1, new Attempt(a.number(), a.leaseId(), a.gpus(), a.price(), ms, a.result()));
    }

    private void setResult(final String result)
    {
        final Attempt a = attempts.get(attempts.size() - 1);
        attempts.set(attempts.size() - 1, new Attempt(a.number(), a.leaseId(), a.gpus(), a.price(), a.readinessMs(), result));
    }

    /** The follower's thread: new lines of the followed lease's log since the last poll. */
    private void pollLog(final List<String> previous, final long[] previousLease)
    {
        final long lease = followedLease;
        if (lease == 0)
        {
            return;
        }
        if (lease != previousLease[0])
        {
            previous.clear();
            previousLease[0] = lease;
        }
        final WorkloadLog log;
        try
        {
            log = client.logTail(lease, LOG_LINES, Duration.ofSeconds(5));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return;
        }
        catch (final Exception ex)
        {
            return; // the lease ended or the agent is away: the next poll tries again
        }
        final List<String> lines = log.getLinesList();
        final List<String> fresh = newLines(previous, lines);
        previous.clear();
        previous.addAll(lines);
        if (!fresh.isEmpty())
        {
            listener.onLog(lease, fresh);
        }
    }

    /**
     * The lines of {@code now} after the longest run that ends {@code before} and starts {@code now}:
     * what was printed since the last tail (all of {@code now} when they share nothing).
     */
    static List<String> newLines(final List<String> before, final List<String> now)
    {
        for (int k = Math.min(before.size(), now.size()); k > 0; k--)
        {
            if (before.subList(before.size() - k, before.size()).equals(now.subList(0, k)))
            {
                return List.copyOf(now.subList(k, now.size()));
            }
        }
        return List.copyOf(now);
    }
}
