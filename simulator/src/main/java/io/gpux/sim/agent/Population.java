package io.gpux.sim.agent;

import io.gpux.sim.market.MarketRules;
import io.gpux.sim.report.LiveCounters;
import io.gpux.sim.report.MachineRecord;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The agents of a run, built from a seed: 40 % owners, 5 % market-makers (at least one of each), the
 * rest renters, plus one observer that only watches the books. Each agent gets its own seed, drawn in
 * creation order from the run's seed, so the same seed gives the same agents with the same random
 * streams.
 *
 * <p>Demand is calibrated to the fleet: renters pick a preferred market with probability
 * proportional to its GPUs, and each market's renters together bring jobs at a rate that would keep
 * {@code load} times its GPUs busy on average (jobs' mean size times mean duration); the warm start
 * puts most of that steady state in flight at once (or exactly the jobs the steady state has in flight, with
 * {@code steadyStart}). Deposits cover a renter's expected spending one
 * and a half to three times over, except for one renter in ten, whose budget runs short.
 */
public final class Population
{
    /** Mean GPUs per job (sizes 1, 2, 4, 8, 16 with weights 30, 20, 20, 27, 3 %). */
    static final double MEAN_JOB_GPUS = 4.14;

    public final List<Owner> owners = new ArrayList<>();
    public final List<MarketMaker> marketMakers = new ArrayList<>();
    public final List<Renter> renters = new ArrayList<>();
    public final Observer observer;
    public final AgentParameters params;
    public final LiveCounters live;
    private final Map<String, Integer> gpusByMarket = new LinkedHashMap<>();
    private final Map<String, Integer> largestMachine;

    private Population(final AgentParameters params, final Map<String, Integer> largestMachine, final LiveCounters live,
        final Observer observer)
    {
        this.params = params;
        this.largestMachine = largestMachine;
        this.live = live;
        this.observer = observer;
    }

    /**
     * @param agents      owners + market-makers + renters (at least 3).
     * @param marketHours how long the market will run: sizes the renters' budgets.
     * @param load        demand as a multiple of the fleet's GPUs.
     */
    public static Population build(final long seed, final int agents, final MarketRules rules, final long openMs,
        final double marketHours, final double failureAccel, final double reclaimsPerDay, final double load)
    {
        return build(seed, agents, rules, openMs, marketHours, failureAccel, reclaimsPerDay, load, Levers.NONE);
    }

    /** As {@link #build(long, int, MarketRules, long, double, double, double, double)}, with the agents' levers. */
    public static Population build(final long seed, final int agents, final MarketRules rules, final long openMs,
        final double marketHours, final double failureAccel, final double reclaimsPerDay, final double load,
        final Levers levers)
    {
        return build(seed, agents, rules, openMs, marketHours, failureAccel, reclaimsPerDay, load, levers, false);
    }

    /**
     * As {@link #build(long, int, MarketRules, long, double, double, double, double, Levers)}; with {@code steadyStart}
     * the renters open with the jobs the steady state has in flight ({@link AgentParameters#steadyStart}).
     */
    public static Population build(final long seed, final int agents, final MarketRules rules, final long openMs,
        final double marketHours, final double failureAccel, final double reclaimsPerDay, final double load,
        final Levers levers, final boolean steadyStart)
    {
        if (agents < 3)
        {
            throw new IllegalArgumentException("need at least 3 agents");
        }
        final SplittableRandom root = new SplittableRandom(seed);
        final Map<String, Integer> largest = new LinkedHashMap<>();
        final AgentParameters params = new AgentParameters(rules, openMs, failureAccel, reclaimsPerDay,
            Collections.unmodifiableMap(largest), AgentParameters.HOUR, levers, new Fleet(), steadyStart);
        final LiveCounters live = new LiveCounters();
        final Population p = new Population(params, largest, live, new Observer("observer", root.nextLong(), params, live));
        final int makers = Math.max(1, (int)Math.round(agents * 0.05));
        final int owners = Math.max(1, (int)Math.round(agents * 0.40));
        final int renters = Math.max(1, agents - makers - owners);
        int index = 0;
        for (int i = 0; i < owners; i++)
        {
            p.owners.add(new Owner(String.format("owner-%03d", i + 1), root.nextLong(), params, live));
            index++;
        }
        for (int i = 0; i < makers; i++)
        {
            p.marketMakers.add(new MarketMaker(String.format("mm-%02d", i + 1), root.nextLong(), params, live,
                (long)(++index) * 1_000_000L));
        }
        for (final Seller s : p.sellers())
        {
            for (final MachineRecord m : s.records().machines)
            {
                p.gpusByMarket.merge(m.market, m.gpus, Integer::sum);
                largest.merge(m.market, m.gpus, Math::max);
            }
        }
        final int totalGpus = p.gpusByMarket.values().stream().mapToInt(Integer::intValue).sum();
        // renters' preferred markets, drawn by GPU share, then each market's rate split among its renters
        final SplittableRandom picker = new SplittableRandom(root.nextLong());
        final List<GpuClass> primaries = new ArrayList<>();
        final Map<String, Integer> rentersByMarket = new LinkedHashMap<>();
        for (int i = 0; i < renters; i++)
        {
            GpuClass chosen = Catalogue.CLASSES.get(0);
            double u = picker.nextDouble() * totalGpus;
            for (final GpuClass c : Catalogue.CLASSES)
            {
                u -= p.gpusByMarket.getOrDefault(c.symbol(), 0);
                if (u < 0)
                {
                    chosen = c;
                    break;
                }
            }
            primaries.add(chosen);
            rentersByMarket.merge(chosen.symbol(), 1, Integer::sum);
        }
        final double meanWorkHours = Renter.MEDIAN_WORK_MS * Math.exp(Renter.WORK_SIGMA * Renter.WORK_SIGMA / 2)
            / AgentParameters.HOUR;
        final double gpuHoursPerJob = MEAN_JOB_GPUS * meanWorkHours;
        for (int i = 0; i < renters; i++)
        {
            final GpuClass c = primaries.get(i);
            final double marketRate = load * p.gpusByMarket.getOrDefault(c.symbol(), 0) / gpuHoursPerJob;
            final double jobsPerHour = marketRate / rentersByMarket.get(c.symbol());
            final long seedOfRenter = root.nextLong();
            final SplittableRandom budget = new SplittableRandom(seedOfRenter ^ 0x5DEECE66DL);
            final double spend = jobsPerHour * marketHours * gpuHoursPerJob * c.peerPrice() * 1.5;
            double deposit = Math.max(spend, 16 * 2 * c.peerPrice() * 4) * Draw.uniform(budget, 1.5, 3.0);
            if (budget.nextDouble() < 0.1)
            {
                deposit *= Draw.uniform(budget, 0.15, 0.4);
            }
            p.renters.add(new Renter(String.format("renter-%03d", i + 1), seedOfRenter, params, live, c, jobsPerHour,
                (long)(deposit * 1_000_000), (long)(++index) * 1_000_000L));
        }
        return p;
    }

    public List<Seller> sellers()
    {
        final List<Seller> s = new ArrayList<>(owners);
        s.addAll(marketMakers);
        return s;
    }

    /** Every trading agent, owners first, then market-makers, then renters (the observer is not in it). */
    public List<Agent> traders()
    {
        final List<Agent> all = new ArrayList<>(owners);
        all.addAll(marketMakers);
        all.addAll(renters);
        return all;
    }

    /** The traders and the observer. */
    public List<Agent> everyone()
    {
        final List<Agent> all = traders();
        all.add(observer);
        return all;
    }

    public Map<String, Integer> gpusByMarket()
    {
        return Collections.unmodifiableMap(gpusByMarket);
    }

    public int totalGpus()
    {
        return gpusByMarket.values().stream().mapToInt(Integer::intValue).sum();
    }

    public int machineCount()
    {
        int n = 0;
        for (final Seller s : sellers())
        {
            n += s.records().machines.size();
        }
        return n;
    }

    /** The deposit to make for an agent, micro-units (0: none). */
    public static long depositOf(final Agent agent)
    {
        if (agent instanceof Renter r)
        {
            return r.depositMicros();
        }
        if (agent instanceof MarketMaker m)
        {
            return m.depositMicros();
        }
        return 0;
    }

    /** The engine roles bit set of an agent's account. */
    public static int rolesOf(final Agent agent)
    {
        if (agent instanceof Owner)
        {
            return io.gpux.engine.command.Roles.OWNER;
        }
        if (agent instanceof MarketMaker)
        {
            return io.gpux.engine.command.Roles.MARKET_MAKER;
        }
        return io.gpux.engine.command.Roles.RENTER;
    }
}
