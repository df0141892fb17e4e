package io.gpux.core.pipeline;

import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.YieldingWaitStrategy;
import io.gpux.engine.command.CommandType;
import io.gpux.core.counters.ExchangeCounters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ticker is paced by its injected clock alone: a TICK once per interval of that clock, the markets'
 * figures asked for once a second of it (and not again while a read is pending), nothing once the pipeline
 * has stopped; and in a running pipeline, moving the clock by hand is what makes the TICKs come.
 */
class TickerTest
{
    private static final long INTERVAL_MS = 100;
    private static final long SAMPLE_MS = 1_000;

    @TempDir
    Path dir;

    private final AtomicLong nanos = new AtomicLong(5_000_000_000L);
    private final RingBuffer<CommandSlot> ring = RingBuffer.createMultiProducer(CommandSlot::new, 64, new YieldingWaitStrategy());
    private final CoreCounters counters = new CoreCounters(ExchangeCounters.inMemory(), 64);
    private final List<Query> queries = new ArrayList<>();
    private final AtomicBoolean stopped = new AtomicBoolean();
    private final Ticker ticker = new Ticker(nanos::get, INTERVAL_MS, SAMPLE_MS, ring, counters, () -> { }, q -> queries.add(q), stopped::get);

    @Test
    void aTickOncePerIntervalOfItsClock()
    {
        assertEquals(0, ticker.doWork(), "no time has passed");
        advanceMs(INTERVAL_MS - 1);
        assertEquals(0, ticker.doWork(), "a millisecond short of the interval");
        assertEquals(-1, ring.getCursor());
        advanceMs(1);
        assertEquals(1, ticker.doWork());
        assertEquals(0, ring.getCursor(), "one command published");
        assertEquals(CommandType.TICK, ring.get(0).command().type);
        assertEquals(0, ticker.doWork(), "the next tick waits a whole interval again");
        advanceMs(INTERVAL_MS);
        assertEquals(1, ticker.doWork());
        assertEquals(1, ring.getCursor());
    }

    @Test
    void theMarketsFiguresAreAskedForOnceASecondWhileNoReadIsPending()
    {
        tick(SAMPLE_MS / INTERVAL_MS - 1);
        assertTrue(queries.isEmpty(), "less than a second of ticks");
        tick(1);
        assertEquals(1, queries.size());
        assertSame(counters.marketFigures, queries.get(0));
        assertTrue(counters.marketFiguresPending);
        tick(SAMPLE_MS / INTERVAL_MS);
        assertEquals(1, queries.size(), "the first read has not run yet");
        counters.marketFiguresPending = false;
        tick(SAMPLE_MS / INTERVAL_MS);
        assertEquals(2, queries.size());
    }

    @Test
    void noTickOnceThePipelineHasStopped()
    {
        tick(1);
        stopped.set(true);
        advanceMs(10 * INTERVAL_MS);
        assertEquals(0, ticker.doWork());
        assertEquals(0, ring.getCursor(), "only the tick before the stop");
    }

    @Test
    void aRunningPipelineTicksWhenItsClockIsMoved() throws Exception
    {
        try (ExchangePipeline pipeline = ExchangePipeline.start(new PipelineContext().dataDir(dir)
            .clock(() -> 1_700_000_000_000L).nanoClock(nanos::get).tickIntervalMs(1).snapshotEvery(0).pretouch(false)
            .log(s -> { })))
        {
            assertEquals(0, pipeline.appliedCommands());
            for (int i = 1; i <= 3; i++)
            {
                advanceMs(1);
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (pipeline.appliedCommands() < i && System.nanoTime() < deadline)
                {
                    Thread.onSpinWait();
                }
                assertEquals(i, pipeline.appliedCommands(), "a TICK for each interval the clock was moved by");
            }
        }
    }

    private void tick(final long ticks)
    {
        for (long i = 0; i < ticks; i++)
        {
            advanceMs(INTERVAL_MS);
            assertEquals(1, ticker.doWork());
        }
    }

    private void advanceMs(final long ms)
    {
        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
    }
}
