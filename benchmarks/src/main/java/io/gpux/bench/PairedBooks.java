package io.gpux.bench;

import io.gpux.bench.suite.BenchSuite;
import picocli.CommandLine;
import picocli.CommandLine.Option;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.IntToLongFunction;

/**
 * The order book comparison paired: gpux's engine ({@link OrderBookBenchmark}'s work) and exchange-core's book (its
 * {@code io.gpux.bench.xc.BookSlices}, loaded from {@code --xc-cp} in a class loader of its own, so its old
 * Chronicle never meets gpux's) in one JVM, on one thread, taking turns: in each round each side replays the
 * same flow for one slice ({@code --slice-ms}), who goes first alternating. Whatever slows the machine for a while
 * (another virtual machine on the host, whose effect on a memory-bound loop here is 25-30 % for seconds at a time)
 * then slows both sides of a round alike, and the median of the per-round ratios stays put where two benchmarks
 * run one after the other do not (their ratio moved between 0.83 and 1.31 over this project's runs on one build).
 *
 * <pre>
 *   ./gpux bench-paired [--flow synthetic|lobster] [--rounds 40] [--warmup-rounds 15] [--slice-ms 100] [--impl naive]
 *   java FLAGS -cp benchmarks/target/benchmarks.jar io.gpux.bench.PairedBooks --flow synthetic \
 *       [--xc-cp benchmarks-exchange-core/target/benchmarks-exchange-core.jar] [--flow-dir DIR]
 * </pre>
 *
 * <p>Prints each side's flow commands per second (median and quartiles over the rounds, wall clock and per
 * CPU-second of the thread), the ratio gpux / exchange-core (median and quartiles of the rounds' ratios), and
 * {@code RESULT} lines for {@code ./gpux bench}. Both sides check their work at the end (every command accepted or
 * succeeded, the flow's trades each pass).
 */
@CommandLine.Command(name = "bench-paired", mixinStandardHelpOptions = true,
    description = "gpux's engine and exchange-core's order book in one JVM, taking turns on one order flow")
public final class PairedBooks implements Callable<Integer>
{
    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

    @Option(names = "--flow", description = "order flow: synthetic or lobster (default ${DEFAULT-VALUE})")
    String flow = "synthetic";

    @Option(names = "--flow-dir", description = "directory of the flow files (default: benchmarks/target/flows under " +
        "the project root, generated if absent)")
    String flowDir = "";

    @Option(names = "--xc-cp", description = "exchange-core's side: its classpath (default: " + BenchSuite.XC_JAR +
        " under the project root)")
    String xcClasspath;

    @Option(names = "--impl", description = "exchange-core's book: direct or naive (default ${DEFAULT-VALUE})")
    String impl = "direct";

    @Option(names = "--rounds", description = "measured rounds, a ratio each (default ${DEFAULT-VALUE})")
    int rounds = 40;

    @Option(names = "--warmup-rounds", description = "rounds not measured (default ${DEFAULT-VALUE})")
    int warmupRounds = 15;

    @Option(names = "--slice-ms", description = "how long each side replays the flow in a round (default ${DEFAULT-VALUE})")
    long sliceMs = 100;

    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new PairedBooks()).execute(args));
    }

    @Override
    public Integer call() throws Exception
    {
        if (rounds < 1 || warmupRounds < 0 || sliceMs < 1)
        {
            throw new CommandLine.ParameterException(new CommandLine(this),
                "--rounds must be at least 1, --warmup-rounds at least 0, --slice-ms at least 1");
        }
        if (xcClasspath == null)
        {
            xcClasspath = BenchSuite.projectRoot().resolve(BenchSuite.XC_JAR).toString();
        }
        // both sides read one file: written first if absent, as ./gpux bench does
        final Path file = OrderFlows.file(flow, flowDir);
        if (!Files.isRegularFile(file))
        {
            Files.createDirectories(file.getParent());
            OrderFlows.export(flow, file.getParent(), "");
        }
        flowDir = file.getParent().toString();
        run();
        return 0;
    }

    /** One side: replays n flow commands a call; a check of its work. */
    record Side(String name, IntToLongFunction book, Runnable check)
    {
    }

    private void run() throws Exception
    {
        final OrderBookBenchmark.Flow gpuxFlow = new OrderBookBenchmark.Flow();
        gpuxFlow.flow = flow;
        gpuxFlow.flowDir = flowDir;
        gpuxFlow.setup();
        final Side gpux = new Side("gpux engine", n -> gpuxFlow.run(n), () -> gpuxFlow.replayer.checkNoDrift());
        final Side xc = exchangeCore();
        final Side[] sides = {gpux, xc};
        System.out.printf("paired: %s flow, gpux engine and exchange-core OrderBook%sImpl in one JVM, %d rounds of %d ms a " +
            "side after %d warm-up rounds%n", flow, impl.equals("naive") ? "Naive" : "Direct", rounds, sliceMs, warmupRounds);

        final double[][] wall = new double[2][rounds];
        final double[][] cpu = new double[2][rounds];
        final long sliceNs = sliceMs * 1_000_000L;
        for (int r = -warmupRounds; r < rounds; r++)
        {
            for (int k = 0; k < 2; k++)
            {
                final int s = (r & 1) == 0 ? k : 1 - k;
                final IntToLongFunction book = sides[s].book();
                long commands = 0;
                final long cpu0 = CPU.getCurrentThreadCpuTime();
                final long t0 = System.nanoTime();
                long t;
                do
                {
                    book.applyAsLong(OrderBookBenchmark.BATCH);
                    commands += OrderBookBenchmark.BATCH;
                    t = System.nanoTime() - t0;
                }
                while (t < sliceNs);
                final long c = CPU.getCurrentThreadCpuTime() - cpu0;
                if (r >= 0)
                {
                    wall[s][r] = commands * 1e9 / t;
                    cpu[s][r] = c > 0 ? commands * 1e9 / c : Double.NaN;
                }
            }
        }
        for (final Side s : sides)
        {
            s.check().run();
        }

        final double[] ratios = new double[rounds];
        for (int r = 0; r < rounds; r++)
        {
            ratios[r] = wall[0][r] / wall[1][r];
        }
        for (int s = 0; s < 2; s++)
        {
            final double[] q = quartiles(wall[s]);
            final double[] qc = quartiles(cpu[s]);
            System.out.printf(Locale.ROOT, "  %-40s median %,.0f flow commands/s (quartiles %,.0f-%,.0f), per CPU-second %,.0f%n",
                sides[s].name() + (s == 1 ? " " + impl : ""), q[1], q[0], q[2], qc[1]);
            System.out.printf(Locale.ROOT, "RESULT side=%s flow=%s impl=%s median=%.1f q1=%.1f q3=%.1f cpuMedian=%.1f rounds=%d " +
                "runs=%s%n", s == 0 ? "gpux" : "xc", flow, impl, q[1], q[0], q[2], qc[1], rounds, join(wall[s]));
        }
        final double[] q = quartiles(ratios);
        System.out.printf(Locale.ROOT, "  ratio gpux / exchange-core %s, %s: median of %d rounds %.3f (quartiles %.3f-%.3f)%n",
            impl, flow, rounds, q[1], q[0], q[2]);
        System.out.printf(Locale.ROOT, "RESULT ratio=%.4f flow=%s impl=%s q1=%.4f q3=%.4f rounds=%d%n", q[1], flow, impl, q[0],
            q[2], rounds);
    }

    private Side exchangeCore() throws Exception
    {
        final List<URL> urls = new ArrayList<>();
        for (final String entry : xcClasspath.split(File.pathSeparator))
        {
            if (!entry.isBlank())
            {
                urls.add(Path.of(entry).toUri().toURL());
            }
        }
        // parent: the platform loader, so nothing of gpux's classpath (its Chronicle, Agrona, ...) is visible
        final URLClassLoader loader = new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
        final Object slices = loader.loadClass("io.gpux.bench.xc.BookSlices")
            .getMethod("of", String.class, String.class, String.class).invoke(null, flow, flowDir, impl);
        return new Side("exchange-core", (IntToLongFunction)slices, (Runnable)slices);
    }

    /** First quartile, median, third quartile (the nearest ranks). */
    static double[] quartiles(final double[] values)
    {
        final double[] s = values.clone();
        Arrays.sort(s);
        final int last = s.length - 1;
        return new double[] {s[(int)Math.round(0.25 * last)], s[(int)Math.round(0.5 * last)], s[(int)Math.round(0.75 * last)]};
    }

    private static String join(final double[] v)
    {
        final StringBuilder sb = new StringBuilder();
        for (final double d : v)
        {
            sb.append(sb.length() == 0 ? "" : ";").append(String.format(Locale.ROOT, "%.0f", d));
        }
        return sb.toString();
    }
}
