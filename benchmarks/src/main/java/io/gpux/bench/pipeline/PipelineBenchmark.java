package io.gpux.bench.pipeline;

import io.gpux.bench.ResultFile;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpux.bench.LatencyLine;
import io.gpux.engine.command.Command;
import io.gpux.engine.event.Event;
import io.gpux.core.pipeline.Durability;
import io.gpux.core.pipeline.ExchangePipeline;
import io.gpux.core.pipeline.PipelineContext;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * The whole pipeline (publish, sequence, command journal, engine, event journal, publisher) on a
 * fresh data directory: throughput as fast as one producer can publish, and latency from a
 * command's intended send time to its first event at the publisher, open loop at a fixed offered
 * rate, corrected for coordinated omission (measured from when each command was due, not sent).
 */
@CommandLine.Command(name = "pipeline-bench", mixinStandardHelpOptions = true)
public final class PipelineBenchmark implements Callable<Integer>
{
    @Option(names = "--json", description = "also write the figures to this JSON file (what ./gpux bench reads)")
    Path json;

    @Option(names = "--durability", description = "ASYNC or SYNC")
    Durability durability = Durability.ASYNC;

    @Option(names = "--commands", description = "measured commands")
    int commands = 2_000_000;

    @Option(names = "--warmup", description = "warm-up commands, not measured")
    int warmup = 500_000;

    @Option(names = "--rate", description = "offered rate in commands/s for the latency run; 0 = throughput run")
    long rate;

    @Option(names = "--output-ring", description = "hand events to an output thread through the output ring " +
        "instead of writing them on the core thread")
    boolean outputRing;

    @Option(names = "--busy-spin", description = "the core thread busy-spins instead of yielding when idle")
    boolean busySpin;

    @Option(names = "--output-wait", description = "the output thread's wait strategy: yielding or blocking")
    String outputWait = "yielding";

    /** How the load generator waits for a command's due time. */
    enum Pacer
    {
        /** Parks until the next command is due. */
        PARK,
        /** Yields until the next command is due: a thread that never sleeps. */
        YIELD,
        /**
         * As the gateway's shared loop waits ({@code ./gpux server --spin-us}): yields for {@code --spin-us} after
         * its last work (a publish, or a poll that applied something), then parks until the next command is due.
         */
        LOOP
    }

    @Option(names = "--pacer", description = "the load generator waits by parking (PARK), yielding (YIELD), or as the " +
        "gateway's shared loop does (LOOP: yields for --spin-us after its last work, then parks). Default: LOOP with " +
        "--polled (the load thread is then the exchange's loop), else PARK")
    Pacer pacer;

    @Option(names = "--spin-us", description = "LOOP: how long the loop spins after its last work before it parks " +
        "(default ${DEFAULT-VALUE}, as ./gpux server)")
    long spinUs = 50;

    @Option(names = "--no-pretouch", description = "the core thread takes the journals' page faults itself (no pretoucher)")
    boolean noPretouch;

    @Option(names = "--polled", description = "no core thread: the load generator's thread applies what it published " +
        "(ExchangePipeline.poll) before it waits for the next command, as the gateway's event loop does in the shared " +
        "thread layout (the default of ./gpux server)")
    boolean polled;

    @Option(names = "--timer-slack-ns", description = "the load generator thread's timer slack, Linux " +
        "/proc/TID/timerslack_ns (default ${DEFAULT-VALUE}: a park wakes on time; the kernel's default, 50,000, lets " +
        "it wake up to 50 us late and send the commands due meanwhile in a burst); -1: leave it")
    long timerSlackNs = 1;

    @Option(names = "--dir", description = "data directory (default: a temporary one, deleted after)")
    Path dir;

    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new PipelineBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception
    {
        final Path data = dir != null ? dir : Files.createTempDirectory("gpux-pipeline-bench");
        try
        {
            run(data);
        }
        finally
        {
            if (dir == null)
            {
                delete(data);
            }
        }
        return 0;
    }

    private void run(final Path data) throws Exception
    {
        final List<Command> setup = PlainFlow.setup();
        final Command[] flow = PlainFlow.flow(42, warmup + commands);
        final int base = setup.size();
        final long[] due = new long[base + flow.length + 2];
        final long[] sent = new long[base + flow.length + 2];
        final Histogram histogram = new Histogram(3_600_000_000L, 3);
        final Histogram fromSent = new Histogram(3_600_000_000L, 3);
        final long[] lastSeen = {0};
        final PipelineContext ctx = new PipelineContext().dataDir(data).durability(durability)
            .tickIntervalMs(0).snapshotEvery(0).log(PipelineBenchmark::logFatal).outputYielding(!"blocking".equals(outputWait))
            .inlineOutput(!outputRing).busySpin(busySpin).pretouch(!noPretouch)
            .publisher((Event e) ->
            {
                final long seq = e.commandSequence;
                if (seq > lastSeen[0] && seq < due.length)
                {
                    lastSeen[0] = seq;
                    if (rate > 0 && seq > base + warmup && due[(int)seq] != 0)
                    {
                        final long now = System.nanoTime();
                        histogram.recordValue(Math.max(0, now - due[(int)seq]));
                        fromSent.recordValue(Math.max(0, now - sent[(int)seq]));
                    }
                }
            });
        if (polled)
        {
            ctx.polled(() -> { });
        }
        try (ExchangePipeline pipeline = ExchangePipeline.start(ctx))
        {
            for (final Command c : setup)
            {
                publish(pipeline, c);
            }
            if (rate > 0)
            {
                latency(pipeline, flow, base, due, sent, histogram, fromSent);
            }
            else
            {
                throughput(pipeline, flow, base);
            }
        }
        System.out.printf("journal files: commands %,d bytes, events %,d bytes (apparent size)%n", size(data.resolve("commands")),
            size(data.resolve("events")));
    }

    /** Open loop at {@code rate}: each command published when due, its latency to its first event recorded. */
    private void latency(final ExchangePipeline pipeline, final Command[] flow, final int base, final long[] due,
        final long[] sent, final Histogram histogram, final Histogram fromSent) throws Exception
    {
        final long interval = 1_000_000_000L / rate;
        if (timerSlackNs >= 0)
        {
            setTimerSlack(timerSlackNs);
        }
        final Pacer waits = pacer != null ? pacer : polled ? Pacer.LOOP : Pacer.PARK;
        final long spinNs = spinUs * 1_000;
        long next = System.nanoTime();
        long lastWork = next;
        for (int i = 0; i < flow.length; i++)
        {
            lastWork = waitUntil(pipeline, next, waits, spinNs, lastWork);
            due[base + i + 1] = next;
            do
            {
                // written before the command can reach the publisher
                sent[base + i + 1] = System.nanoTime();
            }
            while (!tryPublish(pipeline, flow[i]) && drain(pipeline) >= 0);
            lastWork = sent[base + i + 1];
            next += interval;
        }
        awaitApplied(pipeline, base + flow.length);
        System.out.printf("latency %s%s at %,d commands/s offered, pacer %s, %,d measured after %,d warm-up " +
            "(us): %s%n", durability, polled ? " polled" : "", rate,
            waits == Pacer.LOOP ? "LOOP (spins " + spinUs + " us)" : waits, histogram.getTotalCount(), warmup,
            LatencyLine.of(histogram));
        System.out.printf("  from the publish (the load generator's own lateness excluded) (us): %s%n",
            LatencyLine.of(fromSent));
        final ObjectNode figures = ResultFile.create();
        ResultFile.latency(figures, "fromDue", histogram);
        ResultFile.latency(figures, "fromPublish", fromSent);
        ResultFile.write(json, figures);
    }

    /** Waits until {@code next}, the pacer's way (polled, applying what was published meanwhile); returns the last work's time. */
    private long waitUntil(final ExchangePipeline pipeline, final long next, final Pacer waits, final long spinNs,
        final long lastWorkBefore)
    {
        long lastWork = lastWorkBefore;
        long wait;
        while ((wait = next - System.nanoTime()) > 0)
        {
            if (polled && drain(pipeline) > 0)
            {
                // applied what was published; the next command may be due by now
                lastWork = System.nanoTime();
                continue;
            }
            if (waits == Pacer.PARK || waits == Pacer.LOOP && System.nanoTime() - lastWork >= spinNs)
            {
                // sleeps (a timer wake-up is ~50-60 us late here, so commands go out in small
                // bursts, each stamped with its own due time): the load generator leaves the
                // cores to the exchange and the OS, as a gateway's network threads would
                java.util.concurrent.locks.LockSupport.parkNanos(wait);
            }
            else
            {
                // a yielding wait: it keeps a core busy, and its own stalls count
                Thread.yield();
            }
        }
        return lastWork;
    }

    /** Closed loop: the warm-up applied, then the measured commands published as fast as the ring takes them. */
    private void throughput(final ExchangePipeline pipeline, final Command[] flow, final int base) throws Exception
    {
        for (int i = 0; i < warmup; i++)
        {
            publish(pipeline, flow[i]);
        }
        awaitApplied(pipeline, base + warmup);
        final long t0 = System.nanoTime();
        for (int i = warmup; i < flow.length; i++)
        {
            publish(pipeline, flow[i]);
        }
        awaitApplied(pipeline, base + flow.length);
        final long ns = System.nanoTime() - t0;
        System.out.printf("throughput %s%s: %,d commands in %.3f s = %,.0f commands/s (both journals on)%n",
            durability, polled ? " polled" : "", commands, ns / 1e9, commands * 1e9 / ns);
        final ObjectNode figures = ResultFile.create();
        figures.put("commands", commands);
        figures.put("seconds", ns / 1e9);
        figures.put("commandsPerSecond", commands * 1e9 / ns);
        ResultFile.write(json, figures);
    }

    /**
     * A full ring means BUSY: back off and let the pipeline's threads have the cores (there are only 2);
     * polled, apply what is in the ring.
     */
    private void publish(final ExchangePipeline pipeline, final Command c)
    {
        while (!tryPublish(pipeline, c))
        {
            if (drain(pipeline) == 0)
            {
                Thread.yield();
            }
        }
    }

    /** Polled: applies everything published so far, on this thread; how many. Else 0. */
    private int drain(final ExchangePipeline pipeline)
    {
        if (!polled)
        {
            return 0;
        }
        int n = 0;
        int k;
        while ((k = pipeline.poll(4096)) > 0)
        {
            n += k;
        }
        return n;
    }

    private static boolean tryPublish(final ExchangePipeline pipeline, final Command c)
    {
        if (pipeline.tryPublish(c))
        {
            return true;
        }
        if (pipeline.failed())
        {
            throw new IllegalStateException("the pipeline failed (see FATAL above)");
        }
        return false;
    }

    /** Sets this thread's timer slack, or says why it could not. */
    private static void setTimerSlack(final long ns)
    {
        final int tid = net.openhft.posix.PosixAPI.posix().gettid();
        final Path file = Path.of("/proc/" + tid + "/timerslack_ns");
        try
        {
            Files.writeString(file, Long.toString(ns));
            System.out.printf("load generator thread %d: timer slack %s ns%n", tid, Files.readString(file).trim());
        }
        catch (final IOException | RuntimeException ex)
        {
            System.out.println("could not set the timer slack (" + file + "): " + ex);
        }
    }

    /** Only a failing stage is worth a line: the benchmark's output is its numbers. */
    private static void logFatal(final String message)
    {
        if (message.startsWith("FATAL"))
        {
            System.err.println(message);
        }
    }

    private void awaitApplied(final ExchangePipeline pipeline, final long sequence)
    {
        while (pipeline.appliedCommands() < sequence)
        {
            drain(pipeline);
            if (pipeline.failed())
            {
                throw new IllegalStateException("the pipeline failed (see FATAL above)");
            }
            Thread.onSpinWait();
        }
    }

    /** Bytes of the journal files (Chronicle preallocates its files sparsely: this is their apparent size). */
    static long size(final Path dir) throws IOException
    {
        if (!Files.exists(dir))
        {
            return 0;
        }
        try (Stream<Path> s = Files.walk(dir))
        {
            return s.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    static void delete(final Path dir) throws IOException
    {
        try (Stream<Path> s = Files.walk(dir))
        {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
