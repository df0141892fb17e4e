package io.gpux.gateway;

import io.gpux.core.pipeline.PipelineContext;
import io.gpux.core.pipeline.PipelineConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The exchange's settings for its core take their defaults from the same place as the pipeline's; the
 * gateway's timers default as documented and read their properties.
 */
@Isolated // sets system properties that every exchange context reads
class ExchangeContextDefaultsTest
{
    @AfterEach
    void clearProperties()
    {
        System.clearProperty(PipelineConfiguration.TICK_INTERVAL_PROP);
        System.clearProperty(PipelineConfiguration.SNAPSHOT_EVERY_PROP);
        System.clearProperty(PipelineConfiguration.MIN_FREE_BYTES_PROP);
        System.clearProperty(PipelineConfiguration.COUNTER_SAMPLE_PROP);
        System.clearProperty(GatewayConfiguration.CLOSE_GRACE_PROP);
        System.clearProperty(GatewayConfiguration.METRICS_SAMPLE_PROP);
    }

    @Test
    void theCoreSettingsDefaultAsThePipelinesDo()
    {
        assertSameCoreDefaults();
        System.setProperty(PipelineConfiguration.TICK_INTERVAL_PROP, "40");
        System.setProperty(PipelineConfiguration.SNAPSHOT_EVERY_PROP, "2000");
        System.setProperty(PipelineConfiguration.MIN_FREE_BYTES_PROP, String.valueOf(5L << 20));
        System.setProperty(PipelineConfiguration.COUNTER_SAMPLE_PROP, "300");
        assertSameCoreDefaults();
        assertEquals(300, new ExchangeContext().counterSampleMs());
        assertEquals(40, new ExchangeContext().tickIntervalMs());
        assertEquals(2000, new ExchangeContext().snapshotEvery());
        assertEquals(5L << 20, new ExchangeContext().minFreeBytes());
    }

    private static void assertSameCoreDefaults()
    {
        final ExchangeContext exchange = new ExchangeContext();
        final PipelineContext pipeline = new PipelineContext();
        assertEquals(pipeline.tickIntervalMs(), exchange.tickIntervalMs());
        assertEquals(pipeline.snapshotEvery(), exchange.snapshotEvery());
        assertEquals(pipeline.minFreeBytes(), exchange.minFreeBytes());
        assertEquals(pipeline.counterSampleMs(), exchange.counterSampleMs());
    }

    @Test
    void theTimersDefaultAsDocumentedAndReadTheirProperties()
    {
        final ExchangeContext defaults = new ExchangeContext();
        assertEquals(5_000, defaults.closeGraceMs());
        assertEquals(1_000, defaults.metricsSampleIntervalMs());
        assertEquals(1_000, new PipelineContext().counterSampleMs());
        System.setProperty(GatewayConfiguration.CLOSE_GRACE_PROP, "250");
        System.setProperty(GatewayConfiguration.METRICS_SAMPLE_PROP, "50");
        final ExchangeContext set = new ExchangeContext();
        assertEquals(250, set.closeGraceMs());
        assertEquals(50, set.metricsSampleIntervalMs());
        final IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
            () -> new ExchangeContext().closeGraceMs(0).conclude());
        assertEquals("closeGraceMs 0 is out of range: at least 1", zero.getMessage());
    }
}
