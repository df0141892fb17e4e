package io.gpux.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * Prints what each workload is made of (command mix, events per pass, generator notes) and a rough
 * single-shot throughput (not a benchmark; use JMH for numbers):
 * {@code java -cp benchmarks/target/benchmarks.jar io.gpux.bench.WorkloadStats [lobster|synthetic|gpu] [seconds]}.
 */
public final class WorkloadStats
{
    private WorkloadStats()
    {
    }

    /** The feeding cost alone: decoding the packed pass into the flyweight, without applying it. */
    private static void decodeOnly(final Workload w)
    {
        final io.gpux.engine.command.Command c = new io.gpux.engine.command.Command();
        final CommandCodec.Decoder d = new CommandCodec.Decoder(c);
        final long[] p = w.packedPass;
        long sink = 0;
        long best = Long.MAX_VALUE;
        for (int round = 0; round < 50; round++)
        {
            final long t0 = System.nanoTime();
            int pos = 0;
            while (pos < p.length)
            {
                pos = d.decode(p, pos, round, round);
                sink += c.orderId + c.timeMs + c.type.ordinal();
            }
            best = Math.min(best, System.nanoTime() - t0);
        }
        System.out.printf("  decode only: %.1f ns per command (best of 50 passes; %d)%n", (double)best / w.pass.length, sink & 1);
    }

    public static void main(final String[] args)
    {
        final String which = args.length > 0 ? args[0] : "all";
        final double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 3;
        final List<Workload> workloads = new ArrayList<>();
        if (which.equals("all") || which.equals("lobster"))
        {
            workloads.add(LobsterWorkload.get(DataFiles.find(System.getProperty("lobsterZip", ""), DataFiles.GOOG_10)));
        }
        if (which.equals("all") || which.equals("synthetic"))
        {
            workloads.add(SyntheticWorkload.get());
        }
        if (which.equals("all") || which.equals("gpu"))
        {
            workloads.add(GpuMixWorkload.get());
        }
        for (final Workload w : workloads)
        {
            System.out.println(w.summary());
            System.out.println("  mix: " + w.mix());
            System.out.println("  notes: " + w.notes);
            decodeOnly(w);
            final Replayer r = new Replayer(w);
            if (Boolean.getBoolean("promote"))
            {
                System.gc();
            }
            final java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
            final long end = System.nanoTime() + (long)(seconds * 1e9);
            long commands = 0;
            long start = System.nanoTime();
            long cpuStart = mx.getCurrentThreadCpuTime();
            boolean warm = false;
            while (true)
            {
                r.run(EngineBenchmark.BATCH);
                commands += EngineBenchmark.BATCH;
                final long now = System.nanoTime();
                if (!warm && now > start + (end - start) / 3)
                {
                    warm = true;
                    commands = 0;
                    start = now;
                    cpuStart = mx.getCurrentThreadCpuTime();
                }
                if (now > end)
                {
                    final long cpu = mx.getCurrentThreadCpuTime() - cpuStart;
                    System.out.printf("  rough: %.2f M commands/s wall, %.2f M commands per CPU-second, over %d passes%n",
                        commands * 1e3 / (now - start), commands * 1e3 / cpu, r.passes());
                    break;
                }
            }
        }
    }
}
