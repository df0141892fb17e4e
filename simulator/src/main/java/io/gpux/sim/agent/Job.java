package io.gpux.sim.agent;

import io.gpux.client.SpotRequest;
import io.gpux.proto.v1.EndReason;
import io.gpux.proto.v1.Reason;
import io.gpux.sim.report.JobRecord;
import io.gpux.sim.report.LeaseRecord;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * One renter's job: N GPUs of one market for a given amount of work, at most a private value per
 * GPU-hour. It keeps its GPUs with a {@link SpotRequest} (which re-bids on every preemption notice),
 * counts its work from the leases it runs on, checkpoints every {@link AgentParameters#checkpointEveryMs}
 * and on every notice (the work a notice saved is counted), loses the work since its last checkpoint
 * when a lease ends without notice (its machine failed), raises its bid toward its value when it waits
 * too long, and gives up after {@link #MAX_WAIT_MS} without GPUs.
 */
final class Job
{
    static final long PATIENCE_MS = 45 * AgentParameters.MINUTE;
    static final long MAX_WAIT_MS = 12 * AgentParameters.HOUR;

    /** One lease the job runs (or ran) on. */
    private static final class Running
    {
        final int gpus;
        final long startMs;
        boolean working = true;

        Running(final int gpus, final long startMs)
        {
            this.gpus = gpus;
            this.startMs = startMs;
        }
    }

    /** The listener of one SpotRequest of the job (an escalation replaces the request). */
    private final class BidListener implements SpotRequest.Listener
    {
        SpotRequest request;

        @Override
        public void onLeaseStarted(final long leaseId, final long machineId, final int gpus, final long price)
        {
            Job.this.onLeaseStarted(request, leaseId, gpus);
        }

        @Override
        public void onPreemptionNotice(final long leaseId, final long effectiveAtMs)
        {
            Job.this.onNotice(request, leaseId);
        }

        @Override
        public void onLeaseEnded(final long leaseId, final EndReason reason)
        {
            Job.this.onLeaseEnded(request, leaseId, reason);
        }

        @Override
        public void onBidFailed(final long orderId, final Reason reason)
        {
            if (request == Job.this.request && !finished)
            {
                renter.noteBidFailure(reason);
                finish(reason == Reason.INSUFFICIENT_FUNDS ? JobRecord.Outcome.NO_FUNDS : JobRecord.Outcome.GAVE_UP);
            }
        }
    }

    final JobRecord record;
    private final Renter renter;
    private final SpotRequest.Constraints constraints;
    private final long valueTicks;
    private final Long2ObjectHashMap<Running> running = new Long2ObjectHashMap<>();
    private SpotRequest request;
    private long bidTicks;
    private int workingGpus;
    private long progressGpuMs;
    private long lastAccrualMs;
    private long completionGeneration;
    private long waitingSinceMs;
    private boolean finished;

    Job(final Renter renter, final JobRecord record, final SpotRequest.Constraints constraints, final long bidTicks)
    {
        this.renter = renter;
        this.record = record;
        this.constraints = constraints;
        this.valueTicks = Draw.ticks(record.value);
        this.bidTicks = Math.min(bidTicks, valueTicks);
        record.firstBidTicks = this.bidTicks;
    }

    boolean finished()
    {
        return finished;
    }

    void begin()
    {
        final long now = renter.now();
        lastAccrualMs = now;
        waitingSinceMs = now;
        bid();
        schedulePatience();
    }

    private void bid()
    {
        final BidListener listener = new BidListener();
        request = new SpotRequest(renter.access(), record.market, record.gpus, bidTicks, constraints, listener)
            .retryDelayMs(AgentParameters.MINUTE).calmAfterNoticeMs(renter.params.levers().calmAfterNoticeMs());
        listener.request = request;
        renter.track(request);
        record.lastBidTicks = bidTicks;
        renter.access().addListener(request);
        request.start();
    }

    private void schedulePatience()
    {
        renter.access().schedule(PATIENCE_MS, this::onPatience);
    }

    private void onPatience()
    {
        if (finished || renter.isStopped())
        {
            return;
        }
        if (request.leasedGpus() == 0 && workingGpus == 0)
        {
            final long now = renter.now();
            if (now - waitingSinceMs >= MAX_WAIT_MS)
            {
                finish(JobRecord.Outcome.GAVE_UP);
                return;
            }
            if (bidTicks < valueTicks)
            {
                // outbid or priced out: bid again, closer to what a GPU-hour is worth to the job
                renter.retire(request);
                bidTicks = Math.min(valueTicks, Math.max(bidTicks + 1, bidTicks * 112 / 100));
                record.escalations++;
                bid();
            }
        }
        schedulePatience();
    }

    private void accrue(final long now)
    {
        if (now > lastAccrualMs)
        {
            progressGpuMs += (long)workingGpus * (now - lastAccrualMs);
        }
        lastAccrualMs = Math.max(lastAccrualMs, now);
    }

    private long sinceCheckpoint(final Running r, final long now)
    {
        return Math.floorMod(now - r.startMs, renter.checkpointEveryMs());
    }

    private void onLeaseStarted(final SpotRequest from, final long leaseId, final int gpus)
    {
        final LeaseRecord lease = renter.tagLease(leaseId, record);
        if (from != request || finished)
        {
            return;
        }
        final long now = renter.now();
        accrue(now);
        running.put(leaseId, new Running(gpus, now));
        workingGpus += gpus;
        if (record.firstLeaseMs < 0)
        {
            record.firstLeaseMs = lease.startMs >= 0 ? lease.startMs : now;
        }
        scheduleCompletion();
    }

    private void onNotice(final SpotRequest from, final long leaseId)
    {
        final Running r = running.get(leaseId);
        if (r == null || !r.working || finished)
        {
            return;
        }
        final long now = renter.now();
        accrue(now);
        final long saved = r.gpus * sinceCheckpoint(r, now);
        record.savedGpuMs += saved;
        renter.tagLease(leaseId, record).savedGpuMs += saved;
        r.working = false;
        workingGpus -= r.gpus;
        if (workingGpus == 0)
        {
            waitingSinceMs = now;
        }
        scheduleCompletion();
    }

    private void onLeaseEnded(final SpotRequest from, final long leaseId, final EndReason reason)
    {
        final Running r = running.remove(leaseId);
        if (r == null || finished)
        {
            return;
        }
        if (!r.working)
        {
            return;
        }
        final long now = renter.now();
        accrue(now);
        workingGpus -= r.gpus;
        if (reason != EndReason.RELEASED && reason != EndReason.EXPIRED)
        {
            // no notice: the machine died under the job; what it did since its last checkpoint is gone
            final long lost = Math.min(progressGpuMs, r.gpus * sinceCheckpoint(r, now));
            progressGpuMs -= lost;
            record.lostGpuMs += lost;
            renter.tagLease(leaseId, record).lostGpuMs += lost;
        }
        if (workingGpus == 0)
        {
            waitingSinceMs = now;
        }
        scheduleCompletion();
    }

    private void scheduleCompletion()
    {
        final long generation = ++completionGeneration;
        if (workingGpus <= 0 || finished)
        {
            return;
        }
        final long remaining = (long)record.gpus * record.workMs - progressGpuMs;
        final long delay = Math.max(1, (remaining + workingGpus - 1) / workingGpus);
        renter.access().schedule(delay, () -> onCompletionTimer(generation));
    }

    private void onCompletionTimer(final long generation)
    {
        if (generation != completionGeneration || finished)
        {
            return;
        }
        accrue(renter.now());
        if (progressGpuMs >= (long)record.gpus * record.workMs)
        {
            finish(JobRecord.Outcome.DONE);
        }
        else
        {
            scheduleCompletion();
        }
    }

    /** Ends the job: its bids are cancelled and its leases released. */
    void finish(final JobRecord.Outcome outcome)
    {
        if (finished)
        {
            return;
        }
        final long now = renter.now();
        accrue(now);
        finished = true;
        completionGeneration++;
        record.outcome = outcome;
        record.endMs = now;
        record.doneGpuMs = Math.min(progressGpuMs, (long)record.gpus * record.workMs);
        renter.retire(request);
        renter.onJobFinished(this);
    }
}
