package io.gpux.sim.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * A reference, not a bound: the surplus a central planner <em>without foresight</em> gets from the same
 * demand and fleet as {@link MarketBound}. It learns each job (its window, work, GPUs, gang, value) when
 * it arrives and each machine's cost; every {@link #STEP_MS} it serves the jobs present, most valuable
 * first, on the cheapest machines whose cost is below the job's value (a gang on one machine with room).
 * It never waits for a job it has not seen, so what it gets below the bound is what foresight is worth;
 * what the market gets below it is what the market's way of allocating costs (prices instead of known
 * values, grace periods, checkpoints, owners' asks instead of their costs).
 *
 * <p>Two planners:
 * <ul>
 *   <li>{@link #replanning()}: it plans every step afresh, so work moves between machines at no cost
 *   and a more valuable job takes GPUs from a less valuable one at once;</li>
 *   <li>{@link #keeping(double)}: work stays on the GPUs it started on until it is done or its machine
 *   goes offline, and a job takes GPUs from a running one only when it is worth more than
 *   {@code 1 + increment} times as much (the preemption increment), without a grace period.</li>
 * </ul>
 * A machine is online for a whole step if it is online at the step's start; a job works from its
 * arrival within a step.
 */
public final class OnlinePlanner
{
    public static final long STEP_MS = 5 * 60_000L;
    private static final double HOUR = 3_600_000.0;

    private record Job(long fromMs, long untilMs, double workGpuMs, int gpus, boolean gang, double value)
    {
    }

    /** A machine: its GPUs, cost per GPU-hour and online intervals (start, end pairs). */
    private static final class Machine
    {
        final int gpus;
        final double cost;
        long[] online = new long[0];

        Machine(final int gpus, final double cost)
        {
            this.gpus = gpus;
            this.cost = cost;
        }

        boolean onlineAt(final long t)
        {
            for (int i = 0; i < online.length; i += 2)
            {
                if (online[i] <= t && t < online[i + 1])
                {
                    return true;
                }
            }
            return false;
        }
    }

    private final long openMs;
    private final long closeMs;
    private final List<Job> jobs = new ArrayList<>();
    private final List<Machine> machineList = new ArrayList<>();

    public OnlinePlanner(final long openMs, final long closeMs)
    {
        this.openMs = openMs;
        this.closeMs = closeMs;
    }

    /** A machine of {@code gpus} GPUs costing {@code cost} per GPU-hour; returns its number for {@link #online}. */
    public int machine(final int gpus, final double cost)
    {
        machineList.add(new Machine(gpus, cost));
        return machineList.size() - 1;
    }

    /** Machine {@code machine} is online over [fromMs, toMs). */
    public void online(final int machine, final long fromMs, final long toMs)
    {
        final Machine m = machineList.get(machine);
        m.online = Arrays.copyOf(m.online, m.online.length + 2);
        m.online[m.online.length - 2] = fromMs;
        m.online[m.online.length - 1] = toMs;
    }

    /** As {@link MarketBound#job}: {@code workGpuHours} of work within [fromMs, untilMs), on at most {@code gpus} GPUs at once. */
    public void job(final long fromMs, final long untilMs, final double workGpuHours, final int gpus, final boolean gang,
        final double value)
    {
        if (value > 0 && workGpuHours > 0 && untilMs > fromMs)
        {
            jobs.add(new Job(Math.max(openMs, fromMs), Math.min(closeMs, untilMs), workGpuHours * HOUR, gpus, gang, value));
        }
    }

    /** The surplus of the planner that plans every step afresh. */
    public double replanning()
    {
        return new Run(-1).surplus();
    }

    /** The surplus of the planner that keeps work where it started and takes GPUs only for {@code 1 + increment} times the value. */
    public double keeping(final double increment)
    {
        return new Run(increment).surplus();
    }

    /** One planner's pass over the window. */
    private final class Run
    {
        /** Negative: re-plan every step; otherwise keep work in place, taking GPUs for {@code 1 + increment} times the value. */
        private final double increment;
        private final int machines = machineList.size();
        private final Machine[] machine = machineList.toArray(new Machine[0]);
        /** Machines by cost, ascending. */
        private final int[] byCost;
        private final int[] free = new int[machines];
        private final boolean[] up = new boolean[machines];
        /** Per machine, GPUs that jobs worth less than the one being served would give up (scratch). */
        private final int[] takeable = new int[machines];
        private final Job[] byArrival;
        private final double[] left;
        /** Per job, the machines it holds GPUs on and how many (parallel, {@code holding[j]} long). */
        private final int[][] holdMachine;
        private final int[][] holdGpus;
        private final int[] holding;
        private final int[] held;

        Run(final double increment)
        {
            this.increment = increment;
            final Integer[] order = new Integer[machines];
            for (int i = 0; i < machines; i++)
            {
                order[i] = i;
            }
            // by cost; machines alike in cost, size and time online are interchangeable, so the order is the machines' own
            Arrays.sort(order, Comparator.<Integer>comparingDouble(i -> machine[i].cost)
                .thenComparingInt(i -> machine[i].gpus)
                .thenComparing((x, y) -> Arrays.compare(machine[x].online, machine[y].online)));
            byCost = Arrays.stream(order).mapToInt(Integer::intValue).toArray();
            byArrival = jobs.toArray(new Job[0]);
            // by arrival; jobs alike in every field are interchangeable, so the order is the jobs' own, not the caller's
            Arrays.sort(byArrival, Comparator.comparingLong(Job::fromMs).thenComparingDouble(Job::value)
                .thenComparingLong(Job::untilMs).thenComparingDouble(Job::workGpuMs).thenComparingInt(Job::gpus)
                .thenComparing(Job::gang));
            left = new double[byArrival.length];
            holdMachine = new int[byArrival.length][];
            holdGpus = new int[byArrival.length][];
            holding = new int[byArrival.length];
            held = new int[byArrival.length];
            for (int j = 0; j < byArrival.length; j++)
            {
                left[j] = byArrival[j].workGpuMs;
                holdMachine[j] = new int[byArrival[j].gpus];
                holdGpus[j] = new int[byArrival[j].gpus];
            }
        }

        double surplus()
        {
            double surplus = 0;
            final List<Integer> present = new ArrayList<>();
            int next = 0;
            for (long t = openMs; t < closeMs; t += STEP_MS)
            {
                final long stepEnd = Math.min(closeMs, t + STEP_MS);
                while (next < byArrival.length && byArrival[next].fromMs < stepEnd)
                {
                    present.add(next++);
                }
                final long now = t;
                present.removeIf(j -> left[j] <= 0 || byArrival[j].untilMs <= now);
                for (int m = 0; m < machines; m++)
                {
                    up[m] = machine[m].onlineAt(t);
                    free[m] = up[m] ? machine[m].gpus : 0;
                }
                present.sort(this::mostValuableFirst);
                for (final int j : present)
                {
                    keepOrDrop(j);
                }
                for (final int j : present)
                {
                    serve(j, t, stepEnd, present);
                }
                for (final int j : present)
                {
                    final Job job = byArrival[j];
                    final long span = Math.min(stepEnd, job.untilMs) - Math.max(t, job.fromMs);
                    for (int h = 0; h < holding[j] && left[j] > 0; h++)
                    {
                        final double work = Math.min(left[j], (double)holdGpus[j][h] * span);
                        left[j] -= work;
                        surplus += (job.value - machine[holdMachine[j][h]].cost) * work / HOUR;
                    }
                    if (left[j] <= 0 || increment < 0)
                    {
                        release(j);
                    }
                }
            }
            return surplus;
        }

        /** Most valuable first, then by arrival. */
        private int mostValuableFirst(final int a, final int b)
        {
            return byArrival[a].value != byArrival[b].value ? Double.compare(byArrival[b].value, byArrival[a].value)
                : Integer.compare(a, b);
        }

        /** Keeps what a job holds on machines still online (a gang that lost its machine loses everything). */
        private void keepOrDrop(final int j)
        {
            int kept = 0;
            for (int h = 0; h < holding[j]; h++)
            {
                if (up[holdMachine[j][h]])
                {
                    holdMachine[j][kept] = holdMachine[j][h];
                    holdGpus[j][kept++] = holdGpus[j][h];
                }
                else
                {
                    held[j] -= holdGpus[j][h];
                }
            }
            holding[j] = kept;
            if (byArrival[j].gang && held[j] < byArrival[j].gpus)
            {
                release(j);
            }
            for (int h = 0; h < holding[j]; h++)
            {
                free[holdMachine[j][h]] -= holdGpus[j][h];
            }
        }

        private void release(final int j)
        {
            holding[j] = 0;
            held[j] = 0;
        }

        private void take(final int j, final int m, final int n)
        {
            free[m] -= n;
            held[j] += n;
            for (int h = 0; h < holding[j]; h++)
            {
                if (holdMachine[j][h] == m)
                {
                    holdGpus[j][h] += n;
                    return;
                }
            }
            holdMachine[j][holding[j]] = m;
            holdGpus[j][holding[j]++] = n;
        }

        /** Takes up to {@code n} of victim {@code v}'s GPUs on machine {@code m} (a gang: all of them); returns how many came free. */
        private int giveUp(final int v, final int m, final int n)
        {
            for (int h = 0; h < holding[v]; h++)
            {
                if (holdMachine[v][h] == m)
                {
                    if (byArrival[v].gang)
                    {
                        final int all = held[v];
                        release(v);
                        free[m] += all;
                        return all;
                    }
                    final int k = Math.min(n, holdGpus[v][h]);
                    holdGpus[v][h] -= k;
                    held[v] -= k;
                    free[m] += k;
                    if (holdGpus[v][h] == 0)
                    {
                        holdMachine[v][h] = holdMachine[v][holding[v] - 1];
                        holdGpus[v][h] = holdGpus[v][--holding[v]];
                    }
                    return k;
                }
            }
            return 0;
        }

        /** Gives job {@code j} the GPUs it can use this step: free ones first, then (keeping) those of jobs worth less. */
        private void serve(final int j, final long t, final long stepEnd, final List<Integer> present)
        {
            final Job job = byArrival[j];
            final long span = Math.min(stepEnd, job.untilMs) - Math.max(t, job.fromMs);
            if (span <= 0)
            {
                return;
            }
            final int useful = (int)Math.min(job.gpus, Math.ceil(left[j] / span));
            int want = (job.gang ? job.gpus : useful) - held[j];
            if (want <= 0)
            {
                return;
            }
            for (final int m : byCost)
            {
                if (machine[m].cost >= job.value || want <= 0)
                {
                    break;
                }
                if (job.gang ? free[m] >= job.gpus : free[m] > 0)
                {
                    final int n = Math.min(want, free[m]);
                    take(j, m, n);
                    want -= n;
                }
            }
            if (want <= 0 || increment < 0)
            {
                return;
            }
            // keeping: GPUs of running jobs worth less than value / (1 + increment), the least valuable first
            final double below = job.value / (1 + increment);
            Arrays.fill(takeable, 0);
            boolean any = false;
            for (int i = present.size() - 1; i >= 0 && byArrival[present.get(i)].value < below; i--)
            {
                final int v = present.get(i);
                for (int h = 0; h < holding[v]; h++)
                {
                    takeable[holdMachine[v][h]] += holdGpus[v][h];
                    any = true;
                }
            }
            if (!any)
            {
                return;
            }
            for (final int m : byCost)
            {
                if (machine[m].cost >= job.value || want <= 0)
                {
                    break;
                }
                if (takeable[m] == 0 || job.gang && free[m] + takeable[m] < job.gpus)
                {
                    continue;
                }
                final int need = job.gang ? job.gpus - free[m] : Math.min(want, takeable[m]);
                int got = 0;
                for (int i = present.size() - 1; i >= 0 && got < need && byArrival[present.get(i)].value < below; i--)
                {
                    got += giveUp(present.get(i), m, need - got);
                }
                takeable[m] = 0;
                final int n = Math.min(want, free[m]);
                if (n > 0 && (!job.gang || n >= job.gpus))
                {
                    take(j, m, n);
                    want -= n;
                }
            }
        }
    }
}
