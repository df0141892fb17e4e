package io.gpux.core.pipeline;

import io.gpux.engine.command.Command;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A context takes its defaults from the system properties of {@link PipelineConfiguration} (the built-in
 * defaults without them), a setter still wins, and a pipeline started from such a context runs by them.
 */
@Isolated // sets system properties that every pipeline context reads
class PipelineConfigurationTest
{
    private static final List<String> PROPS = List.of(PipelineConfiguration.RING_SIZE_PROP,
        PipelineConfiguration.OUTPUT_RING_SIZE_PROP, PipelineConfiguration.TICK_INTERVAL_PROP,
        PipelineConfiguration.SNAPSHOT_EVERY_PROP, PipelineConfiguration.SNAPSHOTS_KEPT_PROP,
        PipelineConfiguration.MIN_FREE_BYTES_PROP, PipelineConfiguration.SNAPSHOT_TWIN_PROP);

    @TempDir
    Path dir;

    @AfterEach
    void clearProperties()
    {
        PROPS.forEach(System::clearProperty);
    }

    @Test
    void withoutPropertiesTheBuiltInDefaults()
    {
        final PipelineContext ctx = new PipelineContext();
        assertEquals(1 << 14, ctx.ringSize());
        assertEquals(1 << 16, ctx.outputRingSize());
        assertEquals(100, ctx.tickIntervalMs());
        assertEquals(1_000_000, ctx.snapshotEvery());
        assertTrue(!ctx.snapshotTwin());
        assertEquals(3, ctx.snapshotsKept());
        assertEquals(64L << 20, ctx.minFreeBytes());
    }

    @Test
    void thePropertiesSetTheDefaultsAndASetterStillWins()
    {
        System.setProperty(PipelineConfiguration.RING_SIZE_PROP, "1024");
        System.setProperty(PipelineConfiguration.OUTPUT_RING_SIZE_PROP, "2048");
        System.setProperty(PipelineConfiguration.TICK_INTERVAL_PROP, "25");
        System.setProperty(PipelineConfiguration.SNAPSHOT_EVERY_PROP, "500");
        System.setProperty(PipelineConfiguration.SNAPSHOTS_KEPT_PROP, "7");
        System.setProperty(PipelineConfiguration.MIN_FREE_BYTES_PROP, "12345");
        System.setProperty(PipelineConfiguration.SNAPSHOT_TWIN_PROP, "true");
        final PipelineContext ctx = new PipelineContext();
        assertEquals(1024, ctx.ringSize());
        assertEquals(2048, ctx.outputRingSize());
        assertEquals(25, ctx.tickIntervalMs());
        assertEquals(500, ctx.snapshotEvery());
        assertEquals(7, ctx.snapshotsKept());
        assertEquals(12345, ctx.minFreeBytes());
        assertTrue(ctx.snapshotTwin());
        assertTrue(!new PipelineContext().snapshotTwin(false).snapshotTwin());
        assertEquals(9, new PipelineContext().snapshotEvery(9).snapshotEvery());
    }

    @Test
    void aPipelineSnapshotsEveryAsThePropertySays() throws Exception
    {
        System.setProperty(PipelineConfiguration.SNAPSHOT_EVERY_PROP, "50");
        final List<Command> commands = PipelineRecoveryTest.commands(3, 120);
        try (ExchangePipeline pipeline = ExchangePipeline.start(new PipelineContext().dataDir(dir)
            .tickIntervalMs(0).pretouch(false).log(s -> { })))
        {
            for (final Command c : commands)
            {
                while (!pipeline.tryPublish(c))
                {
                    Thread.onSpinWait();
                }
            }
        }
        System.clearProperty(PipelineConfiguration.SNAPSHOT_EVERY_PROP);
        try (ExchangePipeline restarted = ExchangePipeline.start(new PipelineContext().dataDir(dir)
            .tickIntervalMs(0).snapshotEvery(0).pretouch(false).log(s -> { })))
        {
            final long at = restarted.recovered().snapshotSequence();
            assertTrue(at >= 50 && at <= commands.size(), "recovered from a periodic snapshot, at command " + at);
            assertEquals(commands.size(), restarted.recovered().commandSequence());
        }
    }
}
