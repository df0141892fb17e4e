package io.gpux.bench.pipeline;

import io.gpux.bench.LatencyLine;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpux.bench.OrderFlowFeed;
import io.gpux.bench.ResultFile;
import io.gpux.engine.command.Command;
import io.gpux.engine.event.Event;
import io.gpux.core.pipeline.Durability;
import io.gpux.core.pipeline.ExchangePipeline;
import io.gpux.core.pipeline.PipelineContext;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * gpux's side of the pipeline comparison with exchange-core ({@code io.gpux.bench.xc.ExchangeCorePipelineBenchmark}
 * runs the same flow file through {@code ExchangeCore}): the whole pipeline of {@link PipelineBenchmark}
 * (sequencer, command journal, engine, event journal, publisher), fed an order flow instead of
 * {@link PlainFlow}, counted in <b>flow commands</b>. The gpux commands that only gpux needs after a flow command
 * (cancels of fully leased asks, lease releases) are published right behind it and count against gpux.
 * <ul>
 * <li>throughput ({@code --rate 0}): one producer publishes as fast as the ring takes it; flow commands per second
 *     from the first measured publish until the engine has applied the last command;</li>
 * <li>latency ({@code --rate N}): open loop, flow commands due at N per second; each flow command's latency is from
 *     when it was due (not sent) to its first event at the publisher, so a stall counts against every command
 *     queued behind it (coordinated omission corrected); warm-up excluded; HdrHistogram, 3 digits.</li>
 * </ul>
 * With {@code --json FILE}, also writes its figures there ({@code ResultFile}).
 */
@CommandLine.Command(name = "bench-flow-pipeline", mixinStandardHelpOptions = true)
public final class OrderFlowPipelineBenchmark implements Callable<Integer>
{
    @Option(names = "--json", description = "also write the figures to this JSON file (what ./gpux bench reads)")
    Path json;

    @Option(names = "--flow", description = "lobster or synthetic (default ${DEFAULT-VALUE})")
    String flow = "synthetic";

    @Option(names = "--flow-dir", description = "directory of the flow files (default: benchmarks/target/flows)")
    String flowDir = "";

    @Option(names = "--durability", description = "ASYNC or SYNC (default ${DEFAULT-VALUE})")
    Durability durability = Durability.ASYNC;

    @Option(names = "--messages", description = "measured flow commands (default ${DEFAULT-VALUE})")
    int messages = 2_000_000;

    @Option(names = "--warmup", description = "warm-up flow commands, not measured (default ${DEFAULT-VALUE})")
    int warmup = 500_000;

    @Option(names = "--rate", description = "offered flow commands/s for the latency run; 0 = throughput run")
    long rate;

    @Option(names = "--dir", description = "data directory (default: a temporary one, deleted after)")
    Path dir;

    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new OrderFlowPipelineBenchmark()).setCaseInsensitiveEnumValuesAllowed(true).execute(args));
    }

    @Override
    public Integer call() throws Exception
    {
        final Path data = dir != null ? dir : Files.createTempDirectory("gpux-flow-pipeline-bench");
        try
        {
            run(data);
        }
        finally
        {
            if (dir == null)
            {
                PipelineBenchmark.delete(data);
            }
        }
        return 0;
    }

    private void run(final Path data) throws Exception
    {
        final OrderFlowFeed feed = OrderFlowFeed.of(flow, flowDir);
        System.out.printf("gpux pipeline on order flow %s (%s): %s%n", flow, durability, feed.notes());
        final int total = warmup + messages;
        // due times by pipeline sequence: every flow command may be followed by a few gpux-only commands
        final long[] due = new long[feed.setup().size() + (int)Math.ceil(total * feed.commandsPerFlowCommand()) +
            feed.commandsPerPass() + 16];
        final Histogram histogram = new Histogram(3_600_000_000L, 3);
        final long[] lastSeen = {0};
        final PipelineContext ctx = new PipelineContext().dataDir(data).durability(durability)
            .tickIntervalMs(0).snapshotEvery(0).log(m -> { })
            .publisher((Event e) ->
            {
                final long seq = e.commandSequence;
                if (seq > lastSeen[0])
                {
                    lastSeen[0] = seq;
                    if (seq < due.length && due[(int)seq] != 0)
                    {
                        histogram.recordValue(Math.max(0, System.nanoTime() - due[(int)seq]));
                    }
                }
            });
        long sequence = 0;
        try (ExchangePipeline pipeline = ExchangePipeline.start(ctx))
        {
            for (final Command c : feed.setup())
            {
                publish(pipeline, c);
                sequence++;
            }
            if (rate > 0)
            {
                latency(pipeline, feed, due, histogram, sequence);
            }
            else
            {
                throughput(pipeline, feed, sequence);
            }
            if (pipeline.failed())
            {
                throw new IllegalStateException("the pipeline failed");
            }
        }
    }

    /** Open loop at {@code rate} flow commands a second, each flow command's latency to its first event recorded. */
    private void latency(final ExchangePipeline pipeline, final OrderFlowFeed feed, final long[] due, final Histogram histogram,
        final long from) throws Exception
    {
        final int total = warmup + messages;
        long sequence = from;
        final long interval = 1_000_000_000L / rate;
        long next = System.nanoTime();
        int sent = 0;
        while (sent < total || !feed.nextIsFlowCommand())
        {
            if (feed.nextIsFlowCommand())
            {
                while (System.nanoTime() < next)
                {
                    // a yielding wait, as PipelineBenchmark's: a spinning load generator would take a core
                    Thread.yield();
                }
                sent++;
                if (sent > warmup && sequence + 1 < due.length)
                {
                    due[(int)(sequence + 1)] = next;
                }
                next += interval;
            }
            publish(pipeline, feed.next());
            sequence++;
        }
        awaitApplied(pipeline, sequence);
        System.out.printf("latency %s at %,d flow commands/s offered, %,d measured after %,d warm-up (us): %s%n",
            durability, rate, histogram.getTotalCount(), warmup, LatencyLine.of(histogram));
        final ObjectNode figures = ResultFile.create();
        ResultFile.latency(figures, "latency", histogram);
        ResultFile.write(json, figures);
    }

    /** Closed loop: the warm-up applied, then the measured flow commands as fast as the ring takes them. */
    private void throughput(final ExchangePipeline pipeline, final OrderFlowFeed feed, final long from) throws Exception
    {
        long sequence = publishFlow(pipeline, feed, warmup, from);
        awaitApplied(pipeline, sequence);
        final long measuredFrom = sequence;
        final long t0 = System.nanoTime();
        sequence = publishFlow(pipeline, feed, messages, sequence);
        awaitApplied(pipeline, sequence);
        final long ns = System.nanoTime() - t0;
        System.out.printf("throughput %s: %,d flow commands (%,d gpux commands) in %.3f s = %,.0f flow commands/s " +
            "(both journals on)%n", durability, messages, sequence - measuredFrom, ns / 1e9, messages * 1e9 / ns);
        final ObjectNode figures = ResultFile.create();
        figures.put("flowCommands", messages);
        figures.put("seconds", ns / 1e9);
        figures.put("flowCommandsPerSecond", messages * 1e9 / ns);
        ResultFile.write(json, figures);
    }

    /** Publishes the gpux commands of {@code n} flow commands; returns the pipeline sequence reached. */
    private static long publishFlow(final ExchangePipeline pipeline, final OrderFlowFeed feed, final int n, final long from)
    {
        long sequence = from;
        int sent = 0;
        while (true)
        {
            if (feed.nextIsFlowCommand())
            {
                if (sent == n)
                {
                    return sequence;
                }
                sent++;
            }
            publish(pipeline, feed.next());
            sequence++;
        }
    }

    private static void publish(final ExchangePipeline pipeline, final Command c)
    {
        while (!pipeline.tryPublish(c))
        {
            Thread.yield();
        }
    }

    private static void awaitApplied(final ExchangePipeline pipeline, final long sequence)
    {
        while (pipeline.appliedCommands() < sequence)
        {
            if (pipeline.failed())
            {
                throw new IllegalStateException("the pipeline failed");
            }
            Thread.onSpinWait();
        }
    }
}
