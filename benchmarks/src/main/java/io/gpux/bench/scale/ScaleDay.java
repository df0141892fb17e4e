package io.gpux.bench.scale;

import io.gpux.bench.LatencyLine;
import io.gpux.bench.ResultFile;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.command.Roles;
import io.gpux.engine.command.TimeInForce;
import io.gpux.core.pipeline.ExchangePipeline;
import io.gpux.core.pipeline.PipelineContext;
import io.gpux.gateway.egress.WorkProbe;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A seeded market day driven through the real pipeline (command journal, engine, event journal, snapshots):
 * owners register machines and post asks, every machine heartbeats every 5 s of market time, renters' bids
 * fill into leases that expire or are released, high bids preempt, owners reclaim and post again. Market
 * time comes from an injected clock and TICKs, so a day runs as fast as the engine applies it; the
 * compression shortens the day (the heartbeat interval stays 5 s). The benchmark's thread is the
 * exchange's core (the pipeline is polled), and every poll, one engine batch, is timed twice: by the wall clock and
 * by the thread's CPU time, which leaves out whatever the scheduler (or a collector's pause) kept it from running.
 */
@CommandLine.Command(name = "scale-day", mixinStandardHelpOptions = true)
public final class ScaleDay implements Callable<Integer>
{
    static final long MARKET = 1;
    static final int GPUS_PER_MACHINE = 8;
    static final int MACHINES_PER_OWNER = 10;
    static final long HEARTBEAT_MS = 5_000;
    static final long DAY_MS = 86_400_000L;
    static final long START_MS = 1_000_000L;
    /** How long the restarted exchange's snapshot replica may take to catch up before the run gives up. */
    static final long REPLICA_CATCH_UP_MINUTES = 10;

    @Option(names = "--machines", description = "machines, 8 GPUs each (default ${DEFAULT-VALUE})")
    int machines = 10_000;

    @Option(names = "--renters", description = "renter accounts (default ${DEFAULT-VALUE})")
    int renters = 2_000;

    @Option(names = "--leases", description = "bids that aim to start a lease over the day (default ${DEFAULT-VALUE})")
    int leases = 100_000;

    @Option(names = "--compression", description = "the day lasts 24 h / this much market time (default ${DEFAULT-VALUE})")
    int compression = 96;

    @Option(names = "--max-lease-seconds", description = "a lease bid asks for 5 s plus up to this many seconds of market " +
        "time (default: half the day); shorter leases at more bids end more leases with as many live")
    long maxLeaseSeconds;

    @Option(names = "--portfolio-queries", description = "portfolio queries a second of market time, each of a random " +
        "renter's account, run on the engine thread as the gateway runs them (default ${DEFAULT-VALUE})")
    int portfolioQueries;

    @Option(names = "--batch", description = "at most this many commands per engine batch (default ${DEFAULT-VALUE})")
    int batch = 256;

    @Option(names = "--seed", description = "seed of the generated day (default ${DEFAULT-VALUE})")
    long seed = 42;

    @Option(names = "--dir", description = "data directory (default: a temporary one, deleted after)")
    Path dir;

    @Option(names = "--json", description = "also write the figures to this file")
    Path json;

    /** The figures of one run, for the caller (and the smoke test). */
    Result result;

    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new ScaleDay()).execute(args));
    }

    /** What a run measured. */
    record Result(long commands, long leasesStarted, long leasesEnded, long liveLeases, long preemptions,
        long reclaimRequests, long reclaimNotices, long released, double wallSeconds, long heapBytes, long snapshotBytes,
        long tickNs, long tickCpuNs, long snapshotNs, long snapshotCpuNs, long snapshotCloseNs, double replayRestartSeconds,
        long replayedAfterPeriodicSnapshot,
        double restartSeconds, long replayedOnRestart, Histogram batchNs, Histogram batchCpuNs, long batchCpuMaxAt,
        Histogram queryNs, Histogram queryCpuNs, long queryCpuMaxAt)
    {
    }

    @Override
    public Integer call() throws Exception
    {
        if (machines < 1 || renters < 1 || leases < 0 || compression < 1 || batch < 1 || maxLeaseSeconds < 0)
        {
            System.err.println("machines, renters, compression and batch must be positive, leases and max-lease-seconds " +
                "not negative");
            return 2;
        }
        final Path data = dir != null ? dir : Files.createTempDirectory("gpux-scale-day");
        try
        {
            result = run(data);
        }
        catch (final IllegalStateException ex)
        {
            System.err.println("scale-day: " + ex.getMessage());
            return 1;
        }
        finally
        {
            if (dir == null)
            {
                delete(data);
            }
        }
        return 0;
    }

    private Result run(final Path data) throws Exception
    {
        final long[] now = {START_MS};
        final ScaleDayDriver d = new ScaleDayDriver(batch);
        final long dayMs = DAY_MS / compression;
        runDay(data, now, d, dayMs);
        System.out.println("rejects and unfilled bids: " + d.rejects);
        now[0] = START_MS + dayMs;
        final CrashRestart crash = restartAfterCrash(data, now);
        final long snapshotBytes = newestSnapshot(data.resolve("snapshots"));

        // and from that snapshot, with nothing to replay
        final long r1 = System.nanoTime();
        try (ExchangePipeline restarted = ExchangePipeline.start(restartContext(data, now)))
        {
            final double restartSeconds = (System.nanoTime() - r1) / 1e9;
            final long replayedOnRestart = restarted.recovered().replayedCommands();
            // the heap with the snapshot replica's engine too, once it has loaded the snapshot (a replica that has
            // not caught up within the deadline ends the run with a reason instead of waiting for ever)
            final long catchUpDeadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(REPLICA_CATCH_UP_MINUTES);
            while (restarted.snapshotReplicaSequence() < restarted.appliedCommands())
            {
                if (System.nanoTime() - catchUpDeadline > 0)
                {
                    throw new IllegalStateException("the snapshot replica did not catch up with the restarted exchange within "
                        + REPLICA_CATCH_UP_MINUTES + " minutes: at command " + restarted.snapshotReplicaSequence() + " of "
                        + restarted.appliedCommands());
                }
                Thread.sleep(10);
            }
            final long heap = heapAfterGc();
            final Result res = new Result(d.published, d.started, d.ended, d.leases.size(), d.preempted, d.reclaims, d.reclaimed,
                d.releasedCount, d.wall, heap, snapshotBytes, crash.tickNs, crash.tickCpuNs, crash.snapshotNs,
                crash.snapshotCpuNs, crash.snapshotCloseNs,
                crash.seconds, crash.replayed, restartSeconds, replayedOnRestart, d.batchNs, d.batchCpuNs, d.batchCpuMaxAt,
                d.queryNs, d.queryCpuNs, d.queryCpuMaxAt);
            print(res);
            writeJson(res);
            return res;
        }
    }

    /** The day itself, on a polled pipeline driven from this thread, one second of the day after the other. */
    private void runDay(final Path data, final long[] now, final ScaleDayDriver d, final long dayMs) throws Exception
    {
        final PipelineContext ctx = new PipelineContext().dataDir(data).tickIntervalMs(0)
            .clock(() -> now[0]).log(ScaleDay::logFatal).publisher(d::onEvent);
        ctx.polled(() -> { });
        final SplittableRandom random = new SplittableRandom(seed);
        // the queries' own random, so that the day is the same with and without them
        final SplittableRandom queryRandom = new SplittableRandom(seed ^ 0x9e3779b97f4a7c15L);
        final long t0 = System.nanoTime();
        try (ExchangePipeline p = ExchangePipeline.start(ctx))
        {
            d.pipeline = p;
            setup(d);
            d.drain();
            final double leasesPerMs = (double)leases / dayMs;
            double leaseDebt = 0;
            final long maxLeaseMs = maxLeaseMs(dayMs);
            for (long t = 0; t < dayMs; t += 1_000)
            {
                now[0] = START_MS + t;
                d.publish(command(CommandType.TICK));
                heartbeats(d, t);
                leaseDebt = bids(d, random, leaseDebt + leasesPerMs * 1_000, maxLeaseMs);
                reclaimNowAndThen(d, random);
                // renters release a fifth of their leases early
                while (!d.releases.isEmpty() && d.releases.peekFirst()[0] <= now[0])
                {
                    final long[] r = d.releases.pollFirst();
                    final Command c = command(CommandType.RELEASE);
                    c.leaseId = r[1];
                    c.accountId = r[2];
                    d.publish(c);
                }
                d.drain();
                d.scheduleReleases(random, now[0], maxLeaseMs);
                d.repost();
                for (int q = 0; q < portfolioQueries; q++)
                {
                    d.portfolioQuery(renterAccount(queryRandom.nextInt(renters)));
                }
                d.drain();
                d.drain();
            }
            d.wall = (System.nanoTime() - t0) / 1e9;
        }
    }

    /** By default leases long enough that the market runs near full, so that high bids preempt. */
    private long maxLeaseMs(final long dayMs)
    {
        return maxLeaseSeconds > 0 ? maxLeaseSeconds * 1_000 : Math.max(2 * HEARTBEAT_MS, dayMs / 2);
    }

    /** A fifth of the machines each second: every machine every 5 s. */
    private void heartbeats(final ScaleDayDriver d, final long t)
    {
        final long phase = (t / 1_000) % (HEARTBEAT_MS / 1_000);
        for (long m = 1 + phase; m <= machines; m += HEARTBEAT_MS / 1_000)
        {
            final Command c = command(CommandType.HEARTBEAT);
            c.machineId = m;
            d.publish(c);
        }
    }

    /** The second's bids, one for each whole lease owed; returns what is still owed. */
    private double bids(final ScaleDayDriver d, final SplittableRandom random, final double owed, final long maxLeaseMs)
    {
        double leaseDebt = owed;
        for (; leaseDebt >= 1; leaseDebt--)
        {
            final boolean preempting = random.nextInt(100) < 5;
            final Command c = command(CommandType.BID);
            c.orderId = d.nextOrder++;
            c.accountId = renterAccount(random.nextInt(renters));
            c.marketId = MARKET;
            c.gpus = preempting ? GPUS_PER_MACHINE : 1 + random.nextInt(GPUS_PER_MACHINE);
            c.price = preempting ? 2_000 : 400;
            c.tif = TimeInForce.IOC;
            c.maxDurationMs = HEARTBEAT_MS + random.nextLong(maxLeaseMs);
            d.publish(c);
        }
        return leaseDebt;
    }

    /** An owner takes back a machine now and then. */
    private void reclaimNowAndThen(final ScaleDayDriver d, final SplittableRandom random)
    {
        if (random.nextInt(10) == 0)
        {
            final long m = 1 + random.nextInt(machines);
            final long ask = d.askOfMachine.getOrDefault(m, 0L);
            if (ask != 0)
            {
                final Command c = command(CommandType.CANCEL);
                c.orderId = ask;
                c.accountId = ownerOf(m);
                c.reclaim = true;
                d.publish(c);
                d.reclaims++;
            }
        }
    }

    /** What the restart after a crash at the end of the day took. */
    private record CrashRestart(double seconds, long replayed, long tickNs, long tickCpuNs, long snapshotNs, long snapshotCpuNs,
        long snapshotCloseNs)
    {
    }

    /** A restart as after a crash at the end of the day: the last periodic snapshot, the journal after it. */
    private CrashRestart restartAfterCrash(final Path data, final long[] now) throws Exception
    {
        final long r0 = System.nanoTime();
        final double replayRestartSeconds;
        final long replayed;
        final long[] plain;
        final long[] requested;
        final long snapshotCloseNs;
        final ExchangePipeline crashed = ExchangePipeline.start(restartContext(data, now));
        try
        {
            replayRestartSeconds = (System.nanoTime() - r0) / 1e9;
            replayed = crashed.recovered().replayedCommands();
            // the snapshot replica takes a requested snapshot once it has applied the TICK the request publishes; the
            // engine thread only journals and applies the TICK. A plain TICK goes first: the first batch after the
            // restart, with this start's first journal writes and whatever leases end at this market time, so that
            // the request's batch, at the same market time, holds the request's own work
            plain = tickBatch(crashed, false);
            requested = tickBatch(crashed, true);
        }
        finally
        {
            // close waits for the replica: it loads the last periodic snapshot, replays the journal after it, then
            // serializes and writes the one requested
            final long c0 = System.nanoTime();
            crashed.close();
            snapshotCloseNs = System.nanoTime() - c0;
        }
        return new CrashRestart(replayRestartSeconds, replayed, plain[0], plain[1], requested[0], requested[1],
            snapshotCloseNs);
    }

    /**
     * Publishes a TICK (after asking for a snapshot, if {@code requestSnapshot}) and polls the batch that applies it:
     * its wall time and the engine thread's CPU time, in nanoseconds.
     */
    private long[] tickBatch(final ExchangePipeline p, final boolean requestSnapshot)
    {
        if (requestSnapshot)
        {
            p.requestSnapshot();
        }
        while (!p.tryPublish(command(CommandType.TICK)))
        {
            p.poll(batch);
        }
        final long[] wallAndCpu = new long[2];
        int applied;
        do
        {
            final long s0 = System.nanoTime();
            final long c0 = WorkProbe.Timer.threadCpuNs();
            applied = p.poll(batch);
            wallAndCpu[1] = WorkProbe.Timer.threadCpuNs() - c0;
            wallAndCpu[0] = System.nanoTime() - s0;
        }
        while (applied == 0);
        return wallAndCpu;
    }

    private static PipelineContext restartContext(final Path data, final long[] now)
    {
        return new PipelineContext().dataDir(data).tickIntervalMs(0).clock(() -> now[0])
            .log(ScaleDay::logFatal).polled(() -> { });
    }

    private void print(final Result r)
    {
        System.out.printf("scale day: %,d machines x %d GPUs, %,d renters, %,d lease bids of 5 s + up to %,d s, day " +
            "compressed %dx (%,d s of market time), batches of at most %d, seed %d%n", machines, GPUS_PER_MACHINE, renters,
            leases, maxLeaseMs(DAY_MS / compression) / 1_000, compression, DAY_MS / compression / 1_000, batch, seed);
        System.out.printf("commands %,d in %.1f s (%,.0f commands/s)%n", r.commands, r.wallSeconds,
            r.commands / r.wallSeconds);
        System.out.printf("leases started %,d, ended %,d (released %,d), live at the day's end %,d, preemption notices %,d, " +
            "reclaims %,d (reclaim notices %,d)%n", r.leasesStarted, r.leasesEnded, r.released, r.liveLeases, r.preemptions,
            r.reclaimRequests, r.reclaimNotices);
        if (portfolioQueries > 0)
        {
            System.out.printf("portfolio queries, each on the engine thread (us): %s (%,d queries)%n",
                LatencyLine.of(r.queryNs), r.queryNs.getTotalCount());
            System.out.printf("portfolio queries, the engine thread's CPU time (us): %s (the most: query %,d)%n",
                LatencyLine.of(r.queryCpuNs), r.queryCpuMaxAt);
        }
        System.out.printf("engine batch time (us): %s (%,d batches)%n", LatencyLine.of(r.batchNs),
            r.batchNs.getTotalCount());
        System.out.printf("engine batch CPU time (us): %s (the most: batch %,d)%n", LatencyLine.of(r.batchCpuNs),
            r.batchCpuMaxAt);
        System.out.printf("after the restart, a plain TICK's batch %.3f ms, %.3f ms of the engine thread's CPU%n",
            r.tickNs / 1e6, r.tickCpuNs / 1e6);
        System.out.printf("snapshot: %,d bytes; the engine thread's batch with the TICK that asked for it %.3f ms, %.3f ms " +
            "of its CPU (the replica serializes and writes it off the thread); close, waiting for the replica to load, " +
            "catch up and write it: %.2f s%n", r.snapshotBytes, r.snapshotNs / 1e6, r.snapshotCpuNs / 1e6,
            r.snapshotCloseNs / 1e9);
        System.out.printf("restart after the day: %.2f s (%,d commands replayed after the last periodic snapshot)%n",
            r.replayRestartSeconds, r.replayedAfterPeriodicSnapshot);
        System.out.printf("restart from the end-of-day snapshot: %.2f s (%,d commands replayed)%n", r.restartSeconds,
            r.replayedOnRestart);
        System.out.printf("heap used after GC, the restarted exchange holding the day (engine and snapshot replica): " +
            "%,d MiB%n", r.heapBytes >> 20);
    }

    /** The figures into the {@code --json} file, if one was asked for: wall and CPU time side by side. */
    private void writeJson(final Result r) throws IOException
    {
        final ObjectNode f = ResultFile.create();
        f.put("benchmark", "scale-day");
        f.put("cores", Runtime.getRuntime().availableProcessors());
        f.put("loadAverage", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        f.put("machines", machines).put("renters", renters).put("leases", leases).put("compression", compression)
            .put("maxLeaseSeconds", maxLeaseMs(DAY_MS / compression) / 1_000)
            .put("portfolioQueriesPerSecond", portfolioQueries).put("batch", batch).put("seed", seed);
        f.put("leasesStarted", r.leasesStarted).put("leasesEnded", r.leasesEnded).put("liveLeases", r.liveLeases);
        f.put("commands", r.commands).put("wallSeconds", r.wallSeconds).put("heapBytes", r.heapBytes)
            .put("snapshotBytes", r.snapshotBytes).put("plainTickBatchUs", r.tickNs / 1e3)
            .put("plainTickBatchCpuUs", r.tickCpuNs / 1e3).put("snapshotTickBatchUs", r.snapshotNs / 1e3)
            .put("snapshotTickBatchCpuUs", r.snapshotCpuNs / 1e3).put("snapshotCloseSeconds", r.snapshotCloseNs / 1e9)
            .put("restartAfterDaySeconds", r.replayRestartSeconds).put("replayedAfterPeriodicSnapshot", r.replayedAfterPeriodicSnapshot)
            .put("restartFromSnapshotSeconds", r.restartSeconds);
        ResultFile.latency(f, "batchUs", r.batchNs);
        ResultFile.latency(f, "batchCpuUs", r.batchCpuNs).put("maxAtBatch", r.batchCpuMaxAt);
        ResultFile.latency(f, "portfolioQueryUs", r.queryNs);
        ResultFile.latency(f, "portfolioQueryCpuUs", r.queryCpuNs).put("maxAtQuery", r.queryCpuMaxAt);
        ResultFile.write(json, f);
    }

    private void setup(final ScaleDayDriver d)
    {
        Command c = command(CommandType.MARKET);
        c.marketId = MARKET;
        c.name = "SCALE-GPU";
        c.graceMs = HEARTBEAT_MS;
        d.publish(c);
        for (int o = 0; o * MACHINES_PER_OWNER < machines; o++)
        {
            d.publish(account(ownerAccount(o), "owner" + o, Roles.OWNER));
        }
        for (int r = 0; r < renters; r++)
        {
            final long id = renterAccount(r);
            d.publish(account(id, "renter" + r, Roles.RENTER));
            c = command(CommandType.DEPOSIT);
            c.accountId = id;
            c.amount = 1_000_000_000_000L;
            d.publish(c);
        }
        final SplittableRandom random = new SplittableRandom(seed ^ 0x5ca1e);
        for (long m = 1; m <= machines; m++)
        {
            c = command(CommandType.MACHINE);
            c.machineId = m;
            c.name = "m" + m;
            c.accountId = ownerOf(m);
            c.marketId = MARKET;
            c.gpus = GPUS_PER_MACHINE;
            d.publish(c);
            c = command(CommandType.HEARTBEAT);
            c.machineId = m;
            d.publish(c);
            d.ask(m, GPUS_PER_MACHINE, 100 + random.nextInt(100));
        }
    }

    static long ownerAccount(final int o)
    {
        return 1 + o;
    }

    static long ownerOf(final long machine)
    {
        return ownerAccount((int)((machine - 1) / MACHINES_PER_OWNER));
    }

    static long renterAccount(final int r)
    {
        return 1_000_000 + r;
    }

    static Command command(final CommandType type)
    {
        return new Command().reset(type, 0);
    }

    private static Command account(final long id, final String name, final int roles)
    {
        final Command c = command(CommandType.ACCOUNT);
        c.accountId = id;
        c.name = name;
        c.roles = roles;
        return c;
    }

    private static long heapAfterGc()
    {
        for (int i = 0; i < 3; i++)
        {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static long newestSnapshot(final Path dir) throws IOException
    {
        if (!Files.exists(dir))
        {
            return 0;
        }
        try (Stream<Path> s = Files.list(dir))
        {
            // named by command sequence, zero-padded: the greatest name is the newest
            return s.filter(p -> p.getFileName().toString().endsWith(".snap")).max(java.util.Comparator.naturalOrder())
                .map(p -> p.toFile().length()).orElse(0L);
        }
    }

    private static void logFatal(final String message)
    {
        if (message.startsWith("FATAL"))
        {
            System.err.println(message);
        }
    }

    private static void delete(final Path dir) throws IOException
    {
        try (Stream<Path> s = Files.walk(dir))
        {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
