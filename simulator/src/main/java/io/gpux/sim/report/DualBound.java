package io.gpux.sim.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;

/**
 * An upper bound on the surplus one market could have produced, by Lagrangian duality over hour slots.
 * The program it bounds is {@link SurplusBound}'s with hours as slots, every job and every machine on its
 * own (no pools, no tiers) and every gang size apart: each job may do its work at will inside its window
 * on at most its GPUs at once (a gang job on machines with room for all of them), and a machine's GPUs
 * work at most the time it is online in each hour. Only the machines' capacity is relaxed: each size of
 * machine gets a price per GPU-hour in every hour, and for <em>any</em> prices, what every job would
 * gain buying its window's cheapest GPU-hours below its value plus what every machine would gain selling
 * its online GPU-hours priced above its cost is at least the surplus of any allocation the program
 * allows (weak duality: a feasible allocation uses no more GPU-hours than the machines have, so pricing
 * them takes nothing from it). Subgradient steps (Polyak's, toward a target a little below the best
 * sum so far) then move the prices toward the smallest such sum, and the smallest sum seen is the
 * bound. How close the steps come to the minimum, the program's optimum, changes how tight the bound is,
 * never whether it is valid.
 *
 * <p>The same program over a week of hour slots has about 800,000 pool variables, beyond what a simplex
 * solves in minutes on a small machine; the dual needs no solver, and its steps cost what the jobs'
 * windows hold.
 */
public final class DualBound
{
    public static final long HOUR_MS = 3_600_000L;
    /** Subgradient steps {@link #solve()} takes. */
    public static final int STEPS = 2000;
    /** Steps without a new smallest sum after which the target's gap to it is halved. */
    private static final int PATIENCE = 30;

    /** One job: its window, work, GPUs at once, whether they must share a machine, and its value per GPU-hour. */
    private record Job(long fromMs, long untilMs, double workGpuHours, int gpus, boolean gang, double value)
    {
    }

    private final long openMs;
    private final long closeMs;
    private final int hours;
    /** Machines by (GPUs, cost): GPU-hours online per hour. */
    private final TreeMap<Integer, TreeMap<Double, double[]>> machines = new TreeMap<>();
    private final List<Job> jobs = new ArrayList<>();

    public DualBound(final long openMs, final long closeMs)
    {
        this.openMs = openMs;
        this.closeMs = closeMs;
        this.hours = (int)Math.max(1, (closeMs - openMs + HOUR_MS - 1) / HOUR_MS);
    }

    /** {@code gpus} GPUs of a machine of that many GPUs, costing {@code cost} per GPU-hour, online over [fromMs, toMs). */
    public void online(final long fromMs, final long toMs, final int gpus, final double cost)
    {
        final double[] capacity = machines.computeIfAbsent(gpus, k -> new TreeMap<>()).computeIfAbsent(cost, k -> new double[hours]);
        for (int h = 0; h < hours; h++)
        {
            final long inside = Math.min(toMs, hourEnd(h)) - Math.max(fromMs, hourStart(h));
            if (inside > 0)
            {
                capacity[h] += gpus * inside / (double)HOUR_MS;
            }
        }
    }

    /**
     * A job that may spread {@code workGpuHours} of work over its window [{@code fromMs}, {@code untilMs}) at
     * will, on at most {@code gpus} GPUs at once, all on one machine of at least that many GPUs when
     * {@code gang}.
     */
    public void job(final long fromMs, final long untilMs, final double workGpuHours, final int gpus, final boolean gang,
        final double value)
    {
        if (value > 0 && workGpuHours > 0 && untilMs > fromMs)
        {
            jobs.add(new Job(Math.max(openMs, fromMs), Math.min(closeMs, untilMs), workGpuHours, gpus, gang, value));
        }
    }

    private long hourStart(final int h)
    {
        return openMs + h * HOUR_MS;
    }

    private long hourEnd(final int h)
    {
        return Math.min(closeMs, openMs + (h + 1) * HOUR_MS);
    }

    /** The bound, in currency: the smallest dual value over the steps taken. */
    public double solve()
    {
        final int classes = machines.size();
        if (classes == 0 || jobs.isEmpty())
        {
            return 0;
        }
        final int[] sizes = machines.keySet().stream().mapToInt(Integer::intValue).toArray();
        // per class: costs ascending and each cost's capacity per hour
        final double[][] costs = new double[classes][];
        final double[][][] capacity = new double[classes][][];
        int k = 0;
        double costSum = 0;
        int costCount = 0;
        for (final TreeMap<Double, double[]> byCost : machines.values())
        {
            costs[k] = byCost.keySet().stream().mapToDouble(Double::doubleValue).toArray();
            capacity[k] = byCost.values().toArray(new double[0][]);
            for (final double c : costs[k])
            {
                costSum += c;
                costCount++;
            }
            k++;
        }
        // per job: the smallest size of machine it may use (a gang bigger than every machine: none, never served)
        final int[] smallest = new int[jobs.size()];
        for (int i = 0; i < smallest.length; i++)
        {
            final Job j = jobs.get(i);
            int c = 0;
            while (c < classes && sizes[c] < (j.gang ? j.gpus : 1))
            {
                c++;
            }
            smallest[i] = c;
        }
        final boolean[][] present = new boolean[classes][hours];
        for (k = 0; k < classes; k++)
        {
            for (final double[] cap : capacity[k])
            {
                for (int h = 0; h < hours; h++)
                {
                    present[k][h] |= cap[h] > 0;
                }
            }
        }
        final double[][] price = new double[classes][hours];
        for (final double[] row : price)
        {
            Arrays.fill(row, 1.2 * costSum / costCount);
        }
        final double[][] gradient = new double[classes][hours];
        final Pricing pricing = new Pricing(classes, hours);
        final int[] order = new int[hours];
        double best = Double.MAX_VALUE;
        double gap = 0.05;
        int sinceBest = 0;
        for (int step = 0; step < STEPS; step++)
        {
            for (final double[] row : gradient)
            {
                Arrays.fill(row, 0);
            }
            pricing.update(price, present);
            double dual = 0;
            // the machines' side: every online GPU-hour priced above its cost sells
            for (k = 0; k < classes; k++)
            {
                for (int i = 0; i < costs[k].length; i++)
                {
                    final double c = costs[k][i];
                    final double[] cap = capacity[k][i];
                    for (int h = 0; h < hours; h++)
                    {
                        if (cap[h] > 0 && price[k][h] > c)
                        {
                            dual += cap[h] * (price[k][h] - c);
                            gradient[k][h] += cap[h];
                        }
                    }
                }
            }
            // the jobs' side: each buys its best schedule at these prices
            for (int i = 0; i < smallest.length; i++)
            {
                if (smallest[i] < classes)
                {
                    dual += bestSpread(jobs.get(i), smallest[i], pricing, gradient, order);
                }
            }
            if (dual < best - 1e-9)
            {
                best = dual;
                sinceBest = 0;
            }
            else if (++sinceBest >= PATIENCE)
            {
                gap /= 2;
                sinceBest = 0;
            }
            double norm = 0;
            for (k = 0; k < classes; k++)
            {
                for (int h = 0; h < hours; h++)
                {
                    if (present[k][h])
                    {
                        norm += gradient[k][h] * gradient[k][h];
                    }
                }
            }
            if (norm == 0)
            {
                break;
            }
            // Polyak's step toward a target a little below the best so far; the gradient is supply minus demand
            final double stepSize = (dual - best * (1 - gap)) / norm;
            for (k = 0; k < classes; k++)
            {
                for (int h = 0; h < hours; h++)
                {
                    if (present[k][h])
                    {
                        price[k][h] = Math.max(0, price[k][h] - stepSize * gradient[k][h]);
                    }
                }
            }
        }
        return Math.max(0, best);
    }

    /** Per smallest class and hour: the cheapest class at or above it with machines online, and its price. */
    private static final class Pricing
    {
        final int classes;
        final int hours;
        final double[][] cheapest;
        final int[][] cheapestClass;

        Pricing(final int classes, final int hours)
        {
            this.classes = classes;
            this.hours = hours;
            this.cheapest = new double[classes][hours];
            this.cheapestClass = new int[classes][hours];
        }

        void update(final double[][] price, final boolean[][] present)
        {
            for (int h = 0; h < hours; h++)
            {
                double min = Double.POSITIVE_INFINITY;
                int arg = -1;
                for (int k = classes - 1; k >= 0; k--)
                {
                    if (present[k][h] && price[k][h] <= min)
                    {
                        min = price[k][h];
                        arg = k;
                    }
                    cheapest[k][h] = min;
                    cheapestClass[k][h] = arg;
                }
            }
        }
    }

    /** A spreading job: its window's cheapest GPU-hours below its value, up to its work. */
    private double bestSpread(final Job j, final int sizeClass, final Pricing pricing, final double[][] gradient, final int[] order)
    {
        final int first = (int)((j.fromMs - openMs) / HOUR_MS);
        final int last = (int)((j.untilMs - 1 - openMs) / HOUR_MS);
        final double[] price = pricing.cheapest[sizeClass];
        int m = 0;
        for (int h = first; h <= last; h++)
        {
            if (price[h] < j.value)
            {
                // insertion by price (then hour): windows are tens of hours
                int i = m++;
                while (i > 0 && price[order[i - 1]] > price[h])
                {
                    order[i] = order[i - 1];
                    i--;
                }
                order[i] = h;
            }
        }
        double left = j.workGpuHours;
        double gain = 0;
        for (int i = 0; i < m && left > 0; i++)
        {
            final int h = order[i];
            final long inside = Math.min(j.untilMs, hourEnd(h)) - Math.max(j.fromMs, hourStart(h));
            final double amount = Math.min(left, j.gpus * inside / (double)HOUR_MS);
            if (amount <= 0)
            {
                continue;
            }
            left -= amount;
            gain += (j.value - price[h]) * amount;
            gradient[pricing.cheapestClass[sizeClass][h]][h] -= amount;
        }
        return gain;
    }

}
