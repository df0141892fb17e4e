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
 * <p>Every lease the job starts on (its first, a replacement, a move) spends {@link Levers#restartMs} restarting
 * the job from its checkpoint before it works: GPU-time paid for that does no work.
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
        /** The job works on the lease from here: its start plus the restart time. */
        final long workFromMs;
        /** Periodic checkpoints count from here: the end of the restart, then the notice. */
        long checkpointBaseMs;
        boolean noticed;
        /** The notice's effective time, when the lease's GPUs stop (the exchange may tell the job a tick later). */
        long endsAtMs = Long.MAX_VALUE;
        /** GPU-ms of work this lease added to the job's progress. */
        long workedGpuMs;

        Running(final long leaseId, final long machineId, final int gpus, final long startMs, final long restartMs)
        {
            this.leaseId = leaseId;
            this.machineId = machineId;
            this.gpus = gpus;
            this.startMs = startMs;
            this.workFromMs = startMs + restartMs;
            this.checkpointBaseMs = workFromMs;
        }

        /** GPU-ms of the lease spent restarting up to {@code untilMs}. */
        long restartGpuMs(final long untilMs)
        {
            return (long)gpus * Math.max(0, Math.min(workFromMs, untilMs) - startMs);
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
            Job.this.onNotice(request, leaseId, effectiveAtMs);
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

    /** Adds the work of every running lease since the last accrual, none while it restarts or after its machine broke. */
    private void accrue(final long now)
    {
        if (now > lastAccrualMs)
        {
            for (final Running r : running.values())
            {
                final long from = Math.max(lastAccrualMs, r.workFromMs);
                final long end = Math.min(now, r.endsAtMs);
                final long broken = fleet().brokenSince(r.machineId);
                final long until = broken >= 0 ? Math.min(end, Math.max(broken, from)) : end;
                final long work = (long)r.gpus * Math.max(0, until - from);
                r.workedGpuMs += work;
                progressGpuMs += work;
            }
        }
        lastAccrualMs = Math.max(lastAccrualMs, now);
    }

    private long sinceCheckpoint(final Running r, final long now)
    {
        return now <= r.checkpointBaseMs ? 0 : (now - r.checkpointBaseMs) % renter.checkpointEveryMs();
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
        running.put(leaseId, new Running(leaseId, machineId, gpus, now, renter.params.levers().restartMs()));
        if (record.firstLeaseMs < 0)
        {
            record.firstLeaseMs = lease.startMs >= 0 ? lease.startMs : now;
        }
        scheduleCompletion();
    }

    private void onNotice(final SpotRequest from, final long leaseId, final long effectiveAtMs)
    {
        final Running r = running.get(leaseId);
        if (r == null || r.noticed || finished)
        {
            return;
        }
        final long now = renter.now();
        accrue(now);
        r.noticed = true;
        r.endsAtMs = Math.max(now, effectiveAtMs);
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
        // the lease ended when the exchange says (a notice's effective time, a machine's heartbeat deadline), which
        // the job may hear a tick later
        final long endMs = renter.tagLease(leaseId, record).endMs;
        if (endMs >= 0)
        {
            r.endsAtMs = Math.min(r.endsAtMs, endMs);
        }
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
        final long end = Math.min(now, r.endsAtMs);
        final long workedUntil = workedUntil(r, end);
        final long dead = (long)r.gpus * (end - workedUntil);
        final long lost = Math.min(Math.min(progressGpuMs, r.workedGpuMs), r.gpus * sinceCheckpoint(r, workedUntil));
        final long restart = r.restartGpuMs(workedUntil);
        progressGpuMs -= lost;
        record.lostGpuMs += lost;
        record.deadGpuMs += dead;
        record.restartGpuMs += restart;
        lease.lostGpuMs += lost;
        lease.deadGpuMs += dead;
        lease.restartGpuMs += restart;
        lease.usefulGpuMs += r.workedGpuMs - lost;
    }

    /** Until when lease {@code r} could work, up to {@code end}: its machine's break, if that came first. */
    private long workedUntil(final Running r, final long end)
    {
        final long broken = fleet().brokenSince(r.machineId);
        return broken >= 0 && broken < end ? Math.max(broken, r.startMs) : end;
    }

    /** The next look at the job's progress: when its working GPUs would finish it, or a lease's restart ends. */
    private void scheduleCompletion()
    {
        final long generation = ++completionGeneration;
        if (finished)
        {
            return;
        }
        final long now = renter.now();
        int workingGpus = 0;
        long delay = Long.MAX_VALUE;
        for (final Running r : running.values())
        {
            if (fleet().brokenSince(r.machineId) < 0 && r.endsAtMs > now)
            {
                if (r.workFromMs > now)
                {
                    delay = Math.min(delay, r.workFromMs - now);
                }
                else
                {
                    workingGpus += r.gpus;
                }
            }
        }
        if (workingGpus > 0)
        {
            final long remaining = (long)record.gpus * record.workMs - progressGpuMs;
            delay = Math.min(delay, (remaining + workingGpus - 1) / workingGpus);
        }
        if (delay != Long.MAX_VALUE)
        {
            renter.access().schedule(Math.max(1, delay), () -> onCompletionTimer(generation));
        }
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
            final LeaseRecord lease = renter.tagLease(r.leaseId, record);
            lease.usefulGpuMs += r.workedGpuMs - over;
            final long restart = r.restartGpuMs(workedUntil(r, Math.min(now, r.endsAtMs)));
            lease.restartGpuMs += restart;
            record.restartGpuMs += restart;
        }
        running.clear();
        renter.retire(request);
        renter.onJobFinished(this);
    }
}
