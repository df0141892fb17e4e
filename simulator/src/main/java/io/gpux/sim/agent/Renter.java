package io.gpux.sim.agent;

import io.gpux.client.SpotRequest;
import io.gpux.proto.v1.Reason;
import io.gpux.sim.report.JobRecord;
import io.gpux.sim.report.LeaseRecord;
import io.gpux.sim.report.LiveCounters;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * A renter: jobs arrive over time (a Poisson process whose rate follows a daily cycle, peaking in
 * the afternoon UTC), mostly in the renter's preferred market; each job wants 1 to 16 GPUs (the
 * multi-GPU ones mostly as gang bids: one machine), runs for minutes to days, and is worth a private
 * value per GPU-hour, above the typical market price with a wide spread. The renter bids below that
 * value and raises its bid when it waits (see {@link Job}); its deposit is its budget.
 *
 * <p>With the night-batch lever ({@link Levers#nightBatch}), cheap batch jobs also arrive, at a rate
 * {@code nightBatch * max(0, -cos(2 pi (h - PEAK_HOUR) / 24))} times the mean (none in the afternoon, most
 * at 3 a.m.): 1 to 8 GPUs without gang, a few hours of work, valued around the owners' costs, so they
 * take the capacity the daytime jobs leave and give it back when outbid.
 */
public final class Renter extends Agent
{
    private static final int[] JOB_SIZES = {1, 2, 4, 8, 16};
    private static final double[] JOB_SIZE_WEIGHTS = {0.30, 0.20, 0.20, 0.27, 0.03};
    /** Daily cycle: the arrival rate is {@code 1 + AMPLITUDE * cos(2 pi (h - PEAK_HOUR) / 24)} times the mean. */
    private static final double AMPLITUDE = 0.45;
    private static final double PEAK_HOUR = 15;
    static final long MEDIAN_WORK_MS = 2 * AgentParameters.HOUR;
    static final double WORK_SIGMA = 1.1;
    static final long MAX_WORK_MS = 72 * AgentParameters.HOUR;
    /** With a steady start, the jobs in flight at the open come to the market over this much market time. */
    static final long STEADY_START_SPREAD_MS = 5 * AgentParameters.MINUTE;
    private static final int[] BATCH_SIZES = {1, 2, 4, 8};
    private static final double[] BATCH_SIZE_WEIGHTS = {0.25, 0.25, 0.25, 0.25};
    static final long MEDIAN_BATCH_WORK_MS = 3 * AgentParameters.HOUR;

    private final GpuClass primary;
    private final double jobsPerHour;
    private final double valueFactor;
    private final long depositMicros;
    private final long jobIdBase;
    private final List<Job> jobs = new ArrayList<>();
    private final List<SpotRequest> retired = new ArrayList<>();
    /** Every request its jobs made, for the preemption counts. */
    private final List<SpotRequest> requests = new ArrayList<>();
    private int jobCount;

    /**
     * @param jobsPerHour   mean arrival rate of jobs.
     * @param depositMicros the budget deposited for the renter (set by the population).
     * @param jobIdBase     job ids are {@code jobIdBase + 1, + 2, ...} (unique in the run).
     */
    public Renter(final String name, final long seed, final AgentParameters params, final LiveCounters live,
        final GpuClass primary, final double jobsPerHour, final long depositMicros, final long jobIdBase)
    {
        super(name, "renter", seed, params, live);
        this.primary = primary;
        this.jobsPerHour = jobsPerHour;
        this.valueFactor = Draw.clamp(Draw.logNormal(rng, 1.0, 0.15), 0.7, 1.5);
        this.depositMicros = depositMicros;
        this.jobIdBase = jobIdBase;
    }

    public long depositMicros()
    {
        return depositMicros;
    }

    long now()
    {
        return access.now();
    }

    boolean isStopped()
    {
        return stopped;
    }

    Fleet fleet()
    {
        return params.fleet();
    }

    long checkpointEveryMs()
    {
        return params.checkpointEveryMs();
    }

    @Override
    protected void onStart()
    {
        if (params.steadyStart())
        {
            startFromHistory();
        }
        else
        {
            // warm start: about as many jobs as the steady state has in flight, arriving over the first minutes
            final double meanWorkHours = MEDIAN_WORK_MS * Math.exp(WORK_SIGMA * WORK_SIGMA / 2) / AgentParameters.HOUR;
            final int initial = poisson(jobsPerHour * meanWorkHours * 0.8);
            for (int i = 0; i < initial; i++)
            {
                access.schedule((long)(rng.nextDouble() * 20 * AgentParameters.MINUTE), this::arrive);
            }
        }
        scheduleArrival();
        scheduleBatchArrival();
        access.schedule(AgentParameters.HOUR, this::sweep);
    }

    private void scheduleBatchArrival()
    {
        final double peak = jobsPerHour * params.levers().nightBatch();
        if (peak <= 0)
        {
            return;
        }
        access.schedule((long)Draw.exponential(rng, AgentParameters.HOUR / peak), this::candidateBatchArrival);
    }

    private void candidateBatchArrival()
    {
        if (stopped)
        {
            return;
        }
        final double night = -Math.cos(2 * Math.PI * (hourOfDay(access.now()) - PEAK_HOUR) / 24);
        if (rng.nextDouble() < night)
        {
            arriveBatch();
        }
        scheduleBatchArrival();
    }

    /** A cheap batch job: any machine, no gang, valued around the owners' costs. */
    private void arriveBatch()
    {
        final GpuClass c = primary;
        final int gpus = Catalogue.pick(BATCH_SIZES, BATCH_SIZE_WEIGHTS, rng);
        final double value = Owner.round4(c.peerPrice() * Draw.clamp(Draw.logNormal(rng, 1.0, 0.2), 0.7, 1.4));
        final long work = (long)Draw.clamp(Draw.logNormal(rng, MEDIAN_BATCH_WORK_MS, 0.6), 30 * AgentParameters.MINUTE,
            12 * AgentParameters.HOUR);
        final long bid = Draw.ticks(value * Draw.uniform(rng, 0.8, 0.95));
        startJob(c, gpus, false, value, work, "", 0, bid);
    }

    /**
     * The steady state's jobs in flight at the open: the renter's job arrivals over the longest job's work before the
     * open, drawn by the same daily cycle and work distribution; every job that would still be running at the open,
     * had it run from its arrival, comes to the market in the first minutes with the work it has left.
     */
    private void startFromHistory()
    {
        final long open = access.now();
        final double peak = jobsPerHour * (1 + AMPLITUDE);
        if (peak <= 0)
        {
            return;
        }
        for (long t = open - MAX_WORK_MS; ; )
        {
            t += (long)Draw.exponential(rng, AgentParameters.HOUR / peak);
            if (t >= open)
            {
                return;
            }
            final long work = drawWork();
            if (rng.nextDouble() * (1 + AMPLITUDE) < rateFactor(hourOfDay(t)) && t + work > open)
            {
                final long left = Math.max(AgentParameters.MINUTE, t + work - open);
                access.schedule((long)(rng.nextDouble() * STEADY_START_SPREAD_MS), () -> arrive(left));
            }
        }
    }

    private long drawWork()
    {
        return (long)Draw.clamp(Draw.logNormal(rng, MEDIAN_WORK_MS, WORK_SIGMA), 10 * AgentParameters.MINUTE, MAX_WORK_MS);
    }

    /** The daily cycle: the arrival rate at hour {@code h} of the day as a multiple of the mean. */
    private static double rateFactor(final double h)
    {
        return 1 + AMPLITUDE * Math.cos(2 * Math.PI * (h - PEAK_HOUR) / 24);
    }

    private int poisson(final double mean)
    {
        final double limit = Math.exp(-mean);
        double p = 1.0;
        int k = 0;
        while (true)
        {
            p *= rng.nextDouble();
            if (p <= limit)
            {
                return k;
            }
            k++;
        }
    }

    private void scheduleArrival()
    {
        if (jobsPerHour <= 0)
        {
            return;
        }
        // thinning: candidates at the peak rate, each kept with probability rate(t) / peak rate
        final double peak = jobsPerHour * (1 + AMPLITUDE);
        final long delay = (long)Draw.exponential(rng, AgentParameters.HOUR / peak);
        access.schedule(delay, this::candidateArrival);
    }

    private void candidateArrival()
    {
        if (stopped)
        {
            return;
        }
        if (rng.nextDouble() * (1 + AMPLITUDE) < rateFactor(hourOfDay(access.now())))
        {
            arrive();
        }
        scheduleArrival();
    }

    private void arrive()
    {
        arrive(-1);
    }

    /** A job; {@code workLeft} its work per GPU, or negative: drawn. */
    private void arrive(final long workLeft)
    {
        if (stopped)
        {
            return;
        }
        final GpuClass c = rng.nextDouble() < 0.8 ? primary : Catalogue.drawClass(rng);
        int gpus = Catalogue.pick(JOB_SIZES, JOB_SIZE_WEIGHTS, rng);
        final int largest = params.largestMachine().getOrDefault(c.symbol(), 8);
        boolean gang = gpus > 1 && rng.nextDouble() < 0.8;
        if (gpus > largest)
        {
            gang = false;
        }
        final double value = Owner.round4(c.peerPrice() * valueFactor * Draw.clamp(Draw.logNormal(rng, 1.4, 0.35), 0.6, 4.0));
        final long work = workLeft >= 0 ? workLeft : drawWork();
        final String region = rng.nextDouble() < 0.05 ? Catalogue.drawRegion(rng) : "";
        final long minReliabilityPpm = rng.nextDouble() < 0.1 ? 900_000 : 0;
        final long bid = Draw.ticks(value * Draw.uniform(rng, 0.7, 0.95));
        if (gpus > 16)
        {
            gpus = 16;
        }
        startJob(c, gpus, gang, value, work, region, minReliabilityPpm, bid);
    }

    private void startJob(final GpuClass c, final int gpus, final boolean gang, final double value, final long work,
        final String region, final long minReliabilityPpm, final long bid)
    {
        final JobRecord record = new JobRecord(jobIdBase + (++jobCount), name, c.symbol(), gpus, gang, value, access.now(), work);
        record.restartMs = params.levers().restartMs();
        records.jobs.add(record);
        final Job job = new Job(this, record, new SpotRequest.Constraints(gang, region, minReliabilityPpm, 0), bid);
        jobs.add(job);
        live.jobsArrived.increment();
        job.begin();
    }

    /** Marks a lease as the job's (its value goes into the surplus). */
    LeaseRecord tagLease(final long leaseId, final JobRecord job)
    {
        final LeaseRecord lease = renterLease(leaseId);
        lease.jobId = job.id;
        lease.value = job.value;
        return lease;
    }

    void noteBidFailure(final Reason reason)
    {
        records.rejects.merge("BID_FAILED:" + reason.name(), 1L, Long::sum);
    }

    /** A job is done with a request: cancel its bids, release its leases; stop listening once it is idle. */
    void track(final SpotRequest request)
    {
        requests.add(request);
    }

    /** Fills of its jobs' bids that preempted a lease. */
    public long preemptingFills()
    {
        long n = 0;
        for (final SpotRequest r : requests)
        {
            n += r.preemptingFills();
        }
        return n;
    }

    /** Moves of its jobs onto cheaper GPUs. */
    public long moves()
    {
        long n = 0;
        for (final SpotRequest r : requests)
        {
            n += r.moves();
        }
        return n;
    }

    /** Of those, the fills of bids placed on one of its own leases' preemption notices (cascades). */
    public long cascadingFills()
    {
        long n = 0;
        for (final SpotRequest r : requests)
        {
            n += r.cascadingFills();
        }
        return n;
    }

    void retire(final SpotRequest request)
    {
        request.close(true);
        retired.add(request);
    }

    void onJobFinished(final Job job)
    {
        if (job.record.outcome == JobRecord.Outcome.DONE)
        {
            live.jobsDone.increment();
        }
        jobs.remove(job);
    }

    private void sweep()
    {
        for (final Iterator<SpotRequest> it = retired.iterator(); it.hasNext(); )
        {
            final SpotRequest r = it.next();
            if (r.bidCount() == 0 && r.leaseCount() == 0)
            {
                access.removeListener(r);
                it.remove();
            }
        }
        if (!stopped)
        {
            access.schedule(AgentParameters.HOUR, this::sweep);
        }
    }

    @Override
    protected void onStop()
    {
        for (final Job job : new ArrayList<>(jobs))
        {
            job.finish(JobRecord.Outcome.OPEN);
        }
    }
}
