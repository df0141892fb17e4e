package io.gpux.sim.report;

import io.gpux.sim.agent.Catalogue;
import io.gpux.sim.agent.GpuClass;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The market measured from the agents' own records, over the window [open, close) of market time.
 *
 * <h2>Utilization</h2>
 * GPU-hours leased (the owners' side of every started lease) over GPU-hours available: GPUs of machines
 * that were online (as the exchange reported it) while their ask was open, plus leased GPU-time outside
 * an open ask (a reclaimed machine's leases running out their notice). Per market, overall, and per
 * time bucket.
 *
 * <h2>Allocative efficiency</h2>
 * Sampled every {@link #EFFICIENCY_STEP_MS} of market time. At each sample, per market:
 * <ul>
 *   <li>supply: every GPU of an online machine that is offered (open ask, not reclaimed) or leased,
 *   at its owner's cost;</li>
 *   <li>demand: every GPU wanted by a job that has arrived and is not finished (given up or done), at
 *   the job's value, plus GPUs the job holds beyond that (a lease under notice while its replacement
 *   runs, a lease not yet released when the job ended); a market-maker's batch demand is its cap of
 *   GPUs at its batch value, for the whole run;</li>
 *   <li>maximum surplus: sort demand by value (highest first) and supply by cost (lowest first), pair
 *   them GPU by GPU and add value minus cost while positive (the classic competitive-equilibrium
 *   surplus, as in Gode and Sunder 1993, here ignoring gang and region constraints, so it is an upper
 *   bound);</li>
 *   <li>realized surplus: for every lease running at that moment, GPUs times (the renter's value for
 *   the job minus the owner's cost of the machine).</li>
 * </ul>
 * Efficiency = sum of realized / sum of maximum over all samples (and per market). Surplus in
 * currency = per-GPU-hour surplus times the sample step.
 */
public final class Analysis
{
    public static final long EFFICIENCY_STEP_MS = 10 * 60_000L;

    /** Per market figures. */
    public static final class MarketFigures
    {
        public final String market;
        public int machines;
        public int gpus;
        public double leasedGpuHours;
        public double availableGpuHours;
        public long fills;
        public long gpusTraded;
        public double tradedGpuHours;
        public double vwap;
        public double minPrice = Double.NaN;
        public double maxPrice = Double.NaN;
        public double realizedSurplus;
        public double maxSurplus;
        public double peerPrice;
        public double onDemandPrice;

        MarketFigures(final String market)
        {
            this.market = market;
        }

        public double utilization()
        {
            return availableGpuHours <= 0 ? Double.NaN : leasedGpuHours / availableGpuHours;
        }

        public double efficiency()
        {
            return maxSurplus <= 0 ? Double.NaN : realizedSurplus / maxSurplus;
        }

        /** 1 - VWAP / on-demand price. */
        public double spotDiscount()
        {
            return fills == 0 ? Double.NaN : 1 - vwap / onDemandPrice;
        }
    }

    public final long openMs;
    public final long closeMs;
    public final long bucketMs;
    public final int buckets;
    public final Map<String, MarketFigures> markets = new LinkedHashMap<>();
    public final MarketFigures all = new MarketFigures("all");

    /** Per market, per bucket: VWAP (NaN: no trade), utilization (NaN: nothing available). */
    public final Map<String, double[]> vwapSeries = new LinkedHashMap<>();
    public final Map<String, double[]> utilizationSeries = new LinkedHashMap<>();
    public final double[] utilizationAll;
    /** Per bucket: notices by reason, ends without notice. */
    public final Map<String, long[]> preemptionSeries = new LinkedHashMap<>();
    public final List<DepthSample> depth = new ArrayList<>();
    public final List<TradeRecord> trades = new ArrayList<>();

    public long leases;
    public long leasesStarted;
    public final Map<String, Long> notices = new LinkedHashMap<>();
    public final Map<String, Long> endReasons = new LinkedHashMap<>();
    /** Started leases that ended by something other than their renter (release) or their expiry. */
    public long interrupted;
    public long interruptedWithNotice;
    public long noticeAfterEnd;
    public final Map<String, Long> withoutNotice = new LinkedHashMap<>();
    public long offlineMachineFailed;
    public long offlineHeartbeatLapse;
    public double lostGpuHours;
    public double savedGpuHours;
    public long machineFailures;
    public long machineOfflineWithoutFailure;
    public long reclaims;

    public long jobs;
    public final Map<String, Long> jobOutcomes = new LinkedHashMap<>();
    public long jobsLeased;
    public long waitP50Ms = -1;
    public long waitP90Ms = -1;
    public long waitP99Ms = -1;
    public double workDoneGpuHours;

    public double realizedSurplusCurrency;
    public double maxSurplusCurrency;

    public long events;
    public long seqBreaks;
    public int accounts;

    public Analysis(final List<AgentRecords> agents, final long openMs, final long closeMs)
    {
        this.openMs = openMs;
        this.closeMs = closeMs;
        final long window = Math.max(1, closeMs - openMs);
        final long step = 15 * 60_000L;
        this.bucketMs = Math.max(step, (window / 48 + step - 1) / step * step);
        this.buckets = (int)((window + bucketMs - 1) / bucketMs);
        this.utilizationAll = new double[buckets];
        for (final GpuClass c : Catalogue.CLASSES)
        {
            final MarketFigures f = new MarketFigures(c.symbol());
            f.peerPrice = c.peerPrice();
            f.onDemandPrice = c.onDemandPrice();
            markets.put(c.symbol(), f);
        }
        for (final String reason : List.of("OUTBID", "NOTICE_OWNER_RECLAIM", "NOTICE_INSUFFICIENT_FUNDS", "NO_NOTICE"))
        {
            preemptionSeries.put(reason, new long[buckets]);
        }

        final Map<Long, MachineRecord> machines = new LinkedHashMap<>();
        final Map<Long, LeaseRecord> ownerLeases = new LinkedHashMap<>();
        final List<LeaseRecord> renterLeases = new ArrayList<>();
        final Map<Long, JobRecord> jobsById = new HashMap<>();
        final List<JobRecord> jobList = new ArrayList<>();
        for (final AgentRecords a : agents)
        {
            accounts++;
            events += a.events;
            seqBreaks += a.seqBreaks;
            for (final MachineRecord m : a.machines)
            {
                if (m.machineId != 0)
                {
                    machines.put(m.machineId, m);
                }
            }
            ownerLeases.putAll(a.ownerLeases);
            renterLeases.addAll(a.renterLeases.values());
            for (final JobRecord j : a.jobs)
            {
                jobsById.put(j.id, j);
                jobList.add(j);
            }
            trades.addAll(a.sales);
            depth.addAll(a.depth);
        }
        trades.sort((x, y) -> Long.compare(x.timeMs(), y.timeMs()));
        depth.sort((x, y) -> Long.compare(x.timeMs(), y.timeMs()));

        utilization(machines, ownerLeases);
        prices();
        preemptions(machines, renterLeases);
        jobs(jobList);
        efficiency(machines, ownerLeases, renterLeases, jobsById, jobList);
    }

    private long end(final long endMs)
    {
        return endMs < 0 ? closeMs : Math.min(endMs, closeMs);
    }

    private int bucketOf(final long t)
    {
        return (int)Math.max(0, Math.min(buckets - 1, (t - openMs) / bucketMs));
    }

    // ------------------------------------------------------------------------------------------

    private void utilization(final Map<Long, MachineRecord> machines, final Map<Long, LeaseRecord> ownerLeases)
    {
        final Map<String, double[]> leasedByBucket = new LinkedHashMap<>();
        final Map<String, double[]> availableByBucket = new LinkedHashMap<>();
        for (final String m : markets.keySet())
        {
            leasedByBucket.put(m, new double[buckets]);
            availableByBucket.put(m, new double[buckets]);
        }
        for (final MachineRecord m : machines.values())
        {
            final MarketFigures f = markets.get(m.market);
            f.machines++;
            f.gpus += m.gpus;
            machineFailures += m.failed.count();
            machineOfflineWithoutFailure += m.offlineWithoutFailure;
            reclaims += m.reclaimed.count();
            final double[] available = availableByBucket.get(m.market);
            for (int b = 0; b < buckets; b++)
            {
                final long from = openMs + b * bucketMs;
                final long to = Math.min(closeMs, from + bucketMs);
                available[b] += (double)m.gpus * m.online.overlap(m.listed, from, to);
            }
        }
        for (final LeaseRecord l : ownerLeases.values())
        {
            if (!l.started())
            {
                continue;
            }
            final MachineRecord m = machines.get(l.machineId);
            final String market = m != null ? m.market : l.market;
            final double[] leased = leasedByBucket.get(market);
            final double[] available = availableByBucket.get(market);
            if (leased == null)
            {
                continue;
            }
            final long s = Math.max(l.startMs, openMs);
            final long e = end(l.endMs);
            for (long t = s; t < e; )
            {
                final int b = bucketOf(t);
                final long bucketEnd = Math.min(e, openMs + (b + 1) * bucketMs);
                final long span = bucketEnd - t;
                if (span <= 0)
                {
                    break;
                }
                leased[b] += (double)l.gpus * span;
                if (m != null)
                {
                    available[b] += (double)l.gpus * (span - m.listed.overlap(t, bucketEnd));
                }
                t = bucketEnd;
            }
        }
        final double[] leasedAll = new double[buckets];
        final double[] availableAll = new double[buckets];
        for (final String market : markets.keySet())
        {
            final MarketFigures f = markets.get(market);
            final double[] leased = leasedByBucket.get(market);
            final double[] available = availableByBucket.get(market);
            final double[] series = new double[buckets];
            for (int b = 0; b < buckets; b++)
            {
                f.leasedGpuHours += leased[b] / 3_600_000.0;
                f.availableGpuHours += available[b] / 3_600_000.0;
                series[b] = available[b] <= 0 ? Double.NaN : leased[b] / available[b];
                leasedAll[b] += leased[b];
                availableAll[b] += available[b];
            }
            utilizationSeries.put(market, series);
            all.machines += f.machines;
            all.gpus += f.gpus;
            all.leasedGpuHours += f.leasedGpuHours;
            all.availableGpuHours += f.availableGpuHours;
        }
        for (int b = 0; b < buckets; b++)
        {
            utilizationAll[b] = availableAll[b] <= 0 ? Double.NaN : leasedAll[b] / availableAll[b];
        }
    }

    private void prices()
    {
        final Map<String, double[]> notional = new LinkedHashMap<>();
        final Map<String, double[]> volume = new LinkedHashMap<>();
        for (final String m : markets.keySet())
        {
            notional.put(m, new double[buckets]);
            volume.put(m, new double[buckets]);
        }
        double allNotional = 0;
        for (final TradeRecord t : trades)
        {
            final MarketFigures f = markets.get(t.market());
            if (f == null || t.timeMs() < openMs || t.timeMs() >= closeMs)
            {
                continue;
            }
            final double price = t.price() / 10_000.0;
            f.fills++;
            f.gpusTraded += t.gpus();
            f.vwap += price * t.gpus();
            f.minPrice = Double.isNaN(f.minPrice) ? price : Math.min(f.minPrice, price);
            f.maxPrice = Double.isNaN(f.maxPrice) ? price : Math.max(f.maxPrice, price);
            final int b = bucketOf(t.timeMs());
            notional.get(t.market())[b] += price * t.gpus();
            volume.get(t.market())[b] += t.gpus();
            all.fills++;
            all.gpusTraded += t.gpus();
            allNotional += price * t.gpus();
        }
        for (final MarketFigures f : markets.values())
        {
            f.vwap = f.gpusTraded == 0 ? Double.NaN : f.vwap / f.gpusTraded;
            final double[] series = new double[buckets];
            final double[] n = notional.get(f.market);
            final double[] v = volume.get(f.market);
            for (int b = 0; b < buckets; b++)
            {
                series[b] = v[b] == 0 ? Double.NaN : n[b] / v[b];
            }
            vwapSeries.put(f.market, series);
        }
        all.vwap = all.gpusTraded == 0 ? Double.NaN : allNotional / all.gpusTraded;
    }

    private void preemptions(final Map<Long, MachineRecord> machines, final List<LeaseRecord> renterLeases)
    {
        for (final LeaseRecord l : renterLeases)
        {
            leases++;
            if (!l.started())
            {
                continue;
            }
            if (l.startMs >= closeMs)
            {
                continue;
            }
            leasesStarted++;
            lostGpuHours += l.lostGpuMs / 3_600_000.0;
            savedGpuHours += l.savedGpuMs / 3_600_000.0;
            if (l.noticeMs >= 0)
            {
                notices.merge(l.noticeReason, 1L, Long::sum);
                final long[] series = preemptionSeries.get(l.noticeReason);
                if (series != null)
                {
                    series[bucketOf(l.noticeMs)]++;
                }
            }
            if (l.endReason == null)
            {
                continue;
            }
            endReasons.merge(l.endReason, 1L, Long::sum);
            if ("RELEASED".equals(l.endReason) || "EXPIRED".equals(l.endReason))
            {
                continue;
            }
            interrupted++;
            if (l.noticeMs >= 0)
            {
                interruptedWithNotice++;
                if (l.noticeMs > l.endMs)
                {
                    noticeAfterEnd++;
                }
                continue;
            }
            withoutNotice.merge(l.endReason, 1L, Long::sum);
            preemptionSeries.get("NO_NOTICE")[bucketOf(l.endMs)]++;
            if ("MACHINE_OFFLINE".equals(l.endReason))
            {
                final MachineRecord m = machines.get(l.machineId);
                if (m != null && m.failed.contains(l.endMs))
                {
                    offlineMachineFailed++;
                }
                else
                {
                    offlineHeartbeatLapse++;
                }
            }
        }
    }

    private void jobs(final List<JobRecord> jobList)
    {
        final Percentiles waits = new Percentiles();
        for (final JobRecord j : jobList)
        {
            if (j.outcome == JobRecord.Outcome.BATCH)
            {
                continue;
            }
            jobs++;
            jobOutcomes.merge(j.outcome.name(), 1L, Long::sum);
            workDoneGpuHours += j.doneGpuMs / 3_600_000.0;
            if (j.firstLeaseMs >= 0)
            {
                jobsLeased++;
                waits.record(Math.max(0, j.firstLeaseMs - j.arrivalMs));
            }
        }
        waitP50Ms = waits.at(50);
        waitP90Ms = waits.at(90);
        waitP99Ms = waits.at(99);
    }

    // ------------------------------------------------------------------------------------------

    private void efficiency(final Map<Long, MachineRecord> machines, final Map<Long, LeaseRecord> ownerLeases,
        final List<LeaseRecord> renterLeases, final Map<Long, JobRecord> jobsById, final List<JobRecord> jobList)
    {
        final List<String> symbols = new ArrayList<>(markets.keySet());
        final int marketCount = symbols.size();
        final Map<String, Integer> marketIndex = new HashMap<>();
        for (int i = 0; i < marketCount; i++)
        {
            marketIndex.put(symbols.get(i), i);
        }
        final List<MachineRecord> machineList = new ArrayList<>(machines.values());
        final Map<Long, Integer> machineIndex = new HashMap<>();
        for (int i = 0; i < machineList.size(); i++)
        {
            machineIndex.put(machineList.get(i).machineId, i);
        }
        final List<JobRecord> byArrival = new ArrayList<>(jobList);
        byArrival.sort((x, y) -> Long.compare(x.arrivalMs, y.arrivalMs));
        final List<LeaseRecord> byStart = new ArrayList<>();
        for (final LeaseRecord l : renterLeases)
        {
            if (l.started())
            {
                byStart.add(l);
            }
        }
        byStart.sort((x, y) -> x.startMs != y.startMs ? Long.compare(x.startMs, y.startMs) : Long.compare(x.leaseId, y.leaseId));

        final List<JobRecord> openJobs = new ArrayList<>();
        final List<LeaseRecord> activeLeases = new ArrayList<>();
        int nextJob = 0;
        int nextLease = 0;
        final int[] machineLeased = new int[machineList.size()];
        final DemandSupply[] books = new DemandSupply[marketCount];
        for (int i = 0; i < marketCount; i++)
        {
            books[i] = new DemandSupply();
        }
        final double[] realized = new double[marketCount];
        final double stepHours = EFFICIENCY_STEP_MS / 3_600_000.0;
        for (long t = openMs; t < closeMs; t += EFFICIENCY_STEP_MS)
        {
            while (nextJob < byArrival.size() && byArrival.get(nextJob).arrivalMs <= t)
            {
                openJobs.add(byArrival.get(nextJob++));
            }
            while (nextLease < byStart.size() && byStart.get(nextLease).startMs <= t)
            {
                activeLeases.add(byStart.get(nextLease++));
            }
            final long now = t;
            openJobs.removeIf(j -> j.endMs >= 0 && j.endMs <= now);
            activeLeases.removeIf(l -> l.endMs >= 0 && l.endMs <= now);
            for (final DemandSupply b : books)
            {
                b.clear();
            }
            Arrays.fill(realized, 0);
            Arrays.fill(machineLeased, 0);
            for (final JobRecord j : openJobs)
            {
                final Integer mi = marketIndex.get(j.market);
                if (mi != null)
                {
                    books[mi].demand(j.value, j.gpus);
                }
            }
            for (final LeaseRecord l : activeLeases)
            {
                final Integer mi = marketIndex.get(l.market);
                if (mi == null)
                {
                    continue;
                }
                final Integer machine = machineIndex.get(l.machineId);
                final double cost = machine == null ? 0 : machineList.get(machine).cost;
                if (machine != null)
                {
                    machineLeased[machine] += l.gpus;
                }
                realized[mi] += l.gpus * (l.value - cost);
                final JobRecord job = jobsById.get(l.jobId);
                final boolean jobOpen = job != null && job.arrivalMs <= t && (job.endMs < 0 || job.endMs > t);
                if (!jobOpen || (l.noticeMs >= 0 && l.noticeMs <= t))
                {
                    books[mi].demand(l.value, l.gpus);
                }
            }
            for (int i = 0; i < machineList.size(); i++)
            {
                final MachineRecord m = machineList.get(i);
                if (!m.online.contains(t))
                {
                    continue;
                }
                final boolean offered = m.listed.contains(t) && !m.reclaimed.contains(t);
                final int units = Math.max(offered ? m.gpus : 0, machineLeased[i]);
                if (units > 0)
                {
                    books[marketIndex.get(m.market)].supply(m.cost, units);
                }
            }
            for (int i = 0; i < marketCount; i++)
            {
                final MarketFigures f = markets.get(symbols.get(i));
                final double max = books[i].maxSurplus();
                f.maxSurplus += max * stepHours;
                f.realizedSurplus += realized[i] * stepHours;
            }
        }
        for (final MarketFigures f : markets.values())
        {
            all.maxSurplus += f.maxSurplus;
            all.realizedSurplus += f.realizedSurplus;
        }
        realizedSurplusCurrency = all.realizedSurplus;
        maxSurplusCurrency = all.maxSurplus;
    }
}
