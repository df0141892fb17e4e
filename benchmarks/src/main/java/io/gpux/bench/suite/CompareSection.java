package io.gpux.bench.suite;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code compare} section of a {@link BenchSuite} run: gpux's whole pipeline against exchange-core's on the
 * same order flow, throughput and open-loop latency, each configuration in a JVM of its own. Runs on the suite's
 * thread.
 */
final class CompareSection extends Section
{
    CompareSection(final SuiteRun run)
    {
        super(run);
    }

    void compare(final String flow)
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
            compareLatency(flow, rate);
        }
    }

    /** Each configuration's open-loop latency at {@code rate} flow commands a second, and exchange-core's against gpux's. */
    private void compareLatency(final String flow, final long rate)
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
}
