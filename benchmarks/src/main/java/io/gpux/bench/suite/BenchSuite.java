package io.gpux.bench.suite;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpux.bench.OrderFlows;
import io.gpux.bench.PairedBooks;
import io.gpux.bench.ResultFile;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

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
import java.util.Collection;
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
    private int children;

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
        if (wanted("platform"))
        {
            platform();
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
                jmh("engine", "io.gpux.bench.EngineBenchmark." + b + "$", "EngineBenchmark." + b, "commands/s", Map.of());
            }
        }
        if (wanted("hotpaths"))
        {
            for (final String b : new String[] {"commandEncode", "eventEncodeDecode", "journalAppend", "gatewayDecode",
                "gatewayEncode"})
            {
                jmh("hotpaths", "io.gpux.bench.HotPathBenchmark." + b + "$", "HotPathBenchmark." + b, "ops/s", Map.of());
            }
        }
        if (wanted("book"))
        {
            book();
        }
        if (wanted("collectors"))
        {
            collectors();
        }
        if (wanted("compare"))
        {
            for (final String flow : profile.compareFlows())
            {
                compare(flow);
            }
        }
        if (wanted("pipeline"))
        {
            pipeline();
        }
        if (wanted("recovery"))
        {
            recovery();
        }
        if (wanted("roundtrip"))
        {
            roundTrip();
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

    // ---- JMH -----------------------------------------------------------------------------------------------------

    private ChainedOptionsBuilder jmhOptions()
    {
        return new OptionsBuilder().forks(profile.jmhForks()).warmupIterations(profile.jmhWarmups())
            .warmupTime(TimeValue.fromString(profile.jmhWarmupTime())).measurementIterations(profile.jmhIterations())
            .measurementTime(TimeValue.fromString(profile.jmhIterationTime())).addProfiler(GCProfiler.class)
            .shouldFailOnError(true);
    }

    private List<String> jmhArgs()
    {
        return List.of("-f", Integer.toString(profile.jmhForks()), "-wi", Integer.toString(profile.jmhWarmups()), "-w",
            profile.jmhWarmupTime(), "-i", Integer.toString(profile.jmhIterations()), "-r", profile.jmhIterationTime(),
            "-prof", "gc", "-foe", "true");
    }

    /** One gpux JMH benchmark in this JVM's JMH (with forks, in JVMs of JMH's own with this JVM's flags). */
    private Report.Figure jmh(final String section, final String include, final String name, final String unit,
        final Map<String, String> params)
    {
        final ChainedOptionsBuilder options = jmhOptions().include(include);
        params.forEach(options::param);
        try
        {
            final Collection<RunResult> results = new Runner(options.build()).run();
            if (results.size() != 1)
            {
                throw new RunnerException(results.size() + " results for " + include);
            }
            final RunResult r = results.iterator().next();
            final Result<?> primary = r.getPrimaryResult();
            Result<?> alloc = null;
            for (final String key : r.getSecondaryResults().keySet())
            {
                if (key.endsWith("gc.alloc.rate.norm"))
                {
                    alloc = r.getSecondaryResults().get(key);
                }
            }
            final List<Double> iterations = new ArrayList<>();
            for (final BenchmarkResult br : r.getBenchmarkResults())
            {
                for (final IterationResult ir : br.getIterationResults())
                {
                    iterations.add(ir.getPrimaryResult().getScore());
                }
            }
            final Report.Figure f = new Report.Figure(section, name, unit, primary.getScore(), primary.getScoreError(),
                "99.9 % confidence half-width (JMH)", iterations.size(),
                iterations.stream().mapToDouble(Double::doubleValue).toArray(), alloc == null ? Double.NaN : alloc.getScore(),
                alloc == null ? Double.NaN : alloc.getScoreError(), null, "JMH " + primary.getScoreUnit());
            report.figures.add(f);
            return f;
        }
        catch (final Exception e)
        {
            report.failures.add(name + ": " + e);
            e.printStackTrace();
            return null;
        }
    }

    private void book()
    {
        final Map<String, Report.Figure> gpux = new LinkedHashMap<>();
        for (final String flow : OrderFlows.NAMES)
        {
            gpux.put(flow, jmh("book", "io.gpux.bench.OrderBookBenchmark.gpux$", "gpux engine, " + flow, "flow commands/s",
                Map.of("flow", flow, "flowDir", flowDir.toString())));
        }
        final Path results = scratch.resolve("exchange-core-jmh.json");
        final List<String> args = new ArrayList<>(List.of("io.gpux.bench.xc.ExchangeCoreBookBenchmark.book$"));
        args.addAll(jmhArgs());
        args.addAll(List.of("-p", "flowDir=" + flowDir, "-p", "impl=" + profile.xcBooks(), "-rf", "json", "-rff",
            results.toString()));
        final Child c = child("exchange-core JMH", xcClasspath, "org.openjdk.jmh.Main", args);
        final List<Report.Figure> xc = new ArrayList<>();
        // JMH's own results file: one object a benchmark and parameter set
        for (final JsonNode r : ResultFile.read(results))
        {
            final String flow = r.path("params").path("flow").asText("?");
            final String impl = r.path("params").path("impl").asText("?");
            final JsonNode primary = r.path("primaryMetric");
            final JsonNode alloc = r.path("secondaryMetrics").path("gc.alloc.rate.norm");
            final Report.Figure f = new Report.Figure("book", "exchange-core OrderBook" +
                (impl.equals("naive") ? "NaiveImpl" : "DirectImpl") + ", " + flow, "flow commands/s", primary.path("score")
                .asDouble(Double.NaN), primary.path("scoreError").asDouble(Double.NaN), "99.9 % confidence half-width (JMH)",
                profile.jmhIterations() * Math.max(1, profile.jmhForks()), new double[0], alloc.path("score")
                .asDouble(Double.NaN), alloc.path("scoreError").asDouble(Double.NaN), null, "JMH " +
                primary.path("scoreUnit").asText());
            report.figures.add(f);
            xc.add(f);
            final Report.Figure g = gpux.get(flow);
            if (g != null)
            {
                report.ratios.add(Report.Ratio.of("book", "gpux / exchange-core " + impl + ", " + flow, g, f,
                    "flow commands per second, same flow file; > 1: gpux ahead"));
            }
        }
        if (c.exit() != 0 || xc.isEmpty())
        {
            report.failures.add("exchange-core JMH: exit " + c.exit() + ", " + xc.size() + " results (see the .txt)");
        }
        for (final String flow : OrderFlows.NAMES)
        {
            pairedBooks(flow, null);
        }
    }

    /**
     * The paired books again under each other collector, same flags otherwise: what the ratio owes to the collector
     * (G1 costs gpux's engine about 12 %, where Parallel costs nothing measurable against no collector at all;
     * exchange-core's book is at its best when its garbage lands in a warm young generation, as under Parallel, and
     * slower under ZGC).
     */
    private void collectors()
    {
        final String own = Machine.collector();
        for (final String collector : Machine.COLLECTORS.keySet())
        {
            if (!collector.equals(own))
            {
                for (final String flow : profile.collectorFlows())
                {
                    pairedBooks(flow, collector);
                }
            }
        }
    }

    /**
     * Both books in one JVM taking turns ({@code PairedBooks}): the per-round ratio does not move with whatever slows
     * the machine for seconds at a time, as the ratio of two JMH runs one after the other does. Run in
     * {@link Profile#pairedForks()} JVMs, since each side's speed under G1 is a draw per JVM: the ratio is then the
     * median of the JVMs' ratios and each side's rate is taken over all their rounds.
     *
     * @param collector one of {@link Machine#COLLECTORS} instead of this JVM's, or null for this JVM's
     */
    private void pairedBooks(final String flow, final String collector)
    {
        final String what = "books paired in one JVM, " + flow + (collector == null ? "" : ", " + collector);
        final int forks = profile.pairedForks();
        final List<String> args = List.of(
            "--flow", flow, "--flow-dir", flowDir.toString(), "--xc-cp", xcClasspath, "--impl", "direct",
            "--rounds", Integer.toString(profile.pairedRounds()), "--warmup-rounds",
            Integer.toString(profile.pairedWarmupRounds()), "--slice-ms", Integer.toString(profile.pairedSliceMs()),
            "--forks", Integer.toString(forks));
        final List<String> jvmFlags =
            collector == null ? Machine.jvmFlags() : Machine.withCollector(Machine.jvmFlags(), collector);
        final Child c = child(what, jvmFlags, gpuxClasspath(), "io.gpux.bench.PairedBooks", args);
        // one result of each side and one ratio a JVM; with several JVMs, also their summary
        final List<Map<String, String>> g = c.results().stream().filter(m -> "gpux".equals(m.get("side"))).toList();
        final List<Map<String, String>> x = c.results().stream().filter(m -> "xc".equals(m.get("side"))).toList();
        final Map<String, String> r = c.resultWith(forks > 1 ? "ratioMedian" : "ratio");
        if (c.exit() != 0 || g.size() != forks || x.size() != forks || r == null)
        {
            report.failures.add(what + ": exit " + c.exit() + " (see the .txt)");
            return;
        }
        final String section = collector == null ? "book" : "collectors";
        final String suffix = collector == null ? "" : ", " + collector;
        final int rounds = profile.pairedRounds();
        final String kind = "half the interquartile range of " + (forks > 1 ? forks + " x " : "") + rounds + " rounds";
        final String note = String.format("median %s %d rounds of %d ms a side, turns alternating, in %s (%s)",
            forks > 1 ? "over " + forks + " JVMs x" : "of", rounds, profile.pairedSliceMs(), forks > 1 ? "each JVM" : "one JVM",
            collector == null ? Machine.collector() + ", this run's collector" : collector + " instead of this run's " +
                "collector, the other flags the same");
        report.figures.add(pairedFigure(section, "gpux engine, " + flow + ", paired in one JVM" + suffix, g, kind, note));
        report.figures.add(pairedFigure(section, "exchange-core OrderBookDirectImpl, " + flow + ", paired in one JVM" +
            suffix, x, kind, note));
        final String ratioName = "gpux / exchange-core direct, " + flow + ", paired in one JVM" + suffix;
        if (forks > 1)
        {
            report.ratios.add(new Report.Ratio(section, ratioName, dbl(r, "ratioMedian"),
                (dbl(r, "ratioMax") - dbl(r, "ratioMin")) / 2, String.format("median of %d JVMs' ratios, each the median of " +
                    "its %d rounds' ratios: %s; error: half their range; gpux ahead in %s of %d; > 1: gpux ahead", forks,
                    rounds, r.get("ratios").replace(";", ", "), r.get("ahead"), forks)));
        }
        else
        {
            report.ratios.add(new Report.Ratio(section, ratioName, dbl(r, "ratio"), (dbl(r, "q3") - dbl(r, "q1")) / 2,
                String.format("median of the %d rounds' ratios (quartiles %.3f-%.3f); > 1: gpux ahead", rounds, dbl(r, "q1"),
                    dbl(r, "q3"))));
        }
    }

    /** One side's rate over every round of every JVM it ran in (one {@code RESULT side=...} line a JVM). */
    private Report.Figure pairedFigure(
        final String section, final String name, final List<Map<String, String>> perJvm, final String kind, final String note)
    {
        final List<Double> all = new ArrayList<>();
        final double[] cpu = new double[perJvm.size()];
        for (int j = 0; j < perJvm.size(); j++)
        {
            for (final String run : perJvm.get(j).getOrDefault("runs", "").split(";"))
            {
                all.add(run.isEmpty() ? Double.NaN : Double.parseDouble(run));
            }
            cpu[j] = dbl(perJvm.get(j), "cpuMedian");
        }
        final double[] runs = all.stream().mapToDouble(Double::doubleValue).toArray();
        final double[] q = PairedBooks.quartiles(runs);
        return new Report.Figure(section, name, "flow commands/s", q[1], (q[2] - q[0]) / 2, kind, runs.length, runs,
            Double.NaN, Double.NaN, null, note + String.format(", %,.0f per CPU-second", PairedBooks.quartiles(cpu)[1]));
    }

    // ---- the pipelines -----------------------------------------------------------------------------------------

    private String gpuxClasspath()
    {
        return System.getProperty("java.class.path");
    }

    private void compare(final String flow)
    {
        final Map<String, Report.Figure> tput = new LinkedHashMap<>();
        for (final String config : Profile.PIPELINES)
        {
            final double[] runs = new double[profile.compareRuns()];
            boolean ok = true;
            for (int i = 0; i < runs.length && ok; i++)
            {
                final Child c = comparePipeline(config, flow, 0, profile.compareWarmup(), profile.compareMessages());
                final JsonNode rate = c.figures().path("flowCommandsPerSecond");
                ok = rate.isNumber() && c.exit() == 0;
                runs[i] = ok ? rate.asDouble() : Double.NaN;
                if (!ok)
                {
                    report.failures.add("pipeline comparison " + config + " " + flow + " throughput: exit " + c.exit());
                }
            }
            if (ok)
            {
                final Report.Figure f = Report.Figure.throughput("compare", label(config) + ", " + flow + ", throughput",
                    "flow commands/s", runs, String.format("%,d warm-up + %,d measured flow commands a run",
                        profile.compareWarmup(), profile.compareMessages()));
                report.figures.add(f);
                tput.put(config, f);
            }
        }
        ratio(tput, "gpux-ASYNC", "xc-on", flow, "gpux ASYNC / exchange-core journal on",
            "gpux's durability default against exchange-core's only journal (which waits for the device)");
        ratio(tput, "gpux-SYNC", "xc-on", flow, "gpux SYNC / exchange-core journal on",
            "like for like: both wait for the device on each batch");
        ratio(tput, "gpux-ASYNC", "xc-off", flow, "gpux ASYNC (journals on) / exchange-core without journal", null);
        for (final long rate : profile.compareRates())
        {
            final Map<String, Report.Figure> lat = new LinkedHashMap<>();
            for (final String config : profile.latencyConfigs())
            {
                final Child c = comparePipeline(config, flow, rate, profile.latencyWarmup(rate), profile.latencyMessages(rate));
                final JsonNode latency = c.figures().path("latency");
                if (latency.isMissingNode() || c.exit() != 0)
                {
                    report.failures.add("pipeline comparison " + config + " " + flow + " latency at " + rate + "/s: exit " + c.exit());
                    continue;
                }
                final Report.Figure f = Report.Figure.latency("compare", String.format("%s, %s, %,d/s offered", label(config),
                    flow, rate), percentiles(latency), String.format("%,d warm-up flow commands excluded", profile.latencyWarmup(rate)));
                report.figures.add(f);
                lat.put(config, f);
            }
            final Report.Figure g = lat.get("gpux-ASYNC");
            for (final String xc : new String[] {"xc-on", "xc-off"})
            {
                final Report.Figure x = lat.get(xc);
                if (g != null && x != null)
                {
                    for (final String p : new String[] {"p50", "p99"})
                    {
                        report.ratios.add(new Report.Ratio("compare", String.format("%s %s / gpux ASYNC %s, %s, %,d/s", label(xc),
                            p, p, flow, rate), x.percentiles().get(p) / g.percentiles().get(p), Double.NaN,
                            "> 1: gpux's latency lower; one run each"));
                    }
                }
            }
        }
    }

    private void ratio(final Map<String, Report.Figure> figures, final String a, final String b, final String flow,
        final String name, final String note)
    {
        if (figures.containsKey(a) && figures.containsKey(b))
        {
            report.ratios.add(Report.Ratio.of("compare", name + ", " + flow + ", throughput", figures.get(a), figures.get(b),
                note == null ? "> 1: gpux ahead" : note + "; > 1: gpux ahead"));
        }
    }

    private static String label(final String config)
    {
        return switch (config)
        {
            case "gpux-ASYNC" -> "gpux ASYNC";
            case "gpux-SYNC" -> "gpux SYNC";
            case "xc-on" -> "exchange-core journal on";
            case "xc-off" -> "exchange-core journal off";
            default -> config;
        };
    }

    private Child comparePipeline(final String config, final String flow, final long rate, final int warmup,
        final int messages)
    {
        final List<String> args = new ArrayList<>(List.of("--flow", flow, "--flow-dir", flowDir.toString(), "--rate",
            Long.toString(rate), "--warmup", Integer.toString(warmup), "--messages", Integer.toString(messages)));
        if (config.startsWith("gpux"))
        {
            args.addAll(List.of("--durability", config.substring(5)));
            return measured(label(config) + " " + flow, gpuxClasspath(), "io.gpux.bench.pipeline.OrderFlowPipelineBenchmark", args);
        }
        args.addAll(List.of("--journal", config.substring(3)));
        return measured(label(config) + " " + flow, xcClasspath, "io.gpux.bench.xc.ExchangeCorePipelineBenchmark", args);
    }

    private void pipeline()
    {
        for (final String durability : profile.pipelineDurabilities())
        {
            pipelineThroughput(durability, false);
        }
        // the layout ./gpux server runs by default: no core thread, the producer's thread applies what it published
        pipelineThroughput("ASYNC", true);
        for (final long rate : profile.pipelineRates())
        {
            for (final boolean polled : new boolean[] {false, true})
            {
                final int commands = profile.latencyMessages(rate);
                final int warmup = profile.latencyWarmup(rate);
                final List<String> args = new ArrayList<>(List.of("--rate", Long.toString(rate), "--warmup",
                    Integer.toString(warmup), "--commands", Integer.toString(commands)));
                if (polled)
                {
                    args.add("--polled");
                }
                final Child c = measured("PipelineBenchmark latency" + (polled ? " polled" : ""), gpuxClasspath(),
                    "io.gpux.bench.pipeline.PipelineBenchmark", args);
                final JsonNode fromDue = c.figures().path("fromDue");
                if (fromDue.isMissingNode() || c.exit() != 0)
                {
                    report.failures.add("PipelineBenchmark latency" + (polled ? " polled" : "") + " at " + rate + "/s");
                    continue;
                }
                report.figures.add(Report.Figure.latency("pipeline", String.format("ASYNC%s, %,d commands/s offered",
                    polled ? " polled" : "", rate), percentiles(fromDue), String.format("PlainFlow, from the scheduled time to the first " +
                    "event, %,d warm-up commands excluded%s", warmup, polled ? "; no core thread (the shared layout: the " +
                    "load thread applies what it published, and waits as the gateway's loop does, spinning 50 us after its " +
                    "last work, then parking)" : "; the load thread parks between commands")));
                report.figures.add(Report.Figure.latency("pipeline", String.format("ASYNC%s, %,d commands/s offered, " +
                    "from the publish", polled ? " polled" : "", rate), percentiles(c.figures().path("fromPublish")),
                    "the same run, from the moment the command was published to its first event: the load thread's own " +
                    "lateness excluded"));
            }
        }
    }

    private void recovery()
    {
        final Child c = measured("RecoveryBenchmark", gpuxClasspath(), "io.gpux.bench.pipeline.RecoveryBenchmark",
            List.of("--commands", Integer.toString(profile.recoveryCommands()), "--snapshot-every",
                Integer.toString(profile.recoverySnapshotEvery())));
        final JsonNode f = c.figures();
        final JsonNode r = f.path("recovery");
        if (c.exit() != 0 || r.isMissingNode())
        {
            report.failures.add("RecoveryBenchmark: exit " + c.exit());
            return;
        }
        report.figures.add(Report.Figure.throughput("recovery", String.format("restart after %,d journaled commands",
            profile.recoveryCommands()), "s", new double[] {r.path("seconds").asDouble()}, String.format("snapshot at " +
            "command %,d, %,d commands replayed, %,d events checked; snapshot every %,d", r.path("snapshotSequence").asLong(),
            r.path("replayedCommands").asLong(), r.path("checkedEvents").asLong(), profile.recoverySnapshotEvery())));
        final JsonNode full = f.path("fullReplay");
        if (!full.isMissingNode())
        {
            report.figures.add(Report.Figure.throughput("recovery", "full replay from command 1", "s",
                new double[] {full.path("seconds").asDouble()}, String.format("%,d commands, %,d events checked",
                    full.path("replayedCommands").asLong(), full.path("checkedEvents").asLong())));
        }
        report.figures.add(Report.Figure.throughput("recovery", "journaling them", "s",
            new double[] {f.path("journalSeconds").asDouble()}, "snapshots included"));
    }

    private void pipelineThroughput(final String durability, final boolean polled)
    {
        final double[] runs = new double[profile.pipelineRuns()];
        boolean ok = true;
        for (int i = 0; i < runs.length && ok; i++)
        {
            final List<String> args = new ArrayList<>(List.of("--durability", durability, "--warmup",
                Integer.toString(profile.pipelineWarmup()), "--commands", Integer.toString(profile.pipelineCommands())));
            if (polled)
            {
                args.add("--polled");
            }
            final Child c = measured("PipelineBenchmark " + durability + (polled ? " polled" : ""), gpuxClasspath(),
                "io.gpux.bench.pipeline.PipelineBenchmark", args);
            final JsonNode rate = c.figures().path("commandsPerSecond");
            ok = rate.isNumber() && c.exit() == 0;
            runs[i] = ok ? rate.asDouble() : Double.NaN;
        }
        final String name = "throughput " + durability + (polled ? " polled" : "");
        if (ok)
        {
            report.figures.add(Report.Figure.throughput("pipeline", name, "commands/s", runs,
                String.format("PlainFlow, %,d warm-up + %,d measured commands a run, both journals on%s",
                    profile.pipelineWarmup(), profile.pipelineCommands(),
                    polled ? "; no core thread: the producer's thread polls the pipeline (the shared layout)" : "")));
        }
        else
        {
            report.failures.add("PipelineBenchmark " + name);
        }
    }

    private void roundTrip()
    {
        final Child c = measured("RoundTripBenchmark", gpuxClasspath(), "io.gpux.bench.gateway.RoundTripBenchmark",
            List.of("--rate", Long.toString(profile.roundTripRate()), "--seconds", Integer.toString(profile.roundTripSeconds()),
                "--warmup", Integer.toString(profile.roundTripWarmup())));
        final JsonNode f = c.figures();
        if (f.path("bidToFill").isMissingNode() || f.path("fills").asLong() == 0)
        {
            report.failures.add("RoundTripBenchmark: exit " + c.exit() + (f.isMissingNode() ? ", no results" : ", no fill"));
            return;
        }
        report.figures.add(Report.Figure.latency("roundtrip", String.format("bid -> fill at the client, %,d bids/s offered",
            profile.roundTripRate()), percentiles(f.path("bidToFill")), String.format("1 connection, %d s warm-up " +
            "excluded; %,.0f/s achieved, %,d fills, %,d errors", profile.roundTripWarmup(), f.path("achievedPerSecond")
            .asDouble(), f.path("fills").asLong(), f.path("errors").asLong()) + (c.exit() == 0 ? "" :
            "; NOT EVERY BID FILLED: more was offered than the exchange took (BUSY answers)")));
    }

    /**
     * The machine's floor first, before anything else has run: two threads that only spin (every core busy, as
     * with a spinning exchange and a spinning bot on two cores) and what an event arriving at a random moment
     * waits for each (HiccupMeter).
     */
    private void platform()
    {
        final Child c = measured("HiccupMeter", gpuxClasspath(), "io.gpux.bench.platform.HiccupMeter",
            List.of("--threads", "2", "--seconds", Integer.toString(profile.hiccupSeconds())));
        int found = 0;
        for (final JsonNode t : c.figures().path("threads"))
        {
            report.figures.add(Report.Figure.latency("platform", "random arrival's wait, spinning thread " +
                (t.path("thread").asInt() + 1) + " of 2", percentiles(t.path("randomArrivalWait")), String.format(
                "the thread did not run %.2f %% of the time; gaps a second: %.0f of 10 us or more, %.1f of 100 us or more, " +
                "%.2f of 1 ms or more. ", t.path("lostPercent").asDouble(), t.path("gaps10usPerSecond").asDouble(),
                t.path("gaps100usPerSecond").asDouble(), t.path("gaps1msPerSecond").asDouble()) +
                "What any spinning loop on this machine waits before it runs again, whatever its code; a round trip " +
                "crosses two such threads (the bot's and the exchange's)"));
            found++;
        }
        if (found != 2)
        {
            report.failures.add("HiccupMeter: exit " + c.exit() + ", " + found + " of 2 threads reported");
        }
        loopback();
    }

    /**
     * The round trip's floor: the round trip benchmark's open-loop load at its rate, answered by a bare echo over
     * loopback TCP between two spinning threads instead of by the exchange (LoopbackFloor).
     */
    private void loopback()
    {
        final Child c = measured("LoopbackFloor", gpuxClasspath(), "io.gpux.bench.platform.LoopbackFloor",
            List.of("--rate", Long.toString(profile.roundTripRate()), "--seconds", Integer.toString(profile.hiccupSeconds()),
                "--warmup", Integer.toString(profile.hiccupSeconds() / 5)));
        final JsonNode f = c.figures();
        if (c.exit() != 0 || f.path("fromDue").isMissingNode())
        {
            report.failures.add("LoopbackFloor: exit " + c.exit() + (f.isMissingNode() ? ", no results" : ""));
            return;
        }
        final List<String> calls = new ArrayList<>();
        for (final String side : new String[] {"load", "echo"})
        {
            calls.add(String.format("%s thread: a write %.2f us, a read %.2f us", side, f.path(side).path("writeUs").asDouble(),
                f.path(side).path("readUs").asDouble()));
        }
        report.figures.add(Report.Figure.latency("platform", String.format("loopback echo round trip, %,d messages/s " +
            "offered", profile.roundTripRate()), percentiles(f.path("fromDue")), "1 connection, 64 bytes each way, from " +
            "when each message was due; no exchange, no framework: two spinning threads, one write and one read a message " +
            "each side (" + String.join("; ", calls) + "). The gateway's round trip, measured the same way, cannot be faster"));
    }

    // ---- helpers ---------------------------------------------------------------------------------------------------

    private Child child(final String what, final String classpath, final String main, final List<String> args)
    {
        return child(what, Machine.jvmFlags(), classpath, main, args);
    }

    private Child child(
        final String what, final List<String> jvmFlags, final String classpath, final String main, final List<String> args)
    {
        System.out.println();
        System.out.printf("=== %s (at %.0f s): %s %s%n", what, (System.nanoTime() - startNanos) / 1e9, main,
            String.join(" ", args));
        return Child.run(jvmFlags, classpath, main, args);
    }

    /** A main that writes its figures to {@code --json FILE}: a file of its own in the run's scratch folder. */
    private Child measured(final String what, final String classpath, final String main, final List<String> args)
    {
        System.out.println();
        System.out.printf("=== %s (at %.0f s): %s %s%n", what, (System.nanoTime() - startNanos) / 1e9, main,
            String.join(" ", args));
        return Child.run(Machine.jvmFlags(), classpath, main, args, scratch.resolve("child-" + (++children) + ".json"));
    }

    private static Map<String, Double> percentiles(final JsonNode p)
    {
        final Map<String, Double> out = new LinkedHashMap<>();
        for (final String k : new String[] {"p50", "p90", "p99", "p99.9", "p99.99", "max", "count"})
        {
            final JsonNode v = p.path(k);
            out.put(k, v.isNumber() ? v.asDouble() : Double.NaN);
        }
        return out;
    }

    private static double dbl(final Map<String, String> r, final String key)
    {
        final String v = r.get(key);
        try
        {
            return v == null ? Double.NaN : Double.parseDouble(v);
        }
        catch (final NumberFormatException e)
        {
            return Double.NaN;
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
