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
 *       [--against OTHER-BUILD/benchmarks/target/benchmarks.jar]
 *   java FLAGS -cp benchmarks/target/benchmarks.jar io.gpux.bench.PairedBooks --flow synthetic \
 *       [--xc-cp benchmarks-exchange-core/target/benchmarks-exchange-core.jar] [--flow-dir DIR]
 * </pre>
 *
 * <p>Prints each side's flow commands per second (median and quartiles over the rounds, wall clock and per
 * CPU-second of the thread), the ratio gpux / exchange-core (median and quartiles of the rounds' ratios), and
 * {@code RESULT} lines for {@code ./gpux bench}. Both sides check their work at the end (every command accepted or
 * succeeded, the flow's trades each pass).
 *
 * <p>{@code --against OTHER/benchmarks/target/benchmarks.jar} adds a third side: another gpux build (its
 * {@link GpuxSlices}), in a class loader of its own, and prints this build / that build as well. That is the A/B
 * of two engine builds this project measures its changes with: exchange-core's garbage in the JVM brings young
 * collections, as the gateway's does in the server, and a host slow phase slows all three sides of a round. The
 * same jar against itself gives about 1.00, quartiles within 2-3 %.
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

    @Option(names = "--against", paramLabel = "JAR", description = "another gpux build's benchmarks jar " +
        "(benchmarks/target/benchmarks.jar of a build from the commit that added this option on): a third side, in a " +
        "class loader of its own; also prints this build / that build, an A/B of two engines with exchange-core's " +
        "garbage in the JVM as in the two-sided run")
    Path against;

    private Class<?> otherSlices;

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
        if (against != null)
        {
            otherSlices = otherGpuxSlices();
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
        final GpuxSlices gpuxFlow = GpuxSlices.of(flow, flowDir);
        final List<Side> list = new ArrayList<>();
        list.add(new Side("gpux engine", gpuxFlow, gpuxFlow));
        list.add(exchangeCore());
        if (against != null)
        {
            list.add(otherGpux());
        }
        final Side[] sides = list.toArray(new Side[0]);
        final int n = sides.length;
        System.out.printf("paired: %s flow, gpux engine and exchange-core OrderBook%sImpl%s in one JVM, %d rounds of %d ms a " +
            "side after %d warm-up rounds%n", flow, impl.equals("naive") ? "Naive" : "Direct",
            against == null ? "" : " and the gpux build of " + against, rounds, sliceMs, warmupRounds);

        final double[][] wall = new double[n][rounds];
        final double[][] cpu = new double[n][rounds];
        final long sliceNs = sliceMs * 1_000_000L;
        for (int r = -warmupRounds; r < rounds; r++)
        {
            for (int k = 0; k < n; k++)
            {
                // who goes first alternates: forwards in even rounds, backwards in odd ones
                final int s = (r & 1) == 0 ? k : n - 1 - k;
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

        final String[] keys = {"gpux", "xc", "against"};
        for (int s = 0; s < n; s++)
        {
            final double[] q = quartiles(wall[s]);
            final double[] qc = quartiles(cpu[s]);
            System.out.printf(Locale.ROOT, "  %-40s median %,.0f flow commands/s (quartiles %,.0f-%,.0f), per CPU-second %,.0f%n",
                sides[s].name() + (s == 1 ? " " + impl : ""), q[1], q[0], q[2], qc[1]);
            System.out.printf(Locale.ROOT, "RESULT side=%s flow=%s impl=%s median=%.1f q1=%.1f q3=%.1f cpuMedian=%.1f rounds=%d " +
                "runs=%s%n", keys[s], flow, impl, q[1], q[0], q[2], qc[1], rounds, join(wall[s]));
        }
        final double[] q = quartiles(ratios(wall[0], wall[1]));
        System.out.printf(Locale.ROOT, "  ratio gpux / exchange-core %s, %s: median of %d rounds %.3f (quartiles %.3f-%.3f)%n",
            impl, flow, rounds, q[1], q[0], q[2]);
        System.out.printf(Locale.ROOT, "RESULT ratio=%.4f flow=%s impl=%s q1=%.4f q3=%.4f rounds=%d%n", q[1], flow, impl, q[0],
            q[2], rounds);
        if (against != null)
        {
            final double[] ab = quartiles(ratios(wall[0], wall[2]));
            System.out.printf(Locale.ROOT, "  ratio this gpux build / the one of %s, %s: median of %d rounds %.3f (quartiles " +
                "%.3f-%.3f); > 1: this build is faster%n", against, flow, rounds, ab[1], ab[0], ab[2]);
            System.out.printf(Locale.ROOT, "RESULT abRatio=%.4f flow=%s q1=%.4f q3=%.4f rounds=%d%n", ab[1], flow, ab[0], ab[2],
                rounds);
        }
    }

    /** Per-round ratios a[r] / b[r]. */
    static double[] ratios(final double[] a, final double[] b)
    {
        final double[] r = new double[a.length];
        for (int i = 0; i < a.length; i++)
        {
            r[i] = a[i] / b[i];
        }
        return r;
    }

    /** The other gpux build's {@link GpuxSlices}: its benchmarks jar in a class loader whose parent is the platform loader. */
    private Class<?> otherGpuxSlices() throws Exception
    {
        if (!Files.isRegularFile(against))
        {
            throw new CommandLine.ParameterException(new CommandLine(this), "--against " + against + ": no such file");
        }
        final URLClassLoader loader = new URLClassLoader(new URL[] {against.toUri().toURL()},
            ClassLoader.getPlatformClassLoader());
        try
        {
            return loader.loadClass(GpuxSlices.class.getName());
        }
        catch (final ClassNotFoundException e)
        {
            throw new CommandLine.ParameterException(new CommandLine(this), "--against " + against + ": no " +
                GpuxSlices.class.getName() + " in it (not a gpux benchmarks jar, or one built before --against)");
        }
    }

    private Side otherGpux() throws Exception
    {
        final Object other = otherSlices.getMethod("of", String.class, String.class).invoke(null, flow, flowDir);
        return new Side("gpux engine of " + against.getFileName(), (IntToLongFunction)other, (Runnable)other);
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
