package io.gpux.sim.workload;

import io.gpux.client.ClientListener;
import io.gpux.client.GpuxClient;
import io.gpux.client.agent.AgentWorkloads;
import io.gpux.client.agent.NvidiaSmi;
import io.gpux.client.agent.OwnerAgent;
import io.gpux.client.agent.OwnerAgentContext;
import io.gpux.client.agent.OwnerAgentListener;
import io.gpux.client.agent.workload.ProcessRuntime;
import io.gpux.client.agent.workload.WorkloadSupervisorContext;
import io.gpux.client.workload.JobFile;
import io.gpux.client.workload.JobFileException;
import io.gpux.client.workload.JobFileParser;
import io.gpux.client.workload.ManagedJob;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.EndReason;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.WorkloadState;
import io.gpux.proto.v1.WorkloadStatus;
import io.gpux.sim.market.ScaledClock;
import io.gpux.sim.report.WorkloadFigures;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The demo's workload lane: real workloads on real owner agents, in the market with the simulated agents.
 *
 * <p>{@code jobs} owners each run an {@link OwnerAgent} in this JVM on a recorded H200 ({@link NvidiaSmi#recorded})
 * with the {@code process} runtime, its own state directory, region {@value #REGION}, asking a price in the upper
 * part of the H200 market's range; the simulated renters bid on these machines too. {@code jobs} renters each run
 * {@link ManagedJob}s one after another until the market closes, bidding that price only in region {@value #REGION}
 * (the simulated owners run no workloads), so a simulated renter bidding more outbids them now and then. Each job is a
 * {@link CountingJob}; the renters with an odd number keep a checkpoint (on the lane's directory, which every lane
 * machine reaches: they share this machine), the others start from 0 at every attempt. So that every job is
 * interrupted at least once, its machine's owner reclaims the machine once the job's attempt has counted
 * {@code reclaimAfterSteps} steps, and offers it again when that lease has ended.
 */
public final class WorkloadLane implements AutoCloseable
{
    /** The region of the lane's machines, and the only one its jobs accept. */
    public static final String REGION = "lane";
    private static final String MARKET = "H200-141G";
    private static final long RENTER_DEPOSIT = 1_000_000_000L;
    private static final int LOG_KEPT = 200;

    /**
     * @param jobs              machines and renters (each renter runs its jobs one after another).
     * @param steps             each job's count.
     * @param stepMs            wall time per step.
     * @param checkpointEvery   a checkpointed job saves every this many steps (and on its notice).
     * @param reclaimAfterSteps the owner reclaims a job's machine once an attempt has counted this many.
     * @param askPrice          the lane machines' asking price, in ticks.
     * @param bidPrice          the lane jobs' highest price, in ticks.
     * @param dir               checkpoints, ledgers and the agents' state directories.
     */
    public record Settings(int jobs, int steps, long stepMs, int checkpointEvery, int reclaimAfterSteps, long askPrice,
        long bidPrice, Path dir)
    {
        /**
         * The demo's: 3 s jobs (30 steps of 100 ms) saving every 5 steps, reclaimed after 10; the machines ask what
         * the jobs bid, so that a lane job never outbids another (a preemption needs a bid of the lease's price plus
         * the market's increment) while a simulated renter bidding more still does. The price, 4.50, is above the
         * H200 market's busy-hour prices and its on-demand price (4.30), so that an interrupted job gets a lane
         * machine back in a full market.
         */
        public static Settings defaults(final int jobs, final Path dir)
        {
            return new Settings(jobs, 30, 100, 5, 10, io.gpux.common.Money.parsePrice("4.50"), io.gpux.common.Money.parsePrice("4.50"), dir);
        }
    }

    /** An account the lane needs: the demo creates it, with a key and the deposit. */
    public record Account(String name, Role role, long deposit)
    {
    }

    /**
     * The lane's money: what its renters were given, what its accounts hold, the fees on its machines' leases; and
     * each account's portfolio, by account name.
     */
    public record Money(long deposits, long balances, long fees, boolean allAnswered, boolean nonNegative, boolean nothingOpen,
        Map<String, Portfolio> portfolios)
    {
    }

    private final Settings s;
    private final ScaledClock clock;
    private final PrintStream err;
    private final List<GpuxClient> owners;
    private final List<GpuxClient> renters;
    private final List<OwnerAgent> agents = new ArrayList<>();
    private final List<Runner> runners = new ArrayList<>();
    private final Map<Long, OwnerAgent> leaseMachine = new ConcurrentHashMap<>();
    private final Map<Long, Long> fees = new ConcurrentHashMap<>();
    private final Set<Long> reclaimedLeases = ConcurrentHashMap.newKeySet();
    private final Deque<String> log = new ConcurrentLinkedDeque<>();
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r ->
    {
        final Thread t = new Thread(r, "gpux-demo-workloads");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean closing;

    /** The accounts of {@code jobs} owners and {@code jobs} renters. */
    public static List<Account> accounts(final int jobs)
    {
        final List<Account> accounts = new ArrayList<>();
        for (int i = 1; i <= jobs; i++)
        {
            accounts.add(new Account("lane-owner-" + i, Role.OWNER, 0));
        }
        for (int i = 1; i <= jobs; i++)
        {
            accounts.add(new Account("lane-renter-" + i, Role.RENTER, RENTER_DEPOSIT));
        }
        return accounts;
    }

    /**
     * @param clients the logged-in clients of {@link #accounts}, in that order; the lane does not close them.
     * @param clock   the exchange's market clock: notices' effective times are market time.
     */
    public WorkloadLane(final Settings s, final List<GpuxClient> clients, final ScaledClock clock, final PrintStream err)
        throws IOException
    {
        this.s = s;
        this.clock = clock;
        this.err = err;
        this.owners = clients.subList(0, s.jobs());
        this.renters = clients.subList(s.jobs(), 2 * s.jobs());
        Files.createDirectories(s.dir().resolve("checkpoints"));
        Files.createDirectories(s.dir().resolve("ledgers"));
        for (int i = 0; i < s.jobs(); i++)
        {
            final GpuxClient owner = owners.get(i);
            owner.addListener(new ClientListener()
            {
                @Override
                public void onEvent(final AccountEvent e)
                {
                    if (e.getKindCase() == AccountEvent.KindCase.LEASE_ENDED)
                    {
                        fees.put(e.getLeaseEnded().getLeaseId(), e.getLeaseEnded().getFee());
                    }
                }
            });
            agents.add(agent(owner, i + 1));
            runners.add(new Runner(renters.get(i), i + 1, (i + 1) % 2 == 1));
        }
    }

    private OwnerAgent agent(final GpuxClient owner, final int n) throws IOException
    {
        final Path state = s.dir().resolve("agents").resolve("lane-" + n);
        Files.createDirectories(state);
        final WorkloadSupervisorContext supervisor = new WorkloadSupervisorContext().stateDir(state)
            .runtime(new ProcessRuntime(null, this::log)).clock(clock::now).allowCheckpointPath(s.dir().resolve("checkpoints"));
        final OwnerAgent[] self = new OwnerAgent[1];
        self[0] = new OwnerAgent(new OwnerAgentContext().client(owner).machineName("lane-" + n).region(REGION)
            .nvidiaSmi(NvidiaSmi.recorded("h200")).reservePrice(s.askPrice()).price(s.askPrice())
            .heartbeatInterval(Duration.ofMillis(300)).stopMargin(Duration.ofSeconds(2)).threadName("gpux-demo-lane-" + n)
            .workloads(new AgentWorkloads(owner, supervisor, 100, this::log))
            .listener(new OwnerAgentListener()
            {
                @Override
                public void onLeaseStarted(final long leaseId, final int gpus, final long price)
                {
                    leaseMachine.put(leaseId, self[0]);
                }

                @Override
                public void onLeaseEnded(final long leaseId, final EndReason reason)
                {
                    if (reclaimedLeases.remove(leaseId))
                    {
                        self[0].resume();
                    }
                }

                @Override
                public void onError(final String what, final String problem)
                {
                    log("lane-" + n + ": " + what + ": " + problem);
                }
            }));
        return self[0];
    }

    /** Starts the agents and each renter's first job. */
    public void start()
    {
        for (final OwnerAgent a : agents)
        {
            a.start();
        }
        for (final Runner r : runners)
        {
            thread.execute(r::next);
        }
        thread.scheduleWithFixedDelay(this::watch, 50, 50, TimeUnit.MILLISECONDS);
    }

    /**
     * The market has closed: no job starts any more; waits up to {@code wait} for the running ones to finish,
     * cancels those still running (releasing their leases), then stops the agents gracefully.
     */
    public void finish(final Duration wait) throws InterruptedException
    {
        closing = true;
        for (final Runner r : runners)
        {
            r.stopStarting();
        }
        final long deadline = System.nanoTime() + wait.toNanos();
        for (final Runner r : runners)
        {
            r.awaitCurrent(deadline);
        }
        for (final Runner r : runners)
        {
            r.cancel();
        }
        for (final Runner r : runners)
        {
            r.awaitCurrent(System.nanoTime() + TimeUnit.SECONDS.toNanos(15));
        }
        thread.shutdownNow();
        final WorkloadFigures f = figures();
        if (f.readinessSamples == 0 || f.outcomes().containsKey("GAVE_UP"))
        {
            final List<String> last = lastLog();
            err.println("gpux demo: the workload lane's jobs " + (f.readinessSamples == 0 ? "never ran" : "gave up")
                + (last.isEmpty() ? "; the agents started no workload and reported no problem"
                : "; the agents' last messages:"));
            for (final String line : last.subList(Math.max(0, last.size() - 10), last.size()))
            {
                err.println("  " + line);
            }
        }
        for (final OwnerAgent a : agents)
        {
            a.stop();
        }
        for (final OwnerAgent a : agents)
        {
            if (!a.awaitStopped(Duration.ofSeconds(15)))
            {
                err.println("gpux demo: a workload lane agent did not stop in 15 s");
            }
            a.close();
        }
    }

    /** What the jobs did. */
    public WorkloadFigures figures()
    {
        final List<WorkloadFigures.JobRun> jobs = new ArrayList<>();
        for (final Runner r : runners)
        {
            jobs.addAll(r.done);
        }
        return new WorkloadFigures(jobs, s.stepMs());
    }

    /** The lane's accounts' money, from their portfolios. */
    public Money money(final Duration timeout) throws InterruptedException
    {
        long balances = 0;
        boolean answered = true;
        boolean nonNegative = true;
        boolean nothingOpen = true;
        final List<GpuxClient> all = new ArrayList<>(owners);
        all.addAll(renters);
        final List<Account> names = accounts(s.jobs());
        final Map<String, Portfolio> portfolios = new java.util.TreeMap<>();
        for (int i = 0; i < all.size(); i++)
        {
            final GpuxClient c = all.get(i);
            try
            {
                final Portfolio p = c.portfolio(timeout);
                portfolios.put(names.get(i).name(), p);
                balances += p.getBalance();
                nonNegative &= p.getBalance() >= 0 && p.getAvailable() >= 0;
                nothingOpen &= p.getLeasesCount() == 0 && p.getOrdersCount() == 0;
            }
            catch (final IOException | java.util.concurrent.TimeoutException | IllegalStateException ex)
            {
                // no answer, or the client is not connected
                answered = false;
            }
        }
        long feeSum = 0;
        for (final long f : fees.values())
        {
            feeSum += f;
        }
        return new Money(RENTER_DEPOSIT * renters.size(), balances, feeSum, answered, nonNegative, nothingOpen, portfolios);
    }

    /** Stops what {@link #finish} has not: the agents at once (their workloads end with their leases). */
    @Override
    public void close()
    {
        thread.shutdownNow();
        for (final OwnerAgent a : agents)
        {
            a.close();
        }
    }

    /** The agents' and workloads' last messages, for a run that went wrong. */
    public List<String> lastLog()
    {
        return List.copyOf(log);
    }

    private void log(final String message)
    {
        log.addLast(message);
        while (log.size() > LOG_KEPT)
        {
            log.pollFirst();
        }
    }

    /**
     * The lane's thread: reclaims the machine of each job whose first attempt has counted far enough, also while
     * the jobs finish after the market has closed (a job that started late is interrupted all the same).
     */
    private void watch()
    {
        for (final Runner r : runners)
        {
            try
            {
                r.maybeReclaim();
            }
            catch (final IOException | RuntimeException ex)
            {
                log("watching " + r.name() + ": " + ex);
            }
        }
    }

    /** One renter's jobs, one after another. */
    private final class Runner
    {
        private final GpuxClient client;
        private final int n;
        private final boolean checkpointed;
        private final List<WorkloadFigures.JobRun> done = new CopyOnWriteArrayList<>();
        private final JobChain<Job> jobs = new JobChain<>();
        private int count;

        Runner(final GpuxClient client, final int n, final boolean checkpointed)
        {
            this.client = client;
            this.n = n;
            this.checkpointed = checkpointed;
        }

        String name()
        {
            final Job job = jobs.current();
            return job == null ? "lane renter " + n : job.name;
        }

        /** The lane's thread: the next job, unless the lane is finishing. */
        void next()
        {
            try
            {
                jobs.start(() -> new Job(this, (checkpointed ? "ckpt-" : "nockpt-") + n + "-" + (++count)));
            }
            catch (final Exception ex)
            {
                err.println("gpux demo: the workload lane cannot start a job: " + ex.getMessage());
            }
        }

        /** No job starts any more; a job being started is the current one when this returns. */
        void stopStarting()
        {
            jobs.close();
        }

        void ended(final Job job, final ManagedJob.Report report)
        {
            try
            {
                done.add(job.run(report));
            }
            catch (final IOException ex)
            {
                log(job.name + ": cannot read its ledger: " + ex.getMessage());
            }
            if (!closing)
            {
                try
                {
                    thread.execute(this::next);
                }
                catch (final java.util.concurrent.RejectedExecutionException closed)
                {
                    // the lane is finishing
                }
            }
        }

        void maybeReclaim() throws IOException
        {
            final Job job = jobs.current();
            if (job != null)
            {
                job.maybeReclaim();
            }
        }

        void awaitCurrent(final long deadlineNs) throws InterruptedException
        {
            final Job job = jobs.current();
            if (job == null)
            {
                return;
            }
            try
            {
                job.managed.result().get(Math.max(0, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
            catch (final java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException ex)
            {
                // still running: cancelled next
            }
        }

        void cancel()
        {
            final Job job = jobs.current();
            if (job != null && !job.managed.result().isDone())
            {
                job.managed.cancel();
            }
        }
    }

    /** One managed job and what its renter saw of its attempts. */
    private final class Job implements ManagedJob.Listener
    {
        private final String name;
        private final Path ledger;
        private final Path checkpoint;
        private final ManagedJob managed;
        private final Map<Long, Long> leaseStartNs = new ConcurrentHashMap<>();
        private final Map<Integer, Long> readiness = new ConcurrentHashMap<>();
        private final Map<Integer, Long> attemptLease = new ConcurrentHashMap<>();
        private final AtomicLong reclaimed = new AtomicLong();
        private volatile int attempt;

        Job(final Runner runner, final String name) throws IOException, JobFileException
        {
            this.name = name;
            this.ledger = s.dir().resolve("ledgers").resolve(name);
            this.checkpoint = runner.checkpointed ? s.dir().resolve("checkpoints").resolve(name) : null;
            if (checkpoint != null)
            {
                Files.createDirectories(checkpoint);
            }
            final String command = CountingJob.command(s.steps(), s.stepMs(), s.checkpointEvery());
            final JobFile file = new JobFileParser().parse(name + ".yaml", "name: " + name + "\n"
                + "resources: {market: " + MARKET + ", gpus: 1, maxPrice: " + io.gpux.common.Money.formatPrice(s.bidPrice()) + ", region: "
                + REGION + "}\n"
                + "run: {runtime: process, command: '" + command.replace("'", "''") + "'}\n"
                + "env: {LEDGER: '" + ledger + "'}\n"
                + (checkpoint != null ? "checkpoint: {dir: '" + checkpoint + "'}\n" : "")
                + "maxFailures: 3\n", s.dir());
            this.managed = new ManagedJob(runner.client, file, this);
            managed.result().whenComplete((report, failure) ->
            {
                if (report != null)
                {
                    runner.ended(this, report);
                }
            });
            managed.start();
        }

        @Override
        public void onLeaseStarted(final long leaseId, final long machineId, final int gpus, final long price)
        {
            leaseStartNs.put(leaseId, System.nanoTime());
        }

        @Override
        public void onLaunched(final int number, final long leaseId)
        {
            attemptLease.put(number, leaseId);
            attempt = number;
        }

        @Override
        public void onStatus(final int number, final long leaseId, final WorkloadStatus status)
        {
            final Long started = leaseStartNs.get(leaseId);
            if (status.getState() == WorkloadState.WORKLOAD_RUNNING && started != null)
            {
                readiness.putIfAbsent(number, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
            }
        }

        /** The owner of the job's machine reclaims it once the first attempt has counted far enough. */
        void maybeReclaim() throws IOException
        {
            final int number = attempt;
            final Long lease = attemptLease.get(number);
            if (number != 1 || lease == null || reclaimed.get() != 0)
            {
                return;
            }
            final CountingJob.Attempt a = CountingJob.read(ledger).get(number);
            final OwnerAgent machine = leaseMachine.get(lease);
            if (a != null && machine != null && a.reached() - a.from() >= s.reclaimAfterSteps()
                && reclaimed.compareAndSet(0, lease))
            {
                reclaimedLeases.add(lease);
                machine.reclaim();
            }
        }

        WorkloadFigures.JobRun run(final ManagedJob.Report report) throws IOException
        {
            final Map<Integer, CountingJob.Attempt> counted = CountingJob.read(ledger);
            final List<WorkloadFigures.AttemptRun> attempts = new ArrayList<>();
            int last = 0;
            for (final ManagedJob.Attempt a : report.attempts())
            {
                final CountingJob.Attempt c = counted.get(a.number());
                attempts.add(new WorkloadFigures.AttemptRun(a.number(), readiness.getOrDefault(a.number(), -1L),
                    c == null ? -1 : c.from(), c == null ? 0 : c.reached(), a.result().startsWith("interrupted"), a.result()));
                last = c == null ? last : c.reached();
            }
            int finalCount = last;
            if (checkpoint != null && Files.exists(checkpoint.resolve("count")))
            {
                finalCount = Integer.parseInt(Files.readString(checkpoint.resolve("count")).trim());
            }
            return new WorkloadFigures.JobRun(name, checkpoint != null, s.steps(), report.outcome().name(), finalCount, attempts);
        }
    }
}
