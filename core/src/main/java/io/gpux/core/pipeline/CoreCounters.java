package io.gpux.core.pipeline;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.book.BookSide;
import io.gpux.engine.book.PriceLevel;
import io.gpux.core.counters.CounterDescriptor;
import io.gpux.core.counters.ExchangeCounters;
import io.gpux.core.counters.LatencyCounters;
import io.gpux.engine.event.Event;
import io.gpux.engine.event.EventType;
import io.gpux.engine.event.NoticeReason;
import io.gpux.engine.event.RejectReason;
import io.gpux.engine.lease.Lease;
import io.gpux.engine.market.Market;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * The core's counters. The core thread is the one writer of all but the snapshot ones (written by the
 * snapshot replica's thread) and the batch-time quantiles (written by the ticker, from the core's
 * recorder) and writes with plain ordered stores: no lock, no allocation on the matching path (a market's counters are made once, when the core first sees the market).
 */
final class CoreCounters
{
    /** One batch in this many is timed (a power of two). */
    static final int TIMED_BATCH_EVERY = 16;

    private final ExchangeCounters counters;
    final AtomicCounter commands;
    final AtomicCounter batches;
    final AtomicCounter inputRingOccupancy;
    final AtomicCounter outputRingOccupancy;
    final AtomicCounter commandSequence;
    final AtomicCounter appliedSequence;
    final AtomicCounter eventSequence;
    final AtomicCounter snapshots;
    final AtomicCounter snapshotFailures;
    final AtomicCounter snapshotSequence;
    final AtomicCounter snapshotTimeMs;
    final AtomicCounter snapshotDurationNs;
    final AtomicCounter snapshotWriteNs;
    final AtomicCounter snapshotLagCommands;
    private final AtomicCounter[] rejects = new AtomicCounter[RejectReason.values().length];
    private final AtomicCounter[] events = new AtomicCounter[EventType.values().length];
    /** Batch times: recorded by the core, read a window at a time by the ticker. */
    private final LatencyCounters batchNs;
    private final Long2ObjectHashMap<MarketCounters> markets = new Long2ObjectHashMap<>();
    private long batchesSeen;
    /** The per-market figures, read on the core thread; published by the ticker once the last one has run. */
    final Query marketFigures = this::readMarkets;
    volatile boolean marketFiguresPending;

    CoreCounters(final ExchangeCounters counters, final int inputRingSize)
    {
        this.counters = counters;
        commands = counters.newCounter(CounterDescriptor.COMMANDS);
        batches = counters.newCounter(CounterDescriptor.BATCHES);
        inputRingOccupancy = counters.newCounter(CounterDescriptor.INPUT_RING_OCCUPANCY);
        counters.newCounter(CounterDescriptor.INPUT_RING_CAPACITY).setRelease(inputRingSize);
        outputRingOccupancy = counters.newCounter(CounterDescriptor.OUTPUT_RING_OCCUPANCY);
        commandSequence = counters.newCounter(CounterDescriptor.COMMAND_JOURNAL_SEQUENCE);
        appliedSequence = counters.newCounter(CounterDescriptor.APPLIED_SEQUENCE);
        eventSequence = counters.newCounter(CounterDescriptor.EVENT_SEQUENCE);
        snapshots = counters.newCounter(CounterDescriptor.SNAPSHOTS);
        snapshotFailures = counters.newCounter(CounterDescriptor.SNAPSHOT_FAILURES);
        snapshotSequence = counters.newCounter(CounterDescriptor.SNAPSHOT_SEQUENCE);
        snapshotTimeMs = counters.newCounter(CounterDescriptor.SNAPSHOT_TIME_MS);
        snapshotDurationNs = counters.newCounter(CounterDescriptor.SNAPSHOT_DURATION_NS);
        snapshotWriteNs = counters.newCounter(CounterDescriptor.SNAPSHOT_WRITE_NS);
        snapshotLagCommands = counters.newCounter(CounterDescriptor.SNAPSHOT_LAG_COMMANDS);
        for (final RejectReason r : RejectReason.values())
        {
            rejects[r.ordinal()] = counters.newCounter(CounterDescriptor.ENGINE_REJECTS, r.name());
        }
        for (final EventType t : EventType.values())
        {
            events[t.ordinal()] = counters.newCounter(CounterDescriptor.EVENTS, t.name());
        }
        batchNs = new LatencyCounters(counters, CounterDescriptor.BATCH_NS, CounterDescriptor.BATCH_COUNT);
    }

    /** Core thread: an event the engine emitted. */
    void onEvent(final Event e, final MatchingEngine engine)
    {
        events[e.type.ordinal()].incrementRelease();
        switch (e.type)
        {
            case REJECTED -> rejects[e.rejectReason.ordinal()].incrementRelease();
            case TRADE ->
            {
                final MarketCounters m = market(engine, e.marketId);
                if (m != null)
                {
                    m.lastPrice.setRelease(e.price);
                    m.trades.incrementRelease();
                }
            }
            case PREEMPT_NOTICE ->
            {
                final Lease lease = engine.lease(e.leaseId);
                final MarketCounters m = lease == null || lease.market == null ? null : market(engine, lease.market.id);
                if (m != null && e.noticeReason != null)
                {
                    m.notices[e.noticeReason.ordinal()].incrementRelease();
                }
            }
            default ->
            {
            }
        }
    }

    /**
     * Core thread, before a batch: when it is one of the batches timed, the clock's reading; else 0. One
     * batch in {@value #TIMED_BATCH_EVERY} is timed: a clock read costs about as much as the counting of a
     * whole batch, and a sample is enough for the quantiles when batches are many.
     */
    long batchStart(final NanoClock clock)
    {
        return (++batchesSeen & (TIMED_BATCH_EVERY - 1)) == 0 ? clock.nanoTime() : 0;
    }

    /**
     * Core thread: a batch of {@code commandCount} commands journaled and applied, its last event's sequence;
     * timed if {@code startNs} is not 0.
     */
    void onBatch(final int commandCount, final long lastSequence, final long lastEventSequence, final NanoClock clock,
        final long startNs)
    {
        eventSequence.setRelease(lastEventSequence);
        commands.getAndAddRelease(commandCount);
        batches.incrementRelease();
        appliedSequence.setRelease(lastSequence);
        if (startNs != 0)
        {
            batchNs.record(clock.nanoTime() - startNs);
        }
    }

    /** Ticker: the last window of batch times into the quantile counters. */
    void sampleBatchTimes()
    {
        batchNs.sample();
    }

    /** Core thread, between two commands: each market's book and leases into its counters. */
    private void readMarkets(final MatchingEngine engine)
    {
        try
        {
            for (final Market market : engine.markets())
            {
                final MarketCounters m = market(engine, market.id);
                if (m == null)
                {
                    continue;
                }
                m.readBook(market);
                m.activeLeases = 0;
                m.leasedGpus = 0;
            }
            for (final Lease lease : engine.leases())
            {
                if (lease.state == Lease.ACTIVE && lease.market != null)
                {
                    final MarketCounters m = markets.get(lease.market.id);
                    if (m != null)
                    {
                        m.activeLeases++;
                        m.leasedGpus += lease.gpus;
                    }
                }
            }
            for (final MarketCounters m : markets.values())
            {
                m.activeLeasesCounter.setRelease(m.activeLeases);
                m.leasedGpusCounter.setRelease(m.leasedGpus);
            }
        }
        finally
        {
            marketFiguresPending = false;
        }
    }

    /** The counters of a market, made the first time; null when the counters file is full. */
    private MarketCounters market(final MatchingEngine engine, final long marketId)
    {
        MarketCounters m = markets.get(marketId);
        if (m == null)
        {
            final Market market = engine.market(marketId);
            if (market == null)
            {
                return null;
            }
            try
            {
                m = new MarketCounters(counters, market.name);
            }
            catch (final IllegalStateException full)
            {
                return null;
            }
            markets.put(marketId, m);
        }
        return m;
    }

    private static final class MarketCounters
    {
        final AtomicCounter bestBid;
        final AtomicCounter bestAsk;
        final AtomicCounter bidGpus;
        final AtomicCounter askGpus;
        final AtomicCounter bidLevels;
        final AtomicCounter askLevels;
        final AtomicCounter lastPrice;
        final AtomicCounter trades;
        final AtomicCounter activeLeasesCounter;
        final AtomicCounter leasedGpusCounter;
        final AtomicCounter[] notices = new AtomicCounter[NoticeReason.values().length];
        int activeLeases;
        long leasedGpus;

        MarketCounters(final ExchangeCounters counters, final String symbol)
        {
            bestBid = counters.newCounter(CounterDescriptor.MARKET_BEST_BID, symbol);
            bestAsk = counters.newCounter(CounterDescriptor.MARKET_BEST_ASK, symbol);
            bidGpus = counters.newCounter(CounterDescriptor.MARKET_BID_GPUS, symbol);
            askGpus = counters.newCounter(CounterDescriptor.MARKET_ASK_GPUS, symbol);
            bidLevels = counters.newCounter(CounterDescriptor.MARKET_BID_LEVELS, symbol);
            askLevels = counters.newCounter(CounterDescriptor.MARKET_ASK_LEVELS, symbol);
            lastPrice = counters.newCounter(CounterDescriptor.MARKET_LAST_PRICE, symbol);
            trades = counters.newCounter(CounterDescriptor.MARKET_TRADES, symbol);
            activeLeasesCounter = counters.newCounter(CounterDescriptor.MARKET_ACTIVE_LEASES, symbol);
            leasedGpusCounter = counters.newCounter(CounterDescriptor.MARKET_LEASED_GPUS, symbol);
            for (final NoticeReason r : NoticeReason.values())
            {
                notices[r.ordinal()] = counters.newCounter(CounterDescriptor.MARKET_NOTICES, symbol, r.name());
            }
        }

        void readBook(final Market market)
        {
            readSide(market.bids, bestBid, bidGpus, bidLevels);
            readSide(market.asks, bestAsk, askGpus, askLevels);
        }

        private static void readSide(final BookSide side, final AtomicCounter best, final AtomicCounter gpus,
            final AtomicCounter levels)
        {
            final PriceLevel top = side.best();
            long total = 0;
            for (PriceLevel l = top; l != null; l = side.worse(l))
            {
                total += l.gpus();
            }
            // the best price last: a scrape reads it first (a lower id), so one that sees a new best price sees the
            // side's GPUs and levels of the same sample or a later one, never an earlier one
            gpus.setRelease(total);
            levels.setRelease(side.levelCount());
            best.setRelease(top == null ? 0 : top.price());
        }
    }
}
