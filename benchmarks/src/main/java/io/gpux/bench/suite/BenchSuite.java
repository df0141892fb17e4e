package io.gpux.bench.suite;

import io.gpux.bench.OrderFlows;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every benchmark of the project in one run, with a results file: {@code ./gpux bench} (the short profile, under 5
 * minutes on 2 cores), {@code ./gpux bench --full} (the long one), {@code --smoke} (everything for a second or two:
 * CI). In order: the order flows exported for both sides; JMH: the engine ({@code EngineBenchmark}) and the order
 * book against exchange-core's (gpux's {@code OrderBookBenchmark} in this JVM's JMH, exchange-core's
 * {@code ExchangeCoreBookBenchmark} from module benchmarks-exchange-core in a JVM of its own, same settings); the
 * whole pipeline against {@code ExchangeCore} on the same flow (throughput and open-loop latency); gpux's
 * {@code PipelineBenchmark}, {@code RecoveryBenchmark} and the gateway's {@code RoundTripBenchmark}. Every
 * benchmark that is not JMH runs in a JVM of its own with this JVM's flags. Writes
 * {@code benchmarks/results/DATE-HOST[-full|-smoke].md}, {@code .json} and {@code .txt} (everything printed).
 *
 * <p>Any other first argument hands the command line to JMH, as {@code ./gpux bench} always did:
 * {@code ./gpux bench EngineBenchmark -prof gc}, {@code ./gpux bench -h}.
 *
 * <p>This class reads the command line, exports the order flows, runs the sections in order and writes the
 * results; each family of sections is a {@link Section} of its own ({@link PlatformSection}, {@link JmhRuns},
 * {@link BookSections}, {@link CompareSection}, {@link PipelineSections}). Everything runs on the main thread;
 * the measuring is done by child JVMs.
 */
public final class BenchSuite
{
    static final String GPUX_JAR = "benchmarks/target/benchmarks.jar";
    public static final String XC_JAR = "benchmarks-exchange-core/target/benchmarks-exchange-core.jar";

    private Profile profile = Profile.SHORT;
    private Path root;
    private Path out;
    private Path flowDir;
    private String xcClasspath;
    private String lobsterZip = "";
    private final List<String> only = new ArrayList<>();
    private final Report report = new Report();
    private PrintStream console;
    private final long startNanos = System.nanoTime();
    /** Where the mains write their figures ({@code --json}); deleted at the end of the run. */
    private Path scratch;

    public static void main(final String[] args) throws Exception
    {
        if (args.length > 0 && !args[0].startsWith("--"))
        {
            org.openjdk.jmh.Main.main(args);
            return;
        }
        final BenchSuite suite = new BenchSuite();
        if (!suite.parse(args))
        {
            return;
        }
        System.exit(suite.run() ? 0 : 1);
    }

    private boolean parse(final String[] args)
    {
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--full" -> profile = Profile.FULL;
                case "--smoke" -> profile = Profile.SMOKE;
                case "--out" -> out = Path.of(args[++i]);
                case "--root" -> root = Path.of(args[++i]);
                case "--flow-dir" -> flowDir = Path.of(args[++i]);
                case "--xc-cp" -> xcClasspath = args[++i];
                case "--lobster-zip" -> lobsterZip = args[++i];
                case "--only" -> only.addAll(List.of(args[++i].split(",")));
                case "--help" ->
                {
                    System.out.println("""
                        usage: ./gpux bench [--full | --smoke] [--out DIR] [--only SECTIONS] [--flow-dir DIR] [--xc-cp CP]
                               ./gpux bench JMH-ARGS...          (JMH itself: ./gpux bench EngineBenchmark -prof gc, -h)

                        Runs every benchmark (short profile: under 5 minutes on 2 cores; --full: the long one; --smoke:
                        a second or two each, numbers meaningless) and writes DIR/DATE-HOST[-full|-smoke].{md,json,txt}
                        (default DIR: benchmarks/results). SECTIONS: comma-separated of platform, book, collectors, compare, engine,
                        hotpaths, pipeline, recovery, roundtrip. --xc-cp: exchange-core's side (default: the benchmarks-exchange-core jar).""");
                    return false;
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i] + " (--help)");
            }
        }
        return true;
    }

    private boolean wanted(final String section)
    {
        return only.isEmpty() || only.contains(section);
    }

    private boolean run() throws Exception
    {
        root = root != null ? root : projectRoot();
        out = out != null ? out : root.resolve("benchmarks/results");
        flowDir = flowDir != null ? flowDir : root.resolve(OrderFlows.DEFAULT_DIR);
        xcClasspath = xcClasspath != null ? xcClasspath : root.resolve(XC_JAR).toString();
        Files.createDirectories(out);
        final String host = Machine.host();
        final String base = LocalDate.now() + "-" + host + (profile == Profile.SHORT ? "" : "-" + profile.name());
        final Path raw = out.resolve(base + ".txt");
        scratch = Files.createTempDirectory("gpux-bench");
        console = System.out;
        final PrintStream consoleErr = System.err;
        try (OutputStream rawFile = new FileOutputStream(raw.toFile()))
        {
            final PrintStream tee = new PrintStream(new Tee(console, rawFile), true, StandardCharsets.UTF_8);
            System.setOut(tee);
            System.setErr(tee);
            try
            {
                header(host);
                System.out.println("gpux bench, " + profile.name() + " profile: " + profile.describe());
                System.out.println("results: " + out.resolve(base) + ".{md,json,txt}");
                checkXcClasspath();
                runAll();
            }
            catch (final Exception e)
            {
                report.failures.add("suite: " + e);
                e.printStackTrace();
            }
            finally
            {
                report.header.put("load average after", Machine.loadAverage());
                report.header.put("duration", String.format("%.0f s", (System.nanoTime() - startNanos) / 1e9));
                Handicaps.addTo(report);
                report.writeMarkdown(out.resolve(base + ".md"));
                report.writeJson(out.resolve(base + ".json"));
                System.out.println("wrote " + out.resolve(base + ".md") + ", .json, .txt" +
                    (report.failures.isEmpty() ? "" : "; FAILED: " + report.failures));
                tee.flush();
                System.setOut(console);
                System.setErr(consoleErr);
                deleteScratch();
            }
        }
        return report.failures.isEmpty();
    }

    private void runAll() throws Exception
    {
        final SuiteRun run = new SuiteRun(profile, report, flowDir, xcClasspath, scratch, startNanos);
        final JmhRuns jmh = new JmhRuns(run);
        if (wanted("platform"))
        {
            new PlatformSection(run).platform();
        }
        final boolean needFlows = wanted("book") || wanted("collectors") || wanted("compare");
        if (needFlows)
        {
            exportFlows();
        }
        if (wanted("engine"))
        {
            for (final String b : new String[] {"lobster", "synthetic", "gpuMix"})
            {
                jmh.jmh("engine", "io.gpux.bench.EngineBenchmark." + b + "$", "EngineBenchmark." + b, "commands/s", Map.of());
            }
        }
        if (wanted("hotpaths"))
        {
            for (final String b : new String[] {"commandEncode", "eventEncodeDecode", "journalAppend", "gatewayDecode",
                "gatewayEncode"})
            {
                jmh.jmh("hotpaths", "io.gpux.bench.HotPathBenchmark." + b + "$", "HotPathBenchmark." + b, "ops/s", Map.of());
            }
        }
        final BookSections books = new BookSections(run, jmh);
        if (wanted("book"))
        {
            books.book();
        }
        if (wanted("collectors"))
        {
            books.collectors();
        }
        if (wanted("compare"))
        {
            final CompareSection compare = new CompareSection(run);
            for (final String flow : profile.compareFlows())
            {
                compare.compare(flow);
            }
        }
        final PipelineSections pipelines = new PipelineSections(run);
        if (wanted("pipeline"))
        {
            pipelines.pipeline();
        }
        if (wanted("recovery"))
        {
            pipelines.recovery();
        }
        if (wanted("roundtrip"))
        {
            pipelines.roundTrip();
        }
    }

    // ---- the order flows ---------------------------------------------------------------------------------------

    private void exportFlows()
    {
        for (final String name : OrderFlows.NAMES)
        {
            try
            {
                final long t0 = System.nanoTime();
                final OrderFlows.Exported e = OrderFlows.export(name, flowDir, lobsterZip);
                System.out.printf("order flow %s%n  gpux: %s%n  -> %s, sha256 %s (%.1f s)%n", e.summary(), e.gpuxNotes(), e.file(),
                    e.sha256(), (System.nanoTime() - t0) / 1e9);
                final Map<String, String> f = new LinkedHashMap<>();
                f.put("name", name);
                f.put("file", e.file().toString());
                f.put("sha256", e.sha256());
                f.put("commands", String.format("%,d", e.commands()));
                f.put("trades", String.format("%,d", e.trades()));
                f.put("volume", String.format("%,d", e.volume()));
                f.put("gpuxCommandsPerFlowCommand", String.format("%.3f", e.gpuxCommandsPerFlowCommand()));
                f.put("summary", e.summary());
                f.put("gpux", e.gpuxNotes());
                report.flows.add(f);
            }
            catch (final Exception e)
            {
                report.failures.add("order flow " + name + ": " + e);
                e.printStackTrace();
            }
        }
    }

    private void deleteScratch() throws IOException
    {
        try (var files = Files.list(scratch))
        {
            for (final Path f : files.toList())
            {
                Files.delete(f);
            }
        }
        Files.delete(scratch);
    }

    private void checkXcClasspath()
    {
        if (!wanted("book") && !wanted("compare"))
        {
            return;
        }
        final String first = xcClasspath.split(File.pathSeparator)[0];
        if (!new File(first).exists())
        {
            throw new IllegalStateException("exchange-core's side is not built: no " + first + " (./mvnw -q -B package " +
                "-DskipTests -pl benchmarks-exchange-core -am)");
        }
        final Path xcSources = root.resolve("benchmarks-exchange-core/src");
        if (first.endsWith(".jar") && Files.isDirectory(xcSources) && Machine.newerThan(xcSources, new File(first).lastModified()))
        {
            System.out.println("warning: " + first + " is older than benchmarks-exchange-core/src: rebuild it (./mvnw -q " +
                "-B package -DskipTests -pl benchmarks-exchange-core -am)");
        }
    }

    private void header(final String host)
    {
        final Map<String, String> h = report.header;
        h.put("date", LocalDate.now().toString());
        h.put("started", ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
        h.put("host", host);
        h.put("profile", profile.name());
        h.put("commit", Machine.commit(root));
        h.put("machine", Machine.describe());
        h.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"));
        h.put("load average before", Machine.loadAverage());
        h.put("JVM", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version") + " (" +
            System.getProperty("java.vendor") + "), GC: " + Machine.garbageCollectors() + ", max heap " +
            Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB");
        h.put("JVM flags (every JVM of the run)", String.join(" ", Machine.jvmFlags()));
        h.put("settings", profile.describe());
        h.put("exchange-core", "0.5.3: OrderBookDirectImpl (book); ExchangeCore with PerformanceConfiguration.baseBuilder() " +
            "(ring 16k, 1 matching engine, 1 risk engine), OrderBookDirectImpl, YIELDING wait strategy, plain threads (no CPU " +
            "pinning); journal: DiskSerializationProcessor, LZ4, file opened rwd");
        h.put("gpux", "pipeline: 2 threads (core, ticker off), yielding wait, inline output, both journals on, snapshots off " +
            "during the pipeline runs");
    }

    public static Path projectRoot()
    {
        try
        {
            final Path jar = Path.of(BenchSuite.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            // benchmarks/target/benchmarks.jar (or benchmarks/target/classes)
            final Path candidate = jar.getParent().getParent().getParent();
            if (Files.isRegularFile(candidate.resolve("benchmarks/pom.xml")))
            {
                return candidate;
            }
        }
        catch (final Exception ignored)
        {
            // fall back to the working directory
        }
        for (File d = new File("").getAbsoluteFile(); d != null; d = d.getParentFile())
        {
            if (new File(d, "benchmarks/pom.xml").isFile())
            {
                return d.toPath();
            }
        }
        return Path.of("").toAbsolutePath();
    }

    /** Writes to two streams: the console and the raw results file. */
    private static final class Tee extends OutputStream
    {
        private final OutputStream a;
        private final OutputStream b;

        Tee(final OutputStream a, final OutputStream b)
        {
            this.a = a;
            this.b = b;
        }

        @Override
        public void write(final int c) throws IOException
        {
            a.write(c);
            b.write(c);
        }

        @Override
        public void write(final byte[] buf, final int off, final int len) throws IOException
        {
            a.write(buf, off, len);
            b.write(buf, off, len);
        }

        @Override
        public void flush() throws IOException
        {
            a.flush();
            b.flush();
        }
    }
}
