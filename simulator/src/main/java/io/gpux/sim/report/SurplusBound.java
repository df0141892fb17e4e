package io.gpux.sim.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
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
 * serve it), total work (GPU-hours), value per GPU-hour, GPUs (the most it runs on at once) and
 * whether it is a gang job (all its GPUs on one machine). Jobs are pooled by gang size (1 for a job
 * that may spread over machines), value tier and the slot their window ends in; a pool is worth the
 * highest value among its jobs. A pool's work arrives with its jobs (at the start of their arrival's
 * slot) and carries over from slot to slot up to the end of the pool's last slot; in a slot the pool
 * works at most the GPU-hours its jobs' GPUs have inside their windows there. Supply: per slot, per
 * machine size and cost tier, the GPU-hours of online machines, at the lowest cost among them. In a
 * slot, for every gang size g, the work of the pools of gang size g or more is at most the GPU-hours
 * used on machines of at least g GPUs. Maximize the value of the work done minus the cost of the
 * GPU-hours used.
 *
 * <p>{@link #forWindow} keeps the program small enough to solve in seconds to minutes: slots of an
 * hour for a window of up to {@link #MAX_SLOTS} hours, longer slots beyond, tiers of {@link #TIER}, and
 * in longer slots only the biggest gangs kept apart.
 */
public final class SurplusBound
{
    /** Value and cost tiers: powers of this. */
    public static final double TIER = 1.05;
    public static final long HOUR_MS = 3_600_000L;
    /** The most slots {@link #forWindow} makes. */
    public static final int MAX_SLOTS = 24;
    /**
     * The smallest gang kept apart by {@link #forWindow} when its slots are longer than an hour (a week's):
     * smaller gangs are pooled with the jobs that may spread over machines, which keeps a week's program
     * near the size it has without gangs (pools of every gang size make it twice as large and several
     * times slower to solve).
     */
    public static final int LONG_WINDOW_GANG = 16;

    static
    {
        // ojAlgo prints a note about hardware profiles on first use unless told not to
        if (System.getProperty("shut.up.ojAlgo") == null)
        {
            System.setProperty("shut.up.ojAlgo", "true");
        }
    }

    /** The jobs of one gang size, value tier and last slot. */
    private final class Pool
    {
        final int gang;
        final int last;
        double value;
        /** Per slot: GPU-hours of work arriving. */
        final double[] work = new double[slots];
        /** Per slot: GPU-hours the pool's jobs' GPUs have inside their windows. */
        final double[] room = new double[slots];

        Pool(final int gang, final int last)
        {
            this.gang = gang;
            this.last = last;
        }
    }

    /** The online machines of one size and cost tier in one slot. */
    private static final class Capacity
    {
        final int gpus;
        double gpuHours;
        double cost = Double.MAX_VALUE;

        Capacity(final int gpus)
        {
            this.gpus = gpus;
        }
    }

    private final long openMs;
    private final long closeMs;
    private final long slotMs;
    private final double tier;
    private final int slots;
    private final int smallestGang;
    /** Pools by (gang size, value tier, last slot). */
    private final Map<List<Integer>, Pool> demand = new TreeMap<>(SurplusBound::compareKeys);
    /** Per slot: capacity by (machine size, cost tier). */
    private final List<Map<List<Integer>, Capacity>> supply = new ArrayList<>();
    private int variables;
    private int constraints;

    /**
     * The bound over [openMs, closeMs) with whole hours as slots, at most {@link #MAX_SLOTS} of them, tiers of
     * {@link #TIER}, every gang size kept apart in hour slots and gangs from {@link #LONG_WINDOW_GANG} in longer ones.
     */
    public static SurplusBound forWindow(final long openMs, final long closeMs)
    {
        final long hours = Math.max(1, (closeMs - openMs + HOUR_MS - 1) / HOUR_MS);
        final long slotMs = (hours + MAX_SLOTS - 1) / MAX_SLOTS * HOUR_MS;
        return new SurplusBound(openMs, closeMs, slotMs, TIER, slotMs > HOUR_MS ? LONG_WINDOW_GANG : 2);
    }

    /** Every gang size kept apart: {@link #SurplusBound(long, long, long, double, int)} from 2. */
    public SurplusBound(final long openMs, final long closeMs, final long slotMs, final double tier)
    {
        this(openMs, closeMs, slotMs, tier, 2);
    }

    /**
     * @param slotMs       the slots' length.
     * @param tier         jobs are pooled, and machines grouped, by powers of this (greater than 1) of their
     *                     value and cost.
     * @param smallestGang gang jobs of fewer GPUs are pooled with the jobs that may spread over machines
     *                     (a relaxation: the bound stays valid, and the program smaller).
     */
    public SurplusBound(final long openMs, final long closeMs, final long slotMs, final double tier, final int smallestGang)
    {
        this.smallestGang = smallestGang;
        this.openMs = openMs;
        this.closeMs = closeMs;
        this.slotMs = slotMs;
        this.tier = tier;
        this.slots = (int)Math.max(1, (closeMs - openMs + slotMs - 1) / slotMs);
        for (int t = 0; t < slots; t++)
        {
            supply.add(new TreeMap<>(SurplusBound::compareKeys));
        }
    }

    private static int compareKeys(final List<Integer> a, final List<Integer> b)
    {
        for (int i = 0; i < a.size(); i++)
        {
            final int c = Integer.compare(a.get(i), b.get(i));
            if (c != 0)
            {
                return c;
            }
        }
        return 0;
    }

    public int slots()
    {
        return slots;
    }

    public long slotMs()
    {
        return slotMs;
    }

    /** The last {@link #solve()}'s linear program: its variables. */
    public int variables()
    {
        return variables;
    }

    /** The last {@link #solve()}'s linear program: its constraints (beyond the variables' bounds). */
    public int constraints()
    {
        return constraints;
    }

    private int slotOf(final long t)
    {
        return (int)Math.max(0, Math.min(slots - 1, (t - openMs) / slotMs));
    }

    private long slotStart(final int s)
    {
        return openMs + s * slotMs;
    }

    private long slotEnd(final int s)
    {
        return Math.min(closeMs, openMs + (s + 1) * slotMs);
    }

    /** A job arriving at {@code arrivalMs} with {@code workGpuHours} of work, on at most {@code gpus} GPUs at once, until the window closes. */
    public void job(final long arrivalMs, final double workGpuHours, final int gpus, final double value)
    {
        job(arrivalMs, closeMs, workGpuHours, gpus, false, value);
    }

    /** A job that may spread over machines: {@link #job(long, long, double, int, boolean, double)} without gang. */
    public void job(final long arrivalMs, final long untilMs, final double workGpuHours, final int gpus, final double value)
    {
        job(arrivalMs, untilMs, workGpuHours, gpus, false, value);
    }

    /**
     * A job that can only be served in its window [{@code arrivalMs}, {@code untilMs}), with
     * {@code workGpuHours} of work, on at most {@code gpus} GPUs at once, all of them on one machine
     * when {@code gang}. Its work counts as arrived from the start of its arrival's slot, and may be
     * served up to the end of the slot holding {@code untilMs}; in each slot its GPUs work at most the
     * time of its window inside the slot.
     */
    public void job(final long arrivalMs, final long untilMs, final double workGpuHours, final int gpus, final boolean gang,
        final double value)
    {
        if (value <= 0 || workGpuHours <= 0)
        {
            return;
        }
        final long from = Math.max(openMs, arrivalMs);
        final long until = Math.min(closeMs, untilMs);
        final int level = (int)Math.ceil(Math.log(value) / Math.log(tier) - 1e-9);
        final int first = slotOf(arrivalMs);
        final int last = Math.max(first, slotOf(until - 1));
        final int gangSize = gang && gpus >= smallestGang ? gpus : 1;
        final Pool p = demand.computeIfAbsent(List.of(gangSize, level, last), k -> new Pool(gangSize, last));
        p.value = Math.max(p.value, value);
        p.work[first] += workGpuHours;
        for (int t = first; t <= last; t++)
        {
            final long inside = Math.min(until, slotEnd(t)) - Math.max(from, slotStart(t));
            p.room[t] += gpus * Math.max(0, inside) / (double)HOUR_MS;
        }
    }

    /** {@code gpus} GPUs of a machine (of that many GPUs) costing {@code cost} per GPU-hour online over [fromMs, toMs). */
    public void online(final long fromMs, final long toMs, final int gpus, final double cost)
    {
        final int level = (int)Math.floor(Math.log(Math.max(cost, 1e-6)) / Math.log(tier) + 1e-9);
        final List<Integer> key = List.of(gpus, level);
        for (long t = Math.max(fromMs, openMs); t < Math.min(toMs, closeMs); )
        {
            final int s = slotOf(t);
            final long end = Math.min(toMs, slotEnd(s));
            if (end <= t)
            {
                break;
            }
            final Capacity c = supply.get(s).computeIfAbsent(key, k -> new Capacity(gpus));
            c.gpuHours += gpus * (end - t) / (double)HOUR_MS;
            c.cost = Math.min(c.cost, cost);
            t = end;
        }
    }

    /** The optimum: an upper bound on the market's surplus, in currency. */
    public double solve()
    {
        if (demand.isEmpty())
        {
            return 0;
        }
        final ExpressionsBasedModel model = new ExpressionsBasedModel();
        // per slot, per gang size: the served variables of that size's pools
        final List<TreeMap<Integer, List<Variable>>> servedInSlot = new ArrayList<>();
        for (int t = 0; t < slots; t++)
        {
            servedInSlot.add(new TreeMap<>());
        }
        int n = 0;
        for (final Pool p : demand.values())
        {
            // backlog: carried in + arriving = served + carried out; what is left after the last slot is never served
            Variable carried = null;
            boolean any = false;
            for (int t = 0; t <= p.last; t++)
            {
                any |= p.work[t] > 0;
                if (!any || (p.room[t] <= 0 && p.work[t] <= 0))
                {
                    continue;
                }
                final Variable served = model.addVariable("s" + n++).lower(0).upper(p.room[t]).weight(p.value);
                final Variable out = model.addVariable("c" + n++).lower(0);
                final Expression balance = model.addExpression("b" + n++).level(p.work[t]);
                balance.set(served, 1).set(out, 1);
                if (carried != null)
                {
                    balance.set(carried, -1);
                }
                carried = out;
                servedInSlot.get(t).computeIfAbsent(p.gang, k -> new ArrayList<>()).add(served);
            }
        }
        for (int t = 0; t < slots; t++)
        {
            final TreeMap<Integer, List<Variable>> served = servedInSlot.get(t);
            if (served.isEmpty())
            {
                continue;
            }
            final List<Variable> used = new ArrayList<>();
            final List<Integer> usedGpus = new ArrayList<>();
            for (final Capacity c : supply.get(t).values())
            {
                used.add(model.addVariable("u" + n++).lower(0).upper(c.gpuHours).weight(-c.cost));
                usedGpus.add(c.gpus);
            }
            // for every gang size g: the work of gang sizes >= g fits on the machines of >= g GPUs used
            final TreeSet<Integer> sizes = new TreeSet<>(served.keySet());
            for (final int g : sizes)
            {
                final Expression capacity = model.addExpression("k" + n++).upper(0);
                for (final Map.Entry<Integer, List<Variable>> e : served.tailMap(g, true).entrySet())
                {
                    for (final Variable v : e.getValue())
                    {
                        capacity.set(v, 1);
                    }
                }
                for (int i = 0; i < used.size(); i++)
                {
                    if (usedGpus.get(i) >= g)
                    {
                        capacity.set(used.get(i), -1);
                    }
                }
            }
        }
        variables = model.countVariables();
        constraints = model.countExpressions();
        final Optimisation.Result result = model.maximise();
        if (!result.getState().isOptimal())
        {
            throw new IllegalStateException("the surplus bound's linear program did not solve: " + result.getState());
        }
        return Math.max(0, result.getValue());
    }
}
