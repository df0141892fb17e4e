package io.gpux.tools;

import io.gpux.engine.command.Command;
import io.gpux.core.pipeline.ExchangePipeline;
import io.gpux.core.pipeline.PipelineContext;
import io.gpux.core.pipeline.PipelineRecoveryTest;
import io.gpux.engine.replay.ScenarioReplayer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code gpux journal dump} prints replayable commands and the journaled events; {@code verify} passes. */
class JournalToolTest
{
    @TempDir
    Path dir;

    private static String run(final String... args)
    {
        final PrintStream saved = System.out;
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try
        {
            System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
            final int status = new CommandLine(new JournalTool()).execute(args);
            assertEquals(0, status, "exit status of journal " + String.join(" ", args));
        }
        finally
        {
            System.setOut(saved);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void dumpedCommandsReplayToTheJournaledEvents() throws Exception
    {
        final List<Command> commands = PipelineRecoveryTest.commands(21, 1500);
        final PipelineRecoveryTest.ScenarioClock clock = new PipelineRecoveryTest.ScenarioClock();
        try (ExchangePipeline pipeline = ExchangePipeline.start(new PipelineContext().dataDir(dir).clock(clock)
            .tickIntervalMs(0).snapshotEvery(400).yielding(false).log(m -> { })))
        {
            int published = 0;
            for (final Command c : commands)
            {
                clock.now.set(c.timeMs);
                while (!pipeline.tryPublish(c))
                {
                    Thread.onSpinWait();
                }
                if (++published % 250 == 0)
                {
                    // let batches end, so that snapshots are taken along the way
                    while (pipeline.appliedCommands() < published)
                    {
                        Thread.onSpinWait();
                    }
                }
            }
        }
        final String scenario = run("dump", dir.toString(), "--commands");
        final String events = run("dump", dir.toString(), "--events");
        assertEquals(commands.size(), scenario.lines().count());
        assertTrue(scenario.lines().anyMatch(l -> l.contains(" MARKET id=H100-SXM-80G ")), "names come back from registrations");
        assertEquals(events, ScenarioReplayer.replay(scenario), "the dump replays to exactly the journaled events");

        final String tail = run("dump", dir.toString(), "--events", "--from", "100");
        assertTrue(events.endsWith(tail) && tail.length() < events.length());

        final String verify = run("verify", dir.toString());
        assertTrue(verify.contains("journal verified"), verify);
        assertTrue(verify.lines().filter(l -> l.startsWith("ok")).count() >= 2, "checked from each snapshot: " + verify);
    }
}
