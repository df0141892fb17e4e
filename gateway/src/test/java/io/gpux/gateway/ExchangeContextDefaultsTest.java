package io.gpux.gateway;

import io.gpux.core.pipeline.PipelineContext;
import io.gpux.core.pipeline.PipelineConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The exchange's settings for its core take their defaults from the same place as the pipeline's. */
class ExchangeContextDefaultsTest
{
    @AfterEach
    void clearProperties()
    {
        System.clearProperty(PipelineConfiguration.TICK_INTERVAL_PROP);
        System.clearProperty(PipelineConfiguration.SNAPSHOT_EVERY_PROP);
        System.clearProperty(PipelineConfiguration.MIN_FREE_BYTES_PROP);
    }

    @Test
    void theCoreSettingsDefaultAsThePipelinesDo()
    {
        assertSameCoreDefaults();
        System.setProperty(PipelineConfiguration.TICK_INTERVAL_PROP, "40");
        System.setProperty(PipelineConfiguration.SNAPSHOT_EVERY_PROP, "2000");
        System.setProperty(PipelineConfiguration.MIN_FREE_BYTES_PROP, String.valueOf(5L << 20));
        assertSameCoreDefaults();
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
    }
}
