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
 * GPU-hours of leases that did work (work kept by a job: not lost to a stop without checkpoint, not on
 * a broken machine, not beyond the job's need) over the GPU-hours the whole fleet was online (as the
 * exchange reported it, offered or not). Beside it, the offered-only figure: the same work over the
 * GPU-hours of machines online with an open ask, plus leased GPU-time outside an open ask.
 *
 * <h2>Market efficiency</h2>
 * (value of the work done - cost of the leased GPU-hours) / an upper bound on the surplus. The value of
 * the work done is each job's work (GPU-hours) times its value per GPU-hour; the cost is every started
 * lease's GPU-hours (whole, grace and dead time included) times its machine owner's cost. The bound is
 * {@link MarketBound}'s per market: the smaller of {@link SurplusBound}'s linear program and {@link DualBound}'s
 * hour-slot dual.
 *
 * <h2>Prices</h2>
 * VWAP per GPU-hour: what renters paid per leased GPU-hour, each lease weighted by its GPUs times its
 * duration in the window.
 *
 * <h2>Notices</h2>
 * The strict check: every started lease that ended other than by its renter (a release) or its expiry,
 * on a machine that had not broken, was noticed at least the market's full grace period before its end
 * (or, noticed, ended early because its renter released it during the grace: a hand-over).
 * A machine taken offline while it worked (its heartbeats late) fails the check.
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
        /** GPU-hours of leases that did work kept by a job. */
        public double usefulGpuHours;
        /** GPU-hours the machines were online (the whole fleet). */
        public double onlineGpuHours;
        /** GPU-hours online with an open ask, plus leased GPU-time outside an open ask. */
        public double offeredGpuHours;
        /** Sum of price x GPU-hours over leases (currency). */
        public double notional;
        public long fills;
        public long gpusTraded;
        public double tradedGpuHours;
        public double vwap;
        public double minPrice = Double.NaN;
        public double maxPrice = Double.NaN;
        /** Value of the work done (currency). */
        public double workValue;
        /** Owners' cost of the leased GPU-hours (currency). */
        public double leasedCost;
        /** The surplus bound (currency): the smaller of the two below. */
        public double surplusBound;
        /** The linear program's bound and the hour-slot dual bound ({@link MarketBound}). */
        public double programBound;
        public double dualBound;
        /** References, not bounds: what planners without foresight get ({@link OnlinePlanner}), currency. */
        public double plannerReplanning;
        public double plannerKeeping;
        public double peerPrice;
        public double onDemandPrice;

        MarketFigures(final String market)
        {
            this.market = market;
        }

        /** GPU-hours that did work / online GPU-hours of the fleet. */
        public double utilization()
        {
            return onlineGpuHours <= 0 ? Double.NaN : usefulGpuHours / onlineGpuHours;
        }

        /** GPU-hours that did work / offered GPU-hours. */
        public double offeredUtilization()
        {
            return offeredGpuHours <= 0 ? Double.NaN : usefulGpuHours / offeredGpuHours;
        }

        /** Value of the work done minus the cost of the leased GPU-hours. */
        public double realizedSurplus()
        {
            return workValue - leasedCost;
        }

        public double efficiency()
        {
            return surplusBound <= 0 ? Double.NaN : realizedSurplus() / surplusBound;
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
    public final Map<String, Long> withoutNotice = new LinkedHashMap<>();
    public long offlineMachineFailed;
    public long offlineHeartbeatLapse;
    /** The market's grace period (the notice check's minimum). */
    public final long graceMs;
    /** Interruptions of machines that had not broken: without notice, or noticed less than the grace before the end. */
    public long noticeCheckFailures;
    /** Of those: noticed, but less than the full grace before the end. */
    public long noticeShort;
    /** GPU-hours of work lost since the last checkpoint. */
    public double lostGpuHours;
    /** GPU-hours leased on machines that had broken, before the exchange ended the lease. */
    public double deadGpuHours;
    /** GPU-hours leased while jobs restarted on new leases, before they worked. */
    public double restartGpuHours;
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

    /** The records the figures come from (see {@link Export}). */
    public final List<MachineRecord> machineList = new ArrayList<>();
    public final List<LeaseRecord> ownerLeaseList = new ArrayList<>();
    public final List<LeaseRecord> renterLeaseList = new ArrayList<>();
    public final List<JobRecord> jobList = new ArrayList<>();

    public long events;
    public long seqBreaks;
    public int accounts;

    /**
     * @param graceMs the markets' grace period: the strict notice check wants at least this between a
     *                notice and the end it announces.
     */
    /** Wall time the surplus bound's linear programs took to solve (all markets), seconds. */
    public double boundSolveSeconds;

    public Analysis(final List<AgentRecords> agents, final long openMs, final long closeMs, final long graceMs)
    {
        this.openMs = openMs;
        this.graceMs = graceMs;
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
                jobList.add(j);
            }
            trades.addAll(a.sales);
            depth.addAll(a.depth);
        }
        trades.sort((x, y) -> Long.compare(x.timeMs(), y.timeMs()));
        depth.sort((x, y) -> Long.compare(x.timeMs(), y.timeMs()));
        machineList.addAll(machines.values());
        ownerLeaseList.addAll(ownerLeases.values());
        renterLeaseList.addAll(renterLeases);
        this.jobList.addAll(jobList);

        utilization(machines, ownerLeases, renterLeases);
        prices(machines, ownerLeases);
        preemptions(machines, renterLeases);
        jobs(jobList);
        efficiency(machines, ownerLeases, jobList);
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

    /** Adds {@code gpus x span} of [from, to) into the buckets it covers (ms x GPUs). */
    private void spread(final double[] buckets, final long from, final long to, final double gpus)
    {
        for (long t = Math.max(from, openMs); t < Math.min(to, closeMs); )
        {
            final int b = bucketOf(t);
            final long bucketEnd = Math.min(Math.min(to, closeMs), openMs + (b + 1) * bucketMs);
            if (bucketEnd <= t)
            {
                break;
            }
            buckets[b] += gpus * (bucketEnd - t);
            t = bucketEnd;
        }
    }

    private void utilization(final Map<Long, MachineRecord> machines, final Map<Long, LeaseRecord> ownerLeases,
        final List<LeaseRecord> renterLeases)
    {
        final Map<String, double[]> usefulByBucket = new LinkedHashMap<>();
        final Map<String, double[]> onlineByBucket = new LinkedHashMap<>();
        for (final String m : markets.keySet())
        {
            usefulByBucket.put(m, new double[buckets]);
            onlineByBucket.put(m, new double[buckets]);
        }
        for (final MachineRecord m : machines.values())
        {
            final MarketFigures f = markets.get(m.market);
            f.machines++;
            f.gpus += m.gpus;
            machineFailures += m.failed.count();
            machineOfflineWithoutFailure += m.offlineWithoutFailure;
            reclaims += m.reclaimed.count();
            f.onlineGpuHours += m.gpus * m.online.overlap(openMs, closeMs) / 3_600_000.0;
            f.offeredGpuHours += m.gpus * m.online.overlap(m.listed, openMs, closeMs) / 3_600_000.0;
            final double[] online = onlineByBucket.get(m.market);
            for (int i = 0; i < m.online.count(); i++)
            {
                spread(online, m.online.start(i), m.online.end(i) < 0 ? closeMs : m.online.end(i), m.gpus);
            }
        }
        for (final LeaseRecord l : ownerLeases.values())
        {
            if (!l.started())
            {
                continue;
            }
            final MachineRecord m = machines.get(l.machineId);
            final MarketFigures f = markets.get(m != null ? m.market : l.market);
            if (f == null)
            {
                continue;
            }
            final long s = Math.max(l.startMs, openMs);
            final long e = end(l.endMs);
            if (e > s)
            {
                f.leasedGpuHours += l.gpus * (e - s) / 3_600_000.0;
                f.offeredGpuHours += m == null ? 0 : l.gpus * ((e - s) - m.listed.overlap(s, e)) / 3_600_000.0;
            }
        }
        for (final LeaseRecord l : renterLeases)
        {
            final MarketFigures f = markets.get(l.market);
            if (!l.started() || f == null)
            {
                continue;
            }
            f.usefulGpuHours += l.usefulGpuMs / 3_600_000.0;
            // for the chart: the lease's useful share spread evenly over its time
            final long e = l.endMs < 0 ? closeMs : l.endMs;
            if (e > l.startMs)
            {
                spread(usefulByBucket.get(l.market), l.startMs, e, l.usefulGpuMs / (double)(e - l.startMs));
            }
        }
        final double[] usefulAll = new double[buckets];
        final double[] onlineAll = new double[buckets];
        for (final String market : markets.keySet())
        {
            final MarketFigures f = markets.get(market);
            final double[] useful = usefulByBucket.get(market);
            final double[] online = onlineByBucket.get(market);
            final double[] series = new double[buckets];
            for (int b = 0; b < buckets; b++)
            {
                series[b] = online[b] <= 0 ? Double.NaN : useful[b] / online[b];
                usefulAll[b] += useful[b];
                onlineAll[b] += online[b];
            }
            utilizationSeries.put(market, series);
            all.machines += f.machines;
            all.gpus += f.gpus;
            all.leasedGpuHours += f.leasedGpuHours;
            all.usefulGpuHours += f.usefulGpuHours;
            all.onlineGpuHours += f.onlineGpuHours;
            all.offeredGpuHours += f.offeredGpuHours;
        }
        for (int b = 0; b < buckets; b++)
        {
            utilizationAll[b] = onlineAll[b] <= 0 ? Double.NaN : usefulAll[b] / onlineAll[b];
        }
    }

    private void prices(final Map<Long, MachineRecord> machines, final Map<Long, LeaseRecord> ownerLeases)
    {
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
            f.minPrice = Double.isNaN(f.minPrice) ? price : Math.min(f.minPrice, price);
            f.maxPrice = Double.isNaN(f.maxPrice) ? price : Math.max(f.maxPrice, price);
            all.fills++;
            all.gpusTraded += t.gpus();
        }
        final Map<String, double[]> notional = new LinkedHashMap<>();
        final Map<String, double[]> volume = new LinkedHashMap<>();
        for (final String m : markets.keySet())
        {
            notional.put(m, new double[buckets]);
            volume.put(m, new double[buckets]);
        }
        for (final LeaseRecord l : ownerLeases.values())
        {
            final MachineRecord m = machines.get(l.machineId);
            final String market = m != null ? m.market : l.market;
            final MarketFigures f = markets.get(market);
            if (!l.started() || f == null)
            {
                continue;
            }
            final long s = Math.max(l.startMs, openMs);
            final long e = end(l.endMs);
            if (e <= s)
            {
                continue;
            }
            final double price = l.price / 10_000.0;
            f.notional += price * l.gpus * (e - s) / 3_600_000.0;
            spread(notional.get(market), s, e, price * l.gpus);
            spread(volume.get(market), s, e, l.gpus);
        }
        for (final MarketFigures f : markets.values())
        {
            f.vwap = f.leasedGpuHours <= 0 ? Double.NaN : f.notional / f.leasedGpuHours;
            all.notional += f.notional;
            final double[] series = new double[buckets];
            final double[] n = notional.get(f.market);
            final double[] v = volume.get(f.market);
            for (int b = 0; b < buckets; b++)
            {
                series[b] = v[b] == 0 ? Double.NaN : n[b] / v[b];
            }
            vwapSeries.put(f.market, series);
        }
        all.vwap = all.leasedGpuHours <= 0 ? Double.NaN : all.notional / all.leasedGpuHours;
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
            deadGpuHours += l.deadGpuMs / 3_600_000.0;
            restartGpuHours += l.restartGpuMs / 3_600_000.0;
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
            final MachineRecord m = machines.get(l.machineId);
            final boolean broken = m != null && m.failed.overlap(l.startMs, l.endMs + 1) > 0;
            if (l.noticeMs >= 0)
            {
                interruptedWithNotice++;
                // a renter that releases during the grace hands over at once: its own early end
                final boolean handedOver = l.releaseMs >= 0 && l.releaseMs <= l.endMs;
                if (!broken && !handedOver && l.endMs - l.noticeMs < graceMs)
                {
                    noticeShort++;
                    noticeCheckFailures++;
                }
                continue;
            }
            withoutNotice.merge(l.endReason, 1L, Long::sum);
            preemptionSeries.get("NO_NOTICE")[bucketOf(l.endMs)]++;
            if (broken)
            {
                offlineMachineFailed++;
            }
            else
            {
                noticeCheckFailures++;
                if ("MACHINE_OFFLINE".equals(l.endReason))
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
        final List<JobRecord> jobList)
    {
        final Map<String, MarketBound> bounds = new LinkedHashMap<>();
        final Map<String, OnlinePlanner> planners = new LinkedHashMap<>();
        for (final String market : markets.keySet())
        {
            bounds.put(market, new MarketBound(openMs, closeMs));
            planners.put(market, new OnlinePlanner(openMs, closeMs));
        }
        for (final JobRecord j : jobList)
        {
            final MarketFigures f = markets.get(j.market);
            if (f == null)
            {
                continue;
            }
            f.workValue += j.value * j.doneGpuMs / 3_600_000.0;
            if (j.outcome == JobRecord.Outcome.BATCH)
            {
                // a market-maker's batch: as much work as its GPUs can do over the window
                bounds.get(j.market).job(openMs, closeMs, j.gpus * (closeMs - openMs) / 3_600_000.0, j.gpus, false, j.value);
                planners.get(j.market).job(openMs, closeMs, j.gpus * (closeMs - openMs) / 3_600_000.0, j.gpus, false, j.value);
            }
            else
            {
                final double gpuHours = JobRecord.boundGpuHours(j.gpus, j.gang, j.workMs, j.restartMs);
                final double value = JobRecord.boundValue(j.value, j.gpus, j.gang, j.workMs, j.restartMs);
                bounds.get(j.market).job(j.arrivalMs, j.windowEndMs(closeMs), gpuHours, j.gpus, j.gang, value);
                planners.get(j.market).job(j.arrivalMs, j.windowEndMs(closeMs), gpuHours, j.gpus, j.gang, value);
            }
        }
        for (final LeaseRecord l : ownerLeases.values())
        {
            final MachineRecord m = machines.get(l.machineId);
            if (!l.started() || m == null)
            {
                continue;
            }
            final long s = Math.max(l.startMs, openMs);
            final long e = end(l.endMs);
            if (e > s)
            {
                markets.get(m.market).leasedCost += m.cost * l.gpus * (e - s) / 3_600_000.0;
            }
        }
        for (final MachineRecord m : machines.values())
        {
            final OnlinePlanner planner = planners.get(m.market);
            final int machine = planner.machine(m.gpus, m.cost);
            for (int i = 0; i < m.online.count(); i++)
            {
                final long to = m.online.end(i) < 0 ? closeMs : Math.min(closeMs, m.online.end(i));
                bounds.get(m.market).online(m.online.start(i), to, m.gpus, m.cost);
                planner.online(machine, m.online.start(i), to);
            }
        }
        final long solveStart = System.nanoTime();
        for (final MarketFigures f : markets.values())
        {
            final MarketBound bound = bounds.get(f.market);
            f.surplusBound = bound.solve();
            f.programBound = bound.programValue();
            f.dualBound = bound.dualValue();
            f.plannerReplanning = planners.get(f.market).replanning();
            f.plannerKeeping = planners.get(f.market).keeping(0);
            all.workValue += f.workValue;
            all.leasedCost += f.leasedCost;
            all.surplusBound += f.surplusBound;
            all.programBound += f.programBound;
            all.dualBound += f.dualBound;
            all.plannerReplanning += f.plannerReplanning;
            all.plannerKeeping += f.plannerKeeping;
        }
        boundSolveSeconds = (System.nanoTime() - solveStart) / 1e9;
    }
}
