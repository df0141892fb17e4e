package io.gpux.sim.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.ojalgo.optimisation.Expression;
import org.ojalgo.optimisation.ExpressionsBasedModel;
import org.ojalgo.optimisation.Optimisation;
import org.ojalgo.optimisation.Variable;

/**
 * An upper bound on the surplus one market could have produced: a linear program over time slots,
 * solved with ojAlgo's simplex. Every constraint kept is implied by the real problem, so its optimum
 * is at least the surplus of any real allocation (simulator/README.md argues it).
 *
 * <p>Demand: jobs, each with its market, window (arrival to the time after which the market cannot
 * serve it), total work (GPU-hours), value per GPU-hour and gang size (the most GPUs it runs on at
 * once). Jobs are pooled by value tier (the value rounded up to a power of the tier ratio) and by the
 * slot their window ends in; a pool's work arrives with its jobs (at the start of their arrival's
 * slot), carries over from slot to slot up to the end of the pool's last slot (windows are rounded
 * outward to slot edges), and in a slot at most the GPUs of the pool's jobs that have arrived can work
 * on it, for the slot's length. Supply: per slot, the GPU-hours of online machines at
 * their owners' costs (rounded down to a power of the tier ratio). Maximize the value of the work done
 * minus the cost of the GPU-hours that did it.
 *
 * <p>{@link #forWindow} keeps the program small enough to solve in seconds: slots of an hour for a
 * window of up to {@link #MAX_SLOTS} hours, longer slots beyond (a week: 7-hour slots), tiers of
 * {@link #TIER}.
 */
public final class SurplusBound
{
    /** Value and cost tiers: powers of this. */
    public static final double TIER = 1.05;
    public static final long HOUR_MS = 3_600_000L;
    /** The most slots {@link #forWindow} makes. */
    public static final int MAX_SLOTS = 24;

    static
    {
        // ojAlgo prints a note about hardware profiles on first use unless told not to
        if (System.getProperty("shut.up.ojAlgo") == null)
        {
            System.setProperty("shut.up.ojAlgo", "true");
        }
    }

    private final long openMs;
    private final long slotMs;
    private final double tier;
    private final int slots;
    /** Per tier, per last slot of the window: per slot, GPU-hours of work arriving, GPUs arriving. */
    private final TreeMap<Integer, TreeMap<Integer, double[][]>> demand = new TreeMap<>();
    /** Per slot: cost tier to GPU-hours online. */
    private final List<TreeMap<Integer, Double>> supply = new ArrayList<>();

    /** The bound over [openMs, closeMs) with whole hours as slots, at most {@link #MAX_SLOTS} of them, and tiers of {@link #TIER}. */
    public static SurplusBound forWindow(final long openMs, final long closeMs)
    {
        final long hours = Math.max(1, (closeMs - openMs + HOUR_MS - 1) / HOUR_MS);
        return new SurplusBound(openMs, closeMs, (hours + MAX_SLOTS - 1) / MAX_SLOTS * HOUR_MS, TIER);
    }

    /**
     * @param slotMs the slots' length.
     * @param tier   values are rounded up, and costs down, to powers of this (greater than 1).
     */
    public SurplusBound(final long openMs, final long closeMs, final long slotMs, final double tier)
    {
        this.openMs = openMs;
        this.slotMs = slotMs;
        this.tier = tier;
        this.slots = (int)Math.max(1, (closeMs - openMs + slotMs - 1) / slotMs);
        for (int t = 0; t < slots; t++)
        {
            supply.add(new TreeMap<>());
        }
    }

    public int slots()
    {
        return slots;
    }

    public long slotMs()
    {
        return slotMs;
    }

    private int slotOf(final long t)
    {
        return (int)Math.max(0, Math.min(slots - 1, (t - openMs) / slotMs));
    }

    /** A job arriving at {@code arrivalMs} with {@code workGpuHours} of work, on at most {@code gpus} GPUs at once, until the window closes. */
    public void job(final long arrivalMs, final double workGpuHours, final int gpus, final double value)
    {
        job(arrivalMs, Long.MAX_VALUE, workGpuHours, gpus, value);
    }

    /**
     * A job that can only be served in its window [{@code arrivalMs}, {@code untilMs}), with
     * {@code workGpuHours} of work, on at most {@code gpus} GPUs at once. The window is rounded outward to
     * slot edges: it may be served from the start of its arrival's slot to the end of the slot holding
     * {@code untilMs}.
     */
    public void job(final long arrivalMs, final long untilMs, final double workGpuHours, final int gpus, final double value)
    {
        if (value <= 0 || workGpuHours <= 0)
        {
            return;
        }
        final int level = (int)Math.ceil(Math.log(value) / Math.log(tier) - 1e-9);
        final int last = untilMs == Long.MAX_VALUE ? slots - 1 : Math.max(slotOf(arrivalMs), slotOf(untilMs - 1));
        final double[][] d = demand.computeIfAbsent(level, k -> new TreeMap<>()).computeIfAbsent(last, k -> new double[2][slots]);
        final int s = slotOf(arrivalMs);
        d[0][s] += workGpuHours;
        d[1][s] += gpus;
    }

    /** {@code gpus} GPUs of a machine costing {@code cost} per GPU-hour online over [fromMs, toMs). */
    public void online(final long fromMs, final long toMs, final int gpus, final double cost)
    {
        final int level = (int)Math.floor(Math.log(Math.max(cost, 1e-6)) / Math.log(tier) + 1e-9);
        for (long t = Math.max(fromMs, openMs); t < toMs; )
        {
            final int s = slotOf(t);
            final long slotEnd = Math.min(toMs, openMs + (s + 1) * slotMs);
            if (slotEnd <= t)
            {
                break;
            }
            supply.get(s).merge(level, gpus * (slotEnd - t) / (double)HOUR_MS, Double::sum);
            t = slotEnd;
        }
    }

    private double price(final int level)
    {
        return Math.pow(tier, level);
    }

    /** The optimum: an upper bound on the market's surplus, in currency. */
    public double solve()
    {
        if (demand.isEmpty())
        {
            return 0;
        }
        final ExpressionsBasedModel model = new ExpressionsBasedModel();
        final List<List<Variable>> servedInSlot = new ArrayList<>();
        for (int t = 0; t < slots; t++)
        {
            servedInSlot.add(new ArrayList<>());
        }
        int n = 0;
        for (final Map.Entry<Integer, TreeMap<Integer, double[][]>> tierPools : demand.entrySet())
        {
            final double value = price(tierPools.getKey());
            for (final Map.Entry<Integer, double[][]> e : tierPools.getValue().entrySet())
            {
                // a pool: the jobs of one value tier whose windows end in the same slot; its work left after
                // that slot is never served
                final int last = e.getKey();
                final double[] work = e.getValue()[0];
                final double[] gpus = e.getValue()[1];
                Variable carried = null;
                double arrivedGpus = 0;
                boolean any = false;
                for (int t = 0; t <= last; t++)
                {
                    arrivedGpus += gpus[t];
                    any |= work[t] > 0;
                    if (!any)
                    {
                        continue;
                    }
                    // backlog: carried in + arriving = served + carried out
                    final Variable served = model.addVariable("s" + n++).lower(0).upper(arrivedGpus * slotMs / (double)HOUR_MS)
                        .weight(value);
                    final Variable out = model.addVariable("c" + n++).lower(0);
                    final Expression balance = model.addExpression("b" + n++).level(work[t]);
                    balance.set(served, 1).set(out, 1);
                    if (carried != null)
                    {
                        balance.set(carried, -1);
                    }
                    carried = out;
                    servedInSlot.get(t).add(served);
                }
            }
        }
        for (int t = 0; t < slots; t++)
        {
            if (servedInSlot.get(t).isEmpty())
            {
                continue;
            }
            final Expression capacity = model.addExpression("k" + t).upper(0);
            for (final Variable v : servedInSlot.get(t))
            {
                capacity.set(v, 1);
            }
            for (final Map.Entry<Integer, Double> s : supply.get(t).entrySet())
            {
                final Variable used = model.addVariable("u" + n++).lower(0).upper(s.getValue()).weight(-price(s.getKey()));
                capacity.set(used, -1);
            }
        }
        final Optimisation.Result result = model.maximise();
        if (!result.getState().isOptimal())
        {
            throw new IllegalStateException("the surplus bound's linear program did not solve: " + result.getState());
        }
        return Math.max(0, result.getValue());
    }
}
