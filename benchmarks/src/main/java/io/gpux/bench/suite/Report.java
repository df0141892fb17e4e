package io.gpux.bench.suite;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpux.bench.ResultFile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one {@link BenchSuite} run measured, written as Markdown (for people, quoted by the README) and JSON (for
 * tools): machine, JVM, settings, each figure with its error, the ratios, and what failed.
 */
final class Report
{
    /** Section ids in report order, with their titles. */
    static final Map<String, String> SECTIONS = new LinkedHashMap<>();

    static
    {
        SECTIONS.put("platform", "The machine's floor: gaps in threads that only spin (HiccupMeter), and a bare echo over loopback (LoopbackFloor)");
        SECTIONS.put("book", "Order book alone: gpux vs exchange-core, same flow file");
        SECTIONS.put("collectors", "Order book alone, paired, under the other collectors: what the ratio owes to the collector");
        SECTIONS.put("compare", "Whole pipeline: gpux vs exchange-core, same flow file");
        SECTIONS.put("engine", "Engine alone (EngineBenchmark)");
        SECTIONS.put("hotpaths", "Hot paths around the engine: journal records, journal append, gateway decode/encode (HotPathBenchmark)");
        SECTIONS.put("pipeline", "gpux pipeline (PipelineBenchmark, PlainFlow)");
        SECTIONS.put("recovery", "Recovery (RecoveryBenchmark)");
        SECTIONS.put("roundtrip", "Gateway round trip (RoundTripBenchmark)");
    }

    /**
     * One measured figure: a throughput or time ({@code score} and {@code error}), or latency percentiles.
     *
     * @param errorKind what {@code error} is: JMH's 99.9 % confidence half-width, or the standard deviation of
     *                  {@code n} runs (NaN with one run)
     * @param runs      the score of each run
     * @param alloc     JMH's gc.alloc.rate.norm, bytes per operation (NaN if not measured)
     */
    record Figure(
        String section, String name, String unit, double score, double error, String errorKind, int n, double[] runs,
        double alloc, double allocError, Map<String, Double> percentiles, String note)
    {
        static Figure throughput(final String section, final String name, final String unit, final double[] runs,
            final String note)
        {
            final double mean = mean(runs);
            return new Figure(section, name, unit, mean, sd(runs, mean), "sd of " + runs.length + " run(s)", runs.length, runs,
                Double.NaN, Double.NaN, null, note);
        }

        static Figure latency(final String section, final String name, final Map<String, Double> percentiles,
            final String note)
        {
            return new Figure(section, name, "us", percentiles.getOrDefault("p50", Double.NaN), Double.NaN,
                "one run; HdrHistogram, 3 significant digits", 1, new double[0], Double.NaN, Double.NaN, percentiles, note);
        }
    }

    /** A ratio a / b, its error propagated from theirs (relative errors in quadrature). */
    record Ratio(String section, String name, double value, double error, String note)
    {
        static Ratio of(final String section, final String name, final Figure a, final Figure b, final String note)
        {
            final double value = a.score() / b.score();
            final double ra = a.error() / a.score();
            final double rb = b.error() / b.score();
            return new Ratio(section, name, value, value * Math.sqrt(ra * ra + rb * rb), note);
        }
    }

    final Map<String, String> header = new LinkedHashMap<>();
    final List<Map<String, String>> flows = new ArrayList<>();
    final List<Figure> figures = new ArrayList<>();
    final List<Ratio> ratios = new ArrayList<>();
    final List<String> failures = new ArrayList<>();
    final List<String> handicaps = new ArrayList<>();

    static double mean(final double[] v)
    {
        double s = 0;
        for (final double x : v)
        {
            s += x;
        }
        return v.length == 0 ? Double.NaN : s / v.length;
    }

    static double sd(final double[] v, final double mean)
    {
        if (v.length < 2)
        {
            return Double.NaN;
        }
        double s = 0;
        for (final double x : v)
        {
            s += (x - mean) * (x - mean);
        }
        return Math.sqrt(s / (v.length - 1));
    }

    Figure find(final String section, final String name)
    {
        for (final Figure f : figures)
        {
            if (f.section.equals(section) && f.name.equals(name))
            {
                return f;
            }
        }
        return null;
    }

    // ---- Markdown ----------------------------------------------------------------------------------------------

    void writeMarkdown(final Path file) throws IOException
    {
        final StringBuilder md = new StringBuilder();
        md.append("# gpux benchmarks: ").append(header.get("date")).append(", ").append(header.get("host")).append(", ")
            .append(header.get("profile")).append(" profile\n\n");
        md.append("| | |\n| --- | --- |\n");
        header.forEach((k, v) -> md.append("| ").append(k).append(" | ").append(v.replace("|", "\\|")).append(" |\n"));
        md.append('\n');
        if (!failures.isEmpty())
        {
            md.append("## FAILURES\n\n");
            failures.forEach(f -> md.append("- ").append(f).append('\n'));
            md.append('\n');
        }
        if (!flows.isEmpty())
        {
            md.append("## Order flows (one file per flow, replayed by both sides)\n\n");
            md.append("| flow | commands/pass | trades/pass | gpux commands per flow command | sha256 |\n| --- | ---: | ---: | ---: | --- |\n");
            for (final Map<String, String> f : flows)
            {
                md.append("| ").append(f.get("name")).append(" | ").append(f.get("commands")).append(" | ").append(f.get("trades"))
                    .append(" | ").append(f.getOrDefault("gpuxCommandsPerFlowCommand", "")).append(" | `")
                    .append(f.get("sha256")).append("` |\n");
            }
            md.append('\n');
        }
        for (final Map.Entry<String, String> s : SECTIONS.entrySet())
        {
            final List<Figure> tput = new ArrayList<>();
            final List<Figure> lat = new ArrayList<>();
            for (final Figure f : figures)
            {
                if (f.section.equals(s.getKey()))
                {
                    (f.percentiles == null ? tput : lat).add(f);
                }
            }
            final List<Ratio> rs = ratios.stream().filter(r -> r.section.equals(s.getKey())).toList();
            if (tput.isEmpty() && lat.isEmpty() && rs.isEmpty())
            {
                continue;
            }
            md.append("## ").append(s.getValue()).append("\n\n");
            if (!tput.isEmpty())
            {
                md.append("| what | result | ± error | unit | error is | B/op (gc.alloc.rate.norm) | notes |\n");
                md.append("| --- | ---: | ---: | --- | --- | ---: | --- |\n");
                for (final Figure f : tput)
                {
                    md.append("| ").append(f.name).append(" | ").append(num(f.score)).append(" | ").append(num(f.error))
                        .append(" | ").append(f.unit).append(" | ").append(f.errorKind).append(" | ")
                        .append(Double.isNaN(f.alloc) ? "" : String.format("%.3f ± %s", f.alloc, num3(f.allocError)))
                        .append(" | ").append(f.note == null ? "" : f.note).append(" |\n");
                }
                md.append('\n');
            }
            if (!lat.isEmpty())
            {
                md.append("| latency, us | p50 | p90 | p99 | p99.9 | p99.99 | max | measured | notes |\n");
                md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
                for (final Figure f : lat)
                {
                    md.append("| ").append(f.name);
                    for (final String p : new String[] {"p50", "p90", "p99", "p99.9", "p99.99", "max"})
                    {
                        md.append(" | ").append(num1(f.percentiles.getOrDefault(p, Double.NaN)));
                    }
                    md.append(" | ").append(num(f.percentiles.getOrDefault("count", Double.NaN))).append(" | ")
                        .append(f.note == null ? "" : f.note).append(" |\n");
                }
                md.append("\nLatency: open loop at a fixed offered rate, from when each command was due (not sent), so " +
                    "coordinated omission is corrected; warm-up excluded; one run each.\n\n");
            }
            if (!rs.isEmpty())
            {
                md.append("| ratio | value | ± error | notes |\n| --- | ---: | ---: | --- |\n");
                for (final Ratio r : rs)
                {
                    md.append("| ").append(r.name).append(" | ").append(String.format("%.2f", r.value)).append(" | ")
                        .append(Double.isNaN(r.error) ? "n/a" : String.format("%.2f", r.error)).append(" | ")
                        .append(r.note == null ? "" : r.note).append(" |\n");
                }
                md.append('\n');
            }
        }
        if (!handicaps.isEmpty())
        {
            md.append("## Handicaps: what each side does that the other does not\n\n");
            handicaps.forEach(h -> md.append("- ").append(h).append('\n'));
            md.append('\n');
        }
        Files.writeString(file, md);
    }

    private static String num(final double v)
    {
        if (Double.isNaN(v))
        {
            return "n/a";
        }
        return Math.abs(v) >= 100 ? String.format("%,.0f", v) : String.format("%.3f", v);
    }

    private static String num1(final double v)
    {
        return Double.isNaN(v) ? "n/a" : String.format("%,.1f", v);
    }

    private static String num3(final double v)
    {
        return Double.isNaN(v) ? "n/a" : String.format("%.3f", v);
    }

    // ---- JSON ----------------------------------------------------------------------------------------------

    /** The same report for tools: numbers as numbers, a figure not measured (NaN) as null. */
    void writeJson(final Path file) throws IOException
    {
        final ObjectNode j = ResultFile.create();
        j.set("header", ResultFile.MAPPER.valueToTree(header));
        j.set("flows", ResultFile.MAPPER.valueToTree(flows));
        final ArrayNode fs = j.putArray("figures");
        for (final Figure f : figures)
        {
            final ObjectNode o = fs.addObject();
            o.put("section", f.section).put("name", f.name).put("unit", f.unit);
            number(o, "score", f.score);
            number(o, "error", f.error);
            o.put("errorKind", f.errorKind).put("n", f.n);
            final ArrayNode runs = o.putArray("runs");
            for (final double r : f.runs)
            {
                runs.add(r);
            }
            number(o, "allocBytesPerOp", f.alloc);
            number(o, "allocError", f.allocError);
            if (f.percentiles != null)
            {
                final ObjectNode p = o.putObject("percentiles");
                f.percentiles.forEach((k, v) -> number(p, k, v));
            }
            o.put("note", f.note);
        }
        final ArrayNode rs = j.putArray("ratios");
        for (final Ratio r : ratios)
        {
            final ObjectNode o = rs.addObject().put("section", r.section).put("name", r.name);
            number(o, "value", r.value);
            number(o, "error", r.error);
            o.put("note", r.note);
        }
        j.set("failures", ResultFile.MAPPER.valueToTree(failures));
        j.set("handicaps", ResultFile.MAPPER.valueToTree(handicaps));
        ResultFile.write(file, j);
    }

    private static void number(final ObjectNode o, final String key, final double v)
    {
        if (Double.isNaN(v) || Double.isInfinite(v))
        {
            o.putNull(key);
        }
        else
        {
            o.put(key, v);
        }
    }
}
