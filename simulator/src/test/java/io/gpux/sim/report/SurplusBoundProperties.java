package io.gpux.sim.report;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.statistics.Statistics;

/**
 * The bound is never below the surplus of a real allocation: random small markets (machines of 1 to 8
 * GPUs online for part of 12 hours, jobs with windows, gang or not), served quarter-hour by quarter-hour
 * by a greedy market that keeps every rule the bound relaxes (a gang job on one machine with room for
 * all its GPUs, at most its GPUs at once, only inside its window, never more than its work), against
 * the bound over 3-hour slots with tiers of 5 %, where windows and arrivals fall inside slots, and against
 * the hour-slot dual bound ({@link DualBound}).
 */
class SurplusBoundProperties
{
    private static final long H = 3_600_000L;
    private static final long STEP = H / 4;
    private static final int STEPS = 48;
    private static final int[] SIZES = {1, 2, 4, 8};

    private record Machine(int gpus, double cost, int from, int to)
    {
    }

    private record Job(int gpus, boolean gang, double value, int arrival, int until, double work)
    {
    }

    @Property(tries = 200)
    void theBoundsAreNeverBelowTheSurplusOfAGreedyMarket(@ForAll final long seed)
    {
        final Random rng = new Random(seed);
        final List<Machine> machines = new ArrayList<>();
        for (int i = 1 + rng.nextInt(4); i > 0; i--)
        {
            final int from = rng.nextInt(STEPS);
            machines.add(new Machine(SIZES[rng.nextInt(SIZES.length)], 0.5 + 2.5 * rng.nextDouble(), from,
                from + 1 + rng.nextInt(STEPS - from)));
        }
        final List<Job> jobs = new ArrayList<>();
        for (int i = 1 + rng.nextInt(8); i > 0; i--)
        {
            final int gpus = SIZES[rng.nextInt(SIZES.length)];
            final int arrival = rng.nextInt(STEPS);
            jobs.add(new Job(gpus, gpus > 1 && rng.nextBoolean(), 0.5 + 4.5 * rng.nextDouble(), arrival,
                arrival + 1 + rng.nextInt(STEPS - arrival), 0.25 + 20 * rng.nextDouble()));
        }
        final double surplus = greedySurplus(machines, jobs);
        final SurplusBound bound = new SurplusBound(0, STEPS * STEP, 3 * H, 1.05);
        machines.forEach(m -> bound.online(m.from * STEP, m.to * STEP, m.gpus, m.cost));
        jobs.forEach(j -> bound.job(j.arrival * STEP, j.until * STEP, j.work, j.gpus, j.gang, j.value));
        final double b = bound.solve();
        Statistics.label("greedy market trades").collect(surplus > 0);
        assertTrue(b >= surplus - 1e-6, "bound " + b + " below the surplus of a real allocation " + surplus);
        final DualBound dual = new DualBound(0, STEPS * STEP);
        machines.forEach(m -> dual.online(m.from * STEP, m.to * STEP, m.gpus, m.cost));
        jobs.forEach(j -> dual.job(j.arrival * STEP, j.until * STEP, j.work, j.gpus, j.gang, j.value));
        final double d = dual.solve();
        assertTrue(d >= surplus - 1e-6, "dual bound " + d + " below the surplus of a real allocation " + surplus);
    }

    /** Each quarter-hour, jobs by value (highest first) take the cheapest free GPUs they may use. */
    private static double greedySurplus(final List<Machine> machines, final List<Job> jobs)
    {
        final double[] left = jobs.stream().mapToDouble(Job::work).toArray();
        final List<Integer> byValue = new ArrayList<>();
        for (int i = 0; i < jobs.size(); i++)
        {
            byValue.add(i);
        }
        byValue.sort(Comparator.comparingDouble((Integer i) -> -jobs.get(i).value));
        final List<Integer> byCost = new ArrayList<>();
        for (int i = 0; i < machines.size(); i++)
        {
            byCost.add(i);
        }
        byCost.sort(Comparator.comparingDouble((Integer i) -> machines.get(i).cost));
        double surplus = 0;
        for (int step = 0; step < STEPS; step++)
        {
            final int[] free = new int[machines.size()];
            for (int m = 0; m < machines.size(); m++)
            {
                final Machine machine = machines.get(m);
                free[m] = machine.from <= step && step < machine.to ? machine.gpus : 0;
            }
            for (final int i : byValue)
            {
                final Job j = jobs.get(i);
                if (step < j.arrival || step >= j.until || left[i] <= 0)
                {
                    continue;
                }
                int want = j.gpus;
                for (final int m : byCost)
                {
                    if (want == 0 || machines.get(m).cost >= j.value || (j.gang && free[m] < j.gpus))
                    {
                        continue;
                    }
                    final int take = Math.min(want, free[m]);
                    final double work = Math.min(left[i], take * 0.25);
                    if (take == 0 || work <= 0)
                    {
                        continue;
                    }
                    free[m] -= take;
                    want -= take;
                    left[i] -= work;
                    // the GPUs are leased for the whole quarter-hour, whatever the work they do
                    surplus += j.value * work - machines.get(m).cost * take * 0.25;
                }
            }
        }
        return surplus;
    }
}
