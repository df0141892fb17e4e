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
 * and on every notice (the work a notice saved is counted), keeps working through the grace period and
 * stops at the notice's effective time (or when a replacement lease takes over), raises its bid toward
 * its value when it waits too long, and gives up after {@link #MAX_WAIT_MS} without GPUs. With the
 * levers: it releases a noticed lease at once after its checkpoint ({@link Levers#handOverOnNotice}), and
 * moves onto cheaper GPUs ({@link Levers#moveSavingBps}), checkpointing as it leaves the old lease.
 *
 * <p>Whenever a lease stops working other than by the job finishing (the end of a grace period, a
 * hand-over, an end without notice), the work since its last checkpoint is lost. A job does no work
 * on a broken machine ({@link Fleet}): from the moment its machine broke to the moment the exchange
 * ended the lease (its heartbeat timeout), the lease's GPU-time is dead time, and the work since the
 * last checkpoint before the break is lost too.
 */
final class Job
{
    static final long PATIENCE_MS = JobRecord.PATIENCE_MS;
    static final long MAX_WAIT_MS = JobRecord.MAX_WAIT_MS;

    /** One lease the job runs (or ran) on. */
    private static final class Running
    {
        final long leaseId;
        final long machineId;
        final int gpus;
        final long startMs;
        /** Periodic checkpoints count from here: the lease's start, then its notice. */
        long checkpointBaseMs;
        boolean noticed;
        /** GPU-ms of work this lease added to the job's progress. */
        long workedGpuMs;

        Running(final long leaseId, final long machineId, final int gpus, final long startMs)
        {
            this.leaseId = leaseId;
            this.machineId = machineId;
            this.gpus = gpus;
            this.startMs = startMs;
            this.checkpointBaseMs = startMs;
        }
    }

    /** The listener of one SpotRequest of the job (an escalation replaces the request). */
    private final class BidListener implements SpotRequest.Listener
    {
        SpotRequest request;

        @Override
        public void onLeaseStarted(final long leaseId, final long machineId, final int gpus, final long price)
        {
            Job.this.onLeaseStarted(request, leaseId, machineId, gpus);
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
        public void onLeaseMoved(final long fromLeaseId, final long toLeaseId)
        {
            Job.this.onLeaseMoved(request, fromLeaseId);
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
        if (renter.params.levers().moveSavingBps() > 0)
        {
            request.moveWhenCheaper(renter.params.levers().moveEveryMs(), renter.params.levers().moveSavingBps());
        }
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
        if (request.leasedGpus() == 0 && running.isEmpty())
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

    private Fleet fleet()
    {
        return renter.fleet();
    }

    /** Adds the work of every running lease since the last accrual, none after its machine broke. */
    private void accrue(final long now)
    {
        if (now > lastAccrualMs)
        {
            for (final Running r : running.values())
            {
                final long broken = fleet().brokenSince(r.machineId);
                final long until = broken >= 0 ? Math.min(now, Math.max(broken, lastAccrualMs)) : now;
                final long work = (long)r.gpus * (until - lastAccrualMs);
                r.workedGpuMs += work;
                progressGpuMs += work;
            }
        }
        lastAccrualMs = Math.max(lastAccrualMs, now);
    }

    /** GPUs on running leases whose machines work. */
    private int workingGpus()
    {
        int gpus = 0;
        for (final Running r : running.values())
        {
            gpus += fleet().brokenSince(r.machineId) >= 0 ? 0 : r.gpus;
        }
        return gpus;
    }

    private long sinceCheckpoint(final Running r, final long now)
    {
        return Math.floorMod(now - r.checkpointBaseMs, renter.checkpointEveryMs());
    }

    private void onLeaseStarted(final SpotRequest from, final long leaseId, final long machineId, final int gpus)
    {
        final LeaseRecord lease = renter.tagLease(leaseId, record);
        if (from != request || finished)
        {
            return;
        }
        final long now = renter.now();
        accrue(now);
        // a replacement takes over from leases under notice: the job moves, resuming from their notice checkpoint
        int total = gpus;
        for (final Running r : running.values())
        {
            total += r.gpus;
        }
        for (final Running r : new java.util.ArrayList<>(running.values()))
        {
            if (total > record.gpus && r.noticed)
            {
                total -= r.gpus;
                stop(r, now);
            }
        }
        running.put(leaseId, new Running(leaseId, machineId, gpus, now));
        if (record.firstLeaseMs < 0)
        {
            record.firstLeaseMs = lease.startMs >= 0 ? lease.startMs : now;
        }
        scheduleCompletion();
    }

    private void onNotice(final SpotRequest from, final long leaseId)
    {
        final Running r = running.get(leaseId);
        if (r == null || r.noticed || finished)
        {
            return;
        }
        final long now = renter.now();
        accrue(now);
        r.noticed = true;
        if (fleet().brokenSince(r.machineId) < 0)
        {
            // checkpoint now, keep working until the notice's effective time (or hand the GPUs over at once)
            final long saved = r.gpus * sinceCheckpoint(r, now);
            record.savedGpuMs += saved;
            renter.tagLease(leaseId, record).savedGpuMs += saved;
            r.checkpointBaseMs = now;
            if (renter.params.levers().handOverOnNotice())
            {
                stop(r, now);
                if (running.isEmpty())
                {
                    waitingSinceMs = now;
                }
                scheduleCompletion();
                renter.access().release(leaseId);
            }
        }
    }

    /** A move: checkpoint on the old lease and leave it (nothing is lost); the work goes on on the new one. */
    private void onLeaseMoved(final SpotRequest from, final long fromLeaseId)
    {
        final Running r = running.get(fromLeaseId);
        if (from != request || r == null || finished)
        {
            return;
        }
        final long now = renter.now();
        accrue(now);
        if (fleet().brokenSince(r.machineId) < 0)
        {
            r.checkpointBaseMs = now;
        }
        stop(r, now);
        scheduleCompletion();
    }

    private void onLeaseEnded(final SpotRequest from, final long leaseId, final EndReason reason)
    {
        final Running r = running.get(leaseId);
        if (r == null || finished)
        {
            return;
        }
        final long now = renter.now();
        accrue(now);
        stop(r, now);
        if (running.isEmpty())
        {
            waitingSinceMs = now;
        }
        scheduleCompletion();
    }

    /**
     * A lease stops working for the job (its end, or a hand-over): the work since its last checkpoint
     * is lost, and so is the GPU-time after its machine broke.
     */
    private void stop(final Running r, final long now)
    {
        running.remove(r.leaseId);
        final LeaseRecord lease = renter.tagLease(r.leaseId, record);
        final long broken = fleet().brokenSince(r.machineId);
        final long workedUntil = broken >= 0 && broken < now ? Math.max(broken, r.startMs) : now;
        final long dead = (long)r.gpus * (now - workedUntil);
        final long lost = Math.min(Math.min(progressGpuMs, r.workedGpuMs), r.gpus * sinceCheckpoint(r, workedUntil));
        progressGpuMs -= lost;
        record.lostGpuMs += lost;
        record.deadGpuMs += dead;
        lease.lostGpuMs += lost;
        lease.deadGpuMs += dead;
        lease.usefulGpuMs += r.workedGpuMs - lost;
    }

    private void scheduleCompletion()
    {
        final long generation = ++completionGeneration;
        final int workingGpus = workingGpus();
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
        // the work of the leases still running is kept (done, or checkpointed as the run ends); past the
        // job's need it is not work
        long excess = progressGpuMs - record.doneGpuMs;
        for (final Running r : running.values())
        {
            final long over = Math.min(excess, r.workedGpuMs);
            excess -= over;
            renter.tagLease(r.leaseId, record).usefulGpuMs += r.workedGpuMs - over;
        }
        running.clear();
        renter.retire(request);
        renter.onJobFinished(this);
    }
}
