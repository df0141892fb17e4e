package io.gpux.bench.suite;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpux.bench.OrderFlows;
import io.gpux.bench.PairedBooks;
import io.gpux.bench.ResultFile;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code book} and {@code collectors} sections of a {@link BenchSuite} run: gpux's order book against
 * exchange-core's, in JMH on each side and paired in one JVM, under this run's collector and the others. Runs on
 * the suite's thread.
 */
final class BookSections extends Section
{
    private final JmhRuns jmh;

    BookSections(final SuiteRun run, final JmhRuns jmh)
    {
        super(run);
        this.jmh = jmh;
    }

    void book()
    {
        final Map<String, Report.Figure> gpux = new LinkedHashMap<>();
        for (final String flow : OrderFlows.NAMES)
        {
            gpux.put(flow, jmh.jmh("book", "io.gpux.bench.OrderBookBenchmark.gpux$", "gpux engine, " + flow, "flow commands/s",
                Map.of("flow", flow, "flowDir", flowDir.toString())));
        }
        final Path results = scratchFile("exchange-core-jmh.json");
        final List<String> args = new ArrayList<>(List.of("io.gpux.bench.xc.ExchangeCoreBookBenchmark.book$"));
        args.addAll(jmh.jmhArgs());
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
    void collectors()
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
}
