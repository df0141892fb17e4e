package io.gpux.bench.pipeline;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.command.TimeInForce;
import io.gpux.core.pipeline.ExchangePipeline;
import io.gpux.core.pipeline.PipelineContext;
import io.gpux.engine.replay.ScenarioParser;
import io.gpux.engine.replay.Symbols;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One command through the pipeline's core, on this thread (a polled pipeline, as the gateway's shared
 * loop runs it): published, sequenced, written to the command journal, applied by the engine (an IOC
 * bid on an empty book: accepted, then cancelled), its events written to the event journal, and the
 * core's counters updated. For the core path's cost per command and its allocation ({@code -prof gc}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CorePathBenchmark
{
    private static final String[] SETUP = {
        "0 MARKET id=H100-SXM-80G",
        "0 ACCOUNT id=alice roles=RENTER",
        "0 DEPOSIT account=alice amount=1000000000",
        "1 BID id=b1 account=alice market=H100-SXM-80G gpus=1 price=2.5000 tif=IOC",
    };

    private Path dir;
    private ExchangePipeline pipeline;
    private final Command bid = new Command();
    private long orderId = 1_000;

    @Setup
    public void setUp() throws Exception
    {
        dir = Files.createTempDirectory("gpux-corepath");
        pipeline = ExchangePipeline.start(new PipelineContext().dataDir(dir).polled(() -> { })
            .clock(() -> 1_764_480_000_000L).tickIntervalMs(0).snapshotEvery(0).pretouch(false).log(s -> { }));
        final ScenarioParser parser = new ScenarioParser(new Symbols());
        final Command c = new Command();
        for (int i = 0; i < SETUP.length; i++)
        {
            parser.parse(SETUP[i], i + 1, c);
            if (i < SETUP.length - 1)
            {
                publishAndApply(c);
            }
        }
        bid.copyFrom(c);
        if (bid.type != CommandType.BID || bid.tif != TimeInForce.IOC)
        {
            throw new IllegalStateException("the benchmark's bid is not an IOC bid: " + bid.type);
        }
    }

    @TearDown
    public void tearDown() throws Exception
    {
        pipeline.close();
        try (Stream<Path> files = Files.walk(dir))
        {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private void publishAndApply(final Command c)
    {
        if (!pipeline.tryPublish(c))
        {
            throw new IllegalStateException("ring full");
        }
        pipeline.poll(1);
    }

    /** An IOC bid through the core: journal, engine, events, counters. */
    @Benchmark
    public long iocBid()
    {
        bid.orderId = ++orderId;
        publishAndApply(bid);
        return pipeline.appliedCommands();
    }
}
