package io.gpux.bench.platform;

import io.gpux.bench.ResultFile;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import picocli.CommandLine;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * The machine's own floor under every latency the other benchmarks measure: threads that do nothing but
 * read the clock, as the exchange's and a bot's spinning loops do, and record every gap between two
 * consecutive readings. A gap is time the thread did not run: a timer tick, an interrupt, the hypervisor
 * taking the virtual CPU, another thread (of this JVM, of the kernel, of any process) scheduled in its
 * place, a safepoint. Whatever a spinning loop does, a message that arrives during a gap waits for its end.
 *
 * <p>From the gaps follows, exactly, what an event arriving at a uniformly random moment waits before the
 * thread runs again: it lands in a gap of length g with probability (count of g) * g / elapsed, and then
 * waits a uniform part of g. Those percentiles are printed in the format of the other latency benchmarks.
 * A round trip through the exchange crosses at least two spinning threads (the client's and the
 * exchange's), so its tail sits at least this high, whatever the software.
 *
 * <p>With {@code --cpu-time} it also reads the thread's CPU time at every turn and says how much of each gap of 1 ms
 * or more the system charged to the thread as CPU time it ran: on a virtual machine whose host does not report the
 * time it takes (no steal time) such a gap is counted as the thread's own CPU time, so a unit of work timed by the
 * thread's CPU time can read a millisecond it never ran.
 *
 * <p>Like jHiccup, but spinning rather than sleeping: a sleeping probe measures the wake-up path, which
 * the exchange's hot loops do not take.
 */
@CommandLine.Command(name = "bench-hiccups", mixinStandardHelpOptions = true,
    description = "Measures the gaps in spinning threads: the machine's floor under every latency")
public final class HiccupMeter implements Callable<Integer>
{
    @Option(names = "--json", description = "also write the figures to this JSON file (what ./gpux bench reads)")
    Path json;

    @Option(names = "--threads", description = "spinning threads, at once (default ${DEFAULT-VALUE}; 2 on a 2-core " +
        "machine: every core busy, as with a spinning exchange and a spinning bot)")
    int threads = 1;

    @Option(names = "--seconds", description = "measured seconds (default ${DEFAULT-VALUE})")
    int seconds = 10;

    @Option(names = "--warmup", description = "seconds of spinning before measuring, for the JIT (default ${DEFAULT-VALUE})")
    int warmup = 1;

    @Option(names = "--cpu-time", description = "also read the thread's CPU time at every turn of the loop (each " +
        "turn is then slower: gaps count from 10 us) and say how much of each gap of 1 ms or more the thread was " +
        "charged as its own CPU time: time it never ran its code, which the system still counts as the thread's")
    boolean cpuTime;

    @Option(names = "--threshold-ns", description = "shorter gaps count as running: the loop's own iteration " +
        "(default ${DEFAULT-VALUE})")
    long thresholdNs = 1_000;

    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new HiccupMeter()).execute(args));
    }

    /** One spinning thread's gaps. */
    static final class Probe implements Runnable
    {
        static final long LONG_GAP_NS = 1_000_000;
        static final long CPU_TIME_TURN_NS = 10_000;
        final Histogram gaps = new Histogram(3_600_000_000_000L, 3);
        private final long thresholdNs;
        private final long warmupNs;
        private final long measureNs;
        private final boolean cpuTime;
        long elapsedNs;
        long lostNs;
        /** With the CPU time read: the gaps of 1 ms or more, their length, and what the thread was charged in them. */
        long longGaps;
        long longGapNs;
        long longGapCpuNs;
        /** Of those gaps, the ones charged at least 90 % as the thread's own CPU time. */
        long longGapsCharged;
        long longestChargedNs;

        Probe(final long thresholdNs, final long warmupNs, final long measureNs)
        {
            this(thresholdNs, warmupNs, measureNs, false);
        }

        Probe(final long thresholdNs, final long warmupNs, final long measureNs, final boolean cpuTime)
        {
            // reading the CPU time makes each turn of the loop a system call: a turn under 10 us counts as running
            this.thresholdNs = cpuTime ? Math.max(thresholdNs, CPU_TIME_TURN_NS) : thresholdNs;
            this.warmupNs = warmupNs;
            this.measureNs = measureNs;
            this.cpuTime = cpuTime;
        }

        @Override
        public void run()
        {
            spin(System.nanoTime() + warmupNs, false);
            final long start = System.nanoTime();
            spin(start + measureNs, true);
            elapsedNs = System.nanoTime() - start;
        }

        private void spin(final long until, final boolean record)
        {
            if (cpuTime)
            {
                spinReadingCpuTime(until, record);
                return;
            }
            long last = System.nanoTime();
            while (last < until)
            {
                final long now = System.nanoTime();
                final long gap = now - last;
                if (gap >= thresholdNs && record)
                {
                    gaps.recordValue(gap);
                    lostNs += gap;
                }
                last = now;
            }
        }

        private void spinReadingCpuTime(final long until, final boolean record)
        {
            final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            long last = System.nanoTime();
            long lastCpu = mx.getCurrentThreadCpuTime();
            while (last < until)
            {
                final long now = System.nanoTime();
                final long cpu = mx.getCurrentThreadCpuTime();
                final long gap = now - last;
                if (gap >= thresholdNs && record)
                {
                    gaps.recordValue(gap);
                    lostNs += gap;
                    if (gap >= LONG_GAP_NS)
                    {
                        charged(gap, cpu - lastCpu);
                    }
                }
                last = now;
                lastCpu = cpu;
            }
        }

        void charged(final long gapNs, final long cpuNs)
        {
            longGaps++;
            longGapNs += gapNs;
            longGapCpuNs += cpuNs;
            if (cpuNs * 10 >= gapNs * 9)
            {
                longGapsCharged++;
                longestChargedNs = Math.max(longestChargedNs, gapNs);
            }
        }
    }

    @Override
    public Integer call() throws Exception
    {
        System.out.printf("hiccups: %d spinning thread(s) on %d CPU(s), %d s warm-up + %d s measured, gaps from %,d ns%n",
            threads, Runtime.getRuntime().availableProcessors(), warmup, seconds,
            cpuTime ? Math.max(thresholdNs, Probe.CPU_TIME_TURN_NS) : thresholdNs);
        final List<Probe> probes = new ArrayList<>();
        final List<Thread> running = new ArrayList<>();
        for (int i = 0; i < threads; i++)
        {
            final Probe p = new Probe(thresholdNs, warmup * 1_000_000_000L, seconds * 1_000_000_000L, cpuTime);
            final Thread t = new Thread(p, "hiccup-" + i);
            probes.add(p);
            running.add(t);
        }
        running.forEach(Thread::start);
        for (final Thread t : running)
        {
            t.join();
        }
        final ObjectNode figures = ResultFile.create();
        final var threadFigures = figures.putArray("threads");
        for (int i = 0; i < threads; i++)
        {
            final Probe p = probes.get(i);
            final double s = p.elapsedNs / 1e9;
            System.out.printf("thread %d: did not run for %.1f ms of %.1f s (%.2f %%); gaps a second: %.0f of 10 us or more, " +
                "%.1f of 100 us or more, %.2f of 1 ms or more; longest %.2f ms%n", i, p.lostNs / 1e6, s,
                100.0 * p.lostNs / p.elapsedNs, atLeast(p.gaps, 10_000) / s, atLeast(p.gaps, 100_000) / s,
                atLeast(p.gaps, 1_000_000) / s, p.gaps.getMaxValue() / 1e6);
            final double[] q = {50, 90, 99, 99.9, 99.99};
            final double[] w = new double[q.length];
            for (int k = 0; k < q.length; k++)
            {
                w[k] = randomArrivalWait(p.gaps, p.elapsedNs, q[k] / 100) / 1e3;
            }
            System.out.printf("thread %d: an event arriving at a random moment waits, us (%,d measured gaps): p50 %.1f  " +
                "p90 %.1f  p99 %.1f  p99.9 %.1f  p99.99 %.1f  max %.1f%n", i, p.gaps.getTotalCount(), w[0], w[1], w[2],
                w[3], w[4], p.gaps.getMaxValue() / 1e3);
            if (cpuTime)
            {
                System.out.printf("thread %d: gaps of 1 ms or more: %d, %.1f ms in all, %.1f ms of it counted as the thread's " +
                    "CPU time; %d of them counted at least 90 %% as its CPU time, the longest %.2f ms%n", i, p.longGaps,
                    p.longGapNs / 1e6, p.longGapCpuNs / 1e6, p.longGapsCharged, p.longestChargedNs / 1e6);
            }
            final ObjectNode t = threadFigures.addObject();
            if (cpuTime)
            {
                t.put("gaps1ms", p.longGaps).put("gaps1msMs", p.longGapNs / 1e6).put("gaps1msCpuMs", p.longGapCpuNs / 1e6)
                    .put("gaps1msChargedAsCpu", p.longGapsCharged).put("longestChargedMs", p.longestChargedNs / 1e6);
            }
            t.put("thread", i);
            t.put("lostPercent", 100.0 * p.lostNs / p.elapsedNs);
            t.put("gaps10usPerSecond", atLeast(p.gaps, 10_000) / s);
            t.put("gaps100usPerSecond", atLeast(p.gaps, 100_000) / s);
            t.put("gaps1msPerSecond", atLeast(p.gaps, 1_000_000) / s);
            final ObjectNode wait = t.putObject("randomArrivalWait");
            final String[] keys = {"p50", "p90", "p99", "p99.9", "p99.99"};
            for (int k = 0; k < keys.length; k++)
            {
                wait.put(keys[k], w[k]);
            }
            wait.put("max", p.gaps.getMaxValue() / 1e3);
            wait.put("count", p.gaps.getTotalCount());
        }
        ResultFile.write(json, figures);
        return 0;
    }

    static long atLeast(final Histogram h, final long ns)
    {
        long n = 0;
        for (final HistogramIterationValue v : h.recordedValues())
        {
            if (h.highestEquivalentValue(v.getValueIteratedTo()) >= ns)
            {
                n += v.getCountAtValueIteratedTo();
            }
        }
        return n;
    }

    /**
     * The {@code quantile} of the wait of an event arriving at a uniformly random moment of {@code elapsedNs}
     * while the thread had the given gaps: P(wait > w) is the sum over gaps g of count(g) * max(0, g - w) /
     * elapsed, which falls as w grows; the answer is the least w where it is at most 1 - quantile (0 when
     * the thread ran at least that share of the time).
     */
    static double randomArrivalWait(final Histogram gaps, final long elapsedNs, final double quantile)
    {
        final List<long[]> g = new ArrayList<>();
        for (final HistogramIterationValue v : gaps.recordedValues())
        {
            g.add(new long[] {gaps.medianEquivalentValue(v.getValueIteratedTo()), v.getCountAtValueIteratedTo()});
        }
        final double target = (1 - quantile) * elapsedNs;
        double lo = 0;
        double hi = gaps.getMaxValue();
        if (exceeding(g, 0) <= target)
        {
            return 0;
        }
        for (int i = 0; i < 100; i++)
        {
            final double mid = (lo + hi) / 2;
            if (exceeding(g, mid) > target)
            {
                lo = mid;
            }
            else
            {
                hi = mid;
            }
        }
        return hi;
    }

    /** The sum over gaps of count * max(0, length - w): elapsed time times P(wait > w). */
    private static double exceeding(final List<long[]> gaps, final double w)
    {
        double sum = 0;
        for (final long[] g : gaps)
        {
            if (g[0] > w)
            {
                sum += g[1] * (g[0] - w);
            }
        }
        return sum;
    }
}
