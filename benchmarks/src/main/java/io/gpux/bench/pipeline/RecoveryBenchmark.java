package io.gpux.bench.pipeline;

import io.gpux.bench.ResultFile;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpux.engine.command.Command;
import io.gpux.core.journal.Journal;
import io.gpux.core.pipeline.ExchangePipeline;
import io.gpux.core.pipeline.PipelineContext;
import io.gpux.core.pipeline.Recovery;
import picocli.CommandLine;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * Journals {@code --commands} commands through the pipeline (snapshots every {@code --snapshot-every}),
 * then measures a restart: the newest snapshot, the journal tail replayed, every regenerated event
 * checked against the event journal. Also times a full replay from the first command, for comparison.
 */
@CommandLine.Command(name = "recovery-bench", mixinStandardHelpOptions = true)
public final class RecoveryBenchmark implements Callable<Integer>
{
    @Option(names = "--json", description = "also write the figures to this JSON file (what ./gpux bench reads)")
    Path json;

    @Option(names = "--commands", description = "commands to journal before the restart")
    int commands = 10_000_000;

    @Option(names = "--snapshot-every", description = "snapshot interval in commands")
    long snapshotEvery = 1_000_000;

    @Option(names = "--full-replay", negatable = true, description = "also time a replay from scratch")
    boolean fullReplay = true;

    @Option(names = "--dir", description = "data directory (default: a temporary one, deleted after)")
    Path dir;

    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new RecoveryBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception
    {
        final Path data = dir != null ? dir : Files.createTempDirectory("gpux-recovery-bench");
        try
        {
            final PipelineContext ctx = new PipelineContext().dataDir(data).tickIntervalMs(0)
                .snapshotEvery(snapshotEvery).log(m -> { });
            final long t0 = System.nanoTime();
            try (ExchangePipeline pipeline = ExchangePipeline.start(ctx))
            {
                for (final Command c : PlainFlow.setup())
                {
                    publish(pipeline, c);
                }
                final int chunk = 1_000_000;
                for (int done = 0; done < commands; done += chunk)
                {
                    // each chunk starts from an empty set of its own orders: cancel-free, so ids never collide
                    for (final Command c : PlainFlow.flow(done, Math.min(chunk, commands - done), 1L + done))
                    {
                        publish(pipeline, c);
                    }
                }
            }
            final double journalSeconds = (System.nanoTime() - t0) / 1e9;
            System.out.printf("journaled %,d commands in %.1f s (snapshot every %,d)%n", commands, journalSeconds,
                snapshotEvery);
            final ObjectNode figures = ResultFile.create();
            figures.put("commands", commands);
            figures.put("journalSeconds", journalSeconds);

            final long t1 = System.nanoTime();
            final Recovery.Result r;
            try (ExchangePipeline restarted = ExchangePipeline.start(ctx))
            {
                r = restarted.recovered();
            }
            final double recoverySeconds = (System.nanoTime() - t1) / 1e9;
            System.out.printf("recovery with snapshots: %.2f s (snapshot at command %,d, %,d commands replayed, " +
                "%,d events checked), state at command %,d%n", recoverySeconds, r.snapshotSequence(),
                r.replayedCommands(), r.checkedEvents(), r.commandSequence());
            final ObjectNode recovery = figures.putObject("recovery");
            recovery.put("seconds", recoverySeconds);
            recovery.put("snapshotSequence", r.snapshotSequence());
            recovery.put("replayedCommands", r.replayedCommands());
            recovery.put("checkedEvents", r.checkedEvents());

            if (fullReplay)
            {
                final long t2 = System.nanoTime();
                try (Journal commandJournal = Journal.openReadOnly(data.resolve("commands"));
                    Journal eventJournal = Journal.openReadOnly(data.resolve("events")))
                {
                    final Recovery.Result full = Recovery.recover(commandJournal, eventJournal, null, null, true, m -> { });
                    final double fullSeconds = (System.nanoTime() - t2) / 1e9;
                    System.out.printf("full replay from command 1: %.2f s (%,d commands, %,d events checked)%n",
                        fullSeconds, full.replayedCommands(), full.checkedEvents());
                    final ObjectNode replay = figures.putObject("fullReplay");
                    replay.put("seconds", fullSeconds);
                    replay.put("replayedCommands", full.replayedCommands());
                    replay.put("checkedEvents", full.checkedEvents());
                }
            }
            System.out.printf("journal files: commands %,d bytes, events %,d bytes (apparent size)%n",
                PipelineBenchmark.size(data.resolve("commands")), PipelineBenchmark.size(data.resolve("events")));
            ResultFile.write(json, figures);
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

    private static void publish(final ExchangePipeline pipeline, final Command c)
    {
        while (!pipeline.tryPublish(c))
        {
            Thread.yield();
        }
    }
}
