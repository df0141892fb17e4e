package io.gpux.core.pipeline;

import com.lmax.disruptor.EventTranslatorOneArg;
import com.lmax.disruptor.RingBuffer;
import io.gpux.engine.command.CommandType;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * Injects a TICK into the input ring every interval, so that the engine's timers fire when the market is
 * quiet, and every counter sample interval (once a second by default) samples the core's batch times and
 * asks the core for the markets' figures.
 * An {@link Agent} paced by an injected clock: its runner sleeps between ticks, a test calls
 * {@link #doWork()} and moves the clock by hand.
 */
final class Ticker implements Agent
{
    /** A TICK, filled in place in a ring slot. */
    static final EventTranslatorOneArg<CommandSlot, Object> TICK =
        (slot, seq, unused) -> slot.command().reset(CommandType.TICK, 0);
    private final NanoClock clock;
    private final long intervalNs;
    private final long sampleEvery;
    private final RingBuffer<CommandSlot> inputRing;
    private final CoreCounters counters;
    private final Runnable sampleLag;
    private final Predicate<Query> queries;
    private final BooleanSupplier stopped;
    private long lastTickNs;
    private long ticks;

    /**
     * @param counterSampleMs how often the batch times are sampled and the markets' figures asked for
     *                        (rounded down to whole ticks, at least one).
     * @param sampleLag samples how far the snapshot replica is behind the core.
     * @param queries publishes a query to the core without blocking; false when the ring is full.
     * @param stopped whether the pipeline has stopped on a failure: no more ticks then.
     */
    Ticker(final NanoClock clock, final long tickIntervalMs, final long counterSampleMs, final RingBuffer<CommandSlot> inputRing,
        final CoreCounters counters, final Runnable sampleLag, final Predicate<Query> queries,
        final BooleanSupplier stopped)
    {
        if (tickIntervalMs <= 0)
        {
            throw new IllegalArgumentException("tick interval must be positive: " + tickIntervalMs);
        }
        this.clock = clock;
        intervalNs = TimeUnit.MILLISECONDS.toNanos(tickIntervalMs);
        sampleEvery = Math.max(1, counterSampleMs / tickIntervalMs);
        this.inputRing = inputRing;
        this.counters = counters;
        this.sampleLag = sampleLag;
        this.queries = queries;
        this.stopped = stopped;
        lastTickNs = clock.nanoTime();
    }

    @Override
    public int doWork()
    {
        if (stopped.getAsBoolean())
        {
            return 0;
        }
        final long now = clock.nanoTime();
        if (now - lastTickNs < intervalNs)
        {
            return 0;
        }
        lastTickNs = now;
        inputRing.tryPublishEvent(TICK, null);
        if (++ticks % sampleEvery == 0)
        {
            sampleCounters();
        }
        return 1;
    }

    /** The last window of batch times, the snapshot replica's lag, and a read of the markets' figures on the core thread. */
    private void sampleCounters()
    {
        counters.sampleBatchTimes();
        sampleLag.run();
        if (!counters.marketFiguresPending)
        {
            counters.marketFiguresPending = true;
            if (!queries.test(counters.marketFigures))
            {
                counters.marketFiguresPending = false;
            }
        }
    }

    @Override
    public String roleName()
    {
        return "gpux-ticker";
    }
}
