package io.gpux.bench.suite;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code pipeline}, {@code recovery} and {@code roundtrip} sections of a {@link BenchSuite} run: gpux's own
 * pipeline (throughput and latency, with and without a core thread), its restart, and the gateway's round trip,
 * each in a JVM of its own. Runs on the suite's thread.
 */
final class PipelineSections extends Section
{
    PipelineSections(final SuiteRun run)
    {
        super(run);
    }

    void pipeline()
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

    void recovery()
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

    void roundTrip()
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
}
