package io.gpux.core.pipeline;

import io.gpux.engine.command.Command;
import io.gpux.core.counters.CounterDescriptor;
import io.gpux.core.counters.CounterValue;
import io.gpux.core.counters.CountersFile;
import io.gpux.core.counters.ExchangeCounters;
import io.gpux.engine.event.EventType;
import io.gpux.engine.event.RejectReason;
import io.gpux.engine.book.PriceLevel;
import io.gpux.engine.market.Market;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The core's counters, read through the counters file as another process would, agree with what the
 * engine emitted (commands, events by type, rejects by reason, trades and last prices) and, once the
 * ticker has had the markets read, with each market's book.
 */
class PipelineCountersTest
{
    @TempDir
    Path dir;

    @Test
    void theCountersAgreeWithTheEventsAndTheBooks() throws Exception
    {
        final List<Command> commands = PipelineRecoveryTest.commands(11, 4000);
        final Map<EventType, Long> events = new EnumMap<>(EventType.class);
        final Map<RejectReason, Long> rejects = new EnumMap<>(RejectReason.class);
        final Map<Long, Long> lastPrice = new HashMap<>();
        final Map<Long, Long> trades = new HashMap<>();
        final long[] lastEvent = new long[1];
        final PipelineRecoveryTest.ScenarioClock clock = new PipelineRecoveryTest.ScenarioClock();
        final long startedMs = System.currentTimeMillis();
        try (ExchangeCounters counters = ExchangeCounters.inFile(dir, startedMs);
             CountersFile file = CountersFile.open(dir))
        {
            final ExchangePipeline pipeline = ExchangePipeline.start(new PipelineContext().dataDir(dir)
                .clock(clock).tickIntervalMs(5).snapshotEvery(0).log(s -> { }).counters(counters)
                .publisher(e ->
                {
                    events.merge(e.type, 1L, Long::sum);
                    lastEvent[0] = e.sequence;
                    if (e.type == EventType.REJECTED)
                    {
                        rejects.merge(e.rejectReason, 1L, Long::sum);
                    }
                    if (e.type == EventType.TRADE)
                    {
                        lastPrice.put(e.marketId, e.price);
                        trades.merge(e.marketId, 1L, Long::sum);
                    }
                }));
            final Map<String, long[]> books;
            try (pipeline)
            {
                for (final Command c : commands)
                {
                    clock.now.set(c.timeMs);
                    while (!pipeline.tryPublish(c))
                    {
                        Thread.onSpinWait();
                    }
                }
                pipeline.requestSnapshot();
                books = awaitMarketFigures(pipeline, new CountersReader(file.metadata(), file.values()));
            }
            final List<CounterValue> values = CounterValue.readAll(new CountersReader(file.metadata(), file.values()));
            assertEquals(pipeline.appliedCommands(), CounterValue.find(values, CounterDescriptor.COMMANDS));
            assertEquals(pipeline.appliedCommands(), CounterValue.find(values, CounterDescriptor.APPLIED_SEQUENCE));
            assertEquals(pipeline.appliedCommands(), CounterValue.find(values, CounterDescriptor.COMMAND_JOURNAL_SEQUENCE));
            assertEquals(lastEvent[0], CounterValue.find(values, CounterDescriptor.EVENT_SEQUENCE));
            for (final EventType t : EventType.values())
            {
                assertEquals(events.getOrDefault(t, 0L), CounterValue.find(values, CounterDescriptor.EVENTS, t.name()), t.name());
            }
            assertTrue(rejects.size() > 1, "the scenario has rejects of several reasons: " + rejects);
            for (final RejectReason r : RejectReason.values())
            {
                assertEquals(rejects.getOrDefault(r, 0L), CounterValue.find(values, CounterDescriptor.ENGINE_REJECTS, r.name()),
                    r.name());
            }
            assertTrue(CounterValue.find(values, CounterDescriptor.SNAPSHOTS) >= 1, "the requested snapshot is counted");
            assertTrue(CounterValue.find(values, CounterDescriptor.SNAPSHOT_TIME_MS) > 0);
            assertTrue(CounterValue.find(values, CounterDescriptor.SNAPSHOT_SEQUENCE) > 0);
            assertEquals(1L << 14, CounterValue.find(values, CounterDescriptor.INPUT_RING_CAPACITY));
            assertTrue(CounterValue.find(values, CounterDescriptor.BATCHES) > 0);
            assertTrue(!trades.isEmpty(), "the scenario trades");
            for (final Map.Entry<String, long[]> book : books.entrySet())
            {
                final long id = book.getValue()[4];
                final String m = book.getKey();
                assertEquals(lastPrice.getOrDefault(id, 0L), CounterValue.find(values, CounterDescriptor.MARKET_LAST_PRICE, m), m);
                assertEquals(trades.getOrDefault(id, 0L), CounterValue.find(values, CounterDescriptor.MARKET_TRADES, m), m);
            }
            assertEquals(startedMs, file.startTimeMs());
            assertEquals(ProcessHandle.current().pid(), file.pid());
            assertTrue(file.serverRunning());
        }
    }

    /**
     * Waits until the market counters show each market's book as the engine holds it now: best bid, best
     * ask, GPUs each side, levels each side (and the market id, last).
     */
    private static Map<String, long[]> awaitMarketFigures(final ExchangePipeline pipeline, final CountersReader reader)
        throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true)
        {
            final CompletableFuture<Map<String, long[]>> read = new CompletableFuture<>();
            while (!pipeline.tryPublishQuery(engine ->
            {
                final Map<String, long[]> books = new HashMap<>();
                for (final Market m : engine.markets())
                {
                    books.put(m.name, new long[] {best(m.bids.best()), best(m.asks.best()), gpus(m.bids), gpus(m.asks),
                        m.id});
                }
                read.complete(books);
            }))
            {
                Thread.onSpinWait();
            }
            final Map<String, long[]> books = read.get(10, TimeUnit.SECONDS);
            final List<CounterValue> values = CounterValue.readAll(reader);
            boolean same = !books.isEmpty();
            for (final Map.Entry<String, long[]> b : books.entrySet())
            {
                final long[] v = b.getValue();
                same &= CounterValue.find(values, CounterDescriptor.MARKET_BEST_BID, b.getKey()) == v[0] &&
                    CounterValue.find(values, CounterDescriptor.MARKET_BEST_ASK, b.getKey()) == v[1] &&
                    CounterValue.find(values, CounterDescriptor.MARKET_BID_GPUS, b.getKey()) == v[2] &&
                    CounterValue.find(values, CounterDescriptor.MARKET_ASK_GPUS, b.getKey()) == v[3];
            }
            if (same)
            {
                return books;
            }
            assertTrue(System.nanoTime() < deadline, "the market counters never showed the books");
            Thread.sleep(20);
        }
    }

    private static long best(final PriceLevel level)
    {
        return level == null ? 0 : level.price();
    }

    private static long gpus(final io.gpux.engine.book.BookSide side)
    {
        long total = 0;
        for (PriceLevel l = side.best(); l != null; l = side.worse(l))
        {
            total += l.gpus();
        }
        return total;
    }
}
