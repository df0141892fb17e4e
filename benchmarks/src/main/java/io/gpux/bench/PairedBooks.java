package io.gpux.bench;

import io.gpux.bench.suite.BenchSuite;
import io.gpux.bench.suite.Child;
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
import java.util.Map;
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
 *   ./gpux bench-paired [--flow synthetic|lobster] [--rounds 40] [--warmup-rounds 15] [--slice-ms 100] [--impl naive] [--forks N]
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
 *
 * <p>{@code --forks N} runs all of it in N JVMs, one after the other, each with this JVM's flags, and then prints each
 * JVM's ratio, their median and range, and in how many gpux was ahead (and the same of the A/B with {@code --against}).
 * One JVM is one draw: where the collector puts each side's objects, and so each side's speed, changes from one JVM
 * to the next (gpux's engine under G1 ran at 10.5-12.2 M flow commands/s in ten JVMs, exchange-core's book at 7-9 M or
 * 10-12 M), while within a JVM it stays put.
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

    @Option(names = "--forks", description = "JVMs to run it in, one after the other, each with this JVM's flags: each " +
        "one's figures, then the median and range of their ratios and in how many gpux was ahead (default ${DEFAULT-VALUE}: " +
        "this JVM only)")
    int forks = 1;

    private Class<?> otherSlices;

    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new PairedBooks()).execute(args));
    }

    @Override
    public Integer call() throws Exception
    {
        if (rounds < 1 || warmupRounds < 0 || sliceMs < 1 || forks < 1)
        {
            throw new CommandLine.ParameterException(new CommandLine(this),
                "--rounds and --forks must be at least 1, --warmup-rounds at least 0, --slice-ms at least 1");
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
        if (forks > 1)
        {
            return runForks();
        }
        run();
        return 0;
    }

    /** The whole run in {@link #forks} JVMs of its own, one after the other; then what their ratios say together. */
    private int runForks()
    {
        final List<String> args = new ArrayList<>(List.of("--flow", flow, "--flow-dir", flowDir, "--xc-cp", xcClasspath,
            "--impl", impl, "--rounds", Integer.toString(rounds), "--warmup-rounds", Integer.toString(warmupRounds),
            "--slice-ms", Long.toString(sliceMs)));
        if (against != null)
        {
            args.addAll(List.of("--against", against.toString()));
        }
        final double[] ratio = new double[forks];
        final double[] ab = new double[forks];
        for (int f = 0; f < forks; f++)
        {
            System.out.printf("=== JVM %d of %d%n", f + 1, forks);
            final Child c = Child.run(System.getProperty("java.class.path"), PairedBooks.class.getName(), args);
            final Map<String, String> r = c.resultWith("ratio");
            final Map<String, String> a = c.resultWith("abRatio");
            if (c.exit() != 0 || r == null || (against != null && a == null))
            {
                System.out.printf("JVM %d of %d failed (exit %d): no figures from it%n", f + 1, forks, c.exit());
                return 1;
            }
            ratio[f] = Double.parseDouble(r.get("ratio"));
            ab[f] = a == null ? Double.NaN : Double.parseDouble(a.get("abRatio"));
        }
        final Spread s = Spread.of(ratio);
        System.out.printf(Locale.ROOT, "  ratio gpux / exchange-core %s, %s, one median of %d rounds a JVM: %s; over the %d JVMs " +
            "median %.3f (%.3f-%.3f), gpux ahead in %d of %d%n", impl, flow, rounds, s.list(), forks, s.median(), s.min(),
            s.max(), s.above(), forks);
        System.out.printf(Locale.ROOT, "RESULT forks=%d flow=%s impl=%s ratioMedian=%.4f ratioMin=%.4f ratioMax=%.4f ahead=%d " +
            "ratios=%s%n", forks, flow, impl, s.median(), s.min(), s.max(), s.above(), join(ratio, "%.4f", ";"));
        if (against != null)
        {
            final Spread b = Spread.of(ab);
            System.out.printf(Locale.ROOT, "  ratio this gpux build / the one of %s, %s, a JVM each: %s; over the %d JVMs median " +
                "%.3f (%.3f-%.3f), this build faster in %d of %d%n", against, flow, b.list(), forks, b.median(), b.min(),
                b.max(), b.above(), forks);
            System.out.printf(Locale.ROOT, "RESULT forks=%d flow=%s abMedian=%.4f abMin=%.4f abMax=%.4f faster=%d abRatios=%s%n",
                forks, flow, b.median(), b.min(), b.max(), b.above(), join(ab, "%.4f", ";"));
        }
        return 0;
    }

    /**
     * Ratios from several JVMs taken together: their median (the nearest rank, as {@link #quartiles}), range, and how
     * many are above 1.
     */
    record Spread(double median, double min, double max, int above, String list)
    {
        static Spread of(final double[] ratios)
        {
            final double[] sorted = ratios.clone();
            Arrays.sort(sorted);
            int above = 0;
            for (final double r : ratios)
            {
                if (r > 1)
                {
                    above++;
                }
            }
            return new Spread(quartiles(ratios)[1], sorted[0], sorted[sorted.length - 1], above, join(ratios, "%.3f", ", "));
        }
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
                "runs=%s%n", keys[s], flow, impl, q[1], q[0], q[2], qc[1], rounds, join(wall[s], "%.0f", ";"));
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
    public static double[] quartiles(final double[] values)
    {
        final double[] s = values.clone();
        Arrays.sort(s);
        final int last = s.length - 1;
        return new double[] {s[(int)Math.round(0.25 * last)], s[(int)Math.round(0.5 * last)], s[(int)Math.round(0.75 * last)]};
    }

    /** The values, each formatted, with the separator between them. */
    private static String join(final double[] v, final String format, final String separator)
    {
        final StringBuilder sb = new StringBuilder();
        for (final double d : v)
        {
            sb.append(sb.length() == 0 ? "" : separator).append(String.format(Locale.ROOT, format, d));
        }
        return sb.toString();
    }
}
