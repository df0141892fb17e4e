package io.gpux.core.pipeline;

import io.gpux.engine.command.Command;
import io.gpux.core.journal.EventCodec;
import io.gpux.engine.replay.RandomScenario;
import io.gpux.engine.replay.ScenarioParser;
import io.gpux.engine.replay.Symbols;

import java.io.BufferedOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * The process {@link CrashRecoveryTest} kills: recovers the pipeline from a data directory, prints
 * {@code RECOVERED <command sequence> <state hash>}, then drives a seeded stream of market commands
 * through it (renters, owners, market-maker cancel/replace bursts, preemptions, ticks) and prints
 * {@code E <event sequence> <command sequence> <crc32c of the event record>} for every event it is
 * published, until it is killed.
 */
public final class CrashChild
{
    private CrashChild()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Path dir = Path.of(args[0]);
        final long seed = Long.parseLong(args[1]);
        final PrintStream out = new PrintStream(new BufferedOutputStream(System.out, 1 << 16), false);
        final EventCodec codec = new EventCodec();
        final CRC32C crc = new CRC32C();
        final ExchangePipeline pipeline = ExchangePipeline.start(new PipelineContext()
            .dataDir(dir).snapshotEvery(2_000).tickIntervalMs(20).yielding(false).log(m -> { })
            .publisher(e ->
            {
                final int n = codec.encode(e);
                crc.reset();
                crc.update(codec.bytes(), 0, n);
                synchronized (out)
                {
                    out.append("E ").append(Long.toString(e.sequence)).append(' ').append(Long.toString(e.commandSequence))
                        .append(' ').append(Long.toString(crc.getValue())).append('\n');
                    out.flush();
                }
            }));
        synchronized (out)
        {
            out.println("RECOVERED " + pipeline.recovered().commandSequence() + " " + Long.toHexString(pipeline.lastStateHash()));
            out.flush();
        }
        // the scenario's own times are replaced by the sequencer's clock
        final ScenarioParser parser = new ScenarioParser(new Symbols());
        final RandomScenario scenario = new RandomScenario(seed);
        final Command command = new Command();
        int line = 0;
        for (final String text : scenario.header())
        {
            parser.parse(text, ++line, command);
            publish(pipeline, command);
        }
        while (true)
        {
            if (parser.parse(scenario.next(), ++line, command))
            {
                publish(pipeline, command);
            }
        }
    }

    private static void publish(final ExchangePipeline pipeline, final Command command) throws InterruptedException
    {
        while (!pipeline.tryPublish(command))
        {
            Thread.sleep(1);
        }
    }
}
