package io.gpux.core.pipeline;

import io.gpux.engine.MatchingEngine;
import io.gpux.core.counters.ExchangeCounters;
import io.gpux.engine.event.Event;
import io.gpux.engine.event.EventType;
import org.agrona.concurrent.SystemNanoClock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * What the core's counters add to the matching path, on their own (in the pipeline's package, since
 * {@link CoreCounters} is the core's own): per batch, the batch figures stored and, one batch in 16, the
 * clock read twice and the time recorded ({@link #batch}); per event, its type and sequence counted
 * ({@link #event}); and the clock read alone ({@link #clockRead}).
 * Small enough to read beside {@code CorePathBenchmark}'s whole command. {@code -prof gc} for allocation.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CoreCountersBenchmark
{
    private CoreCounters counters;
    private MatchingEngine engine;
    private final Event accepted = new Event();
    private long sequence;

    @Setup
    public void setUp()
    {
        counters = new CoreCounters(ExchangeCounters.inMemory(), 1 << 14);
        engine = new MatchingEngine(e -> { });
        accepted.type = EventType.ACCEPTED;
    }

    /** One batch's counting as the core does it: commands, batches and the applied sequence; one batch in 16 timed. */
    @Benchmark
    public long batch()
    {
        final long start = counters.batchStart(SystemNanoClock.INSTANCE);
        counters.onBatch(1, ++sequence, sequence, SystemNanoClock.INSTANCE, start);
        return sequence;
    }

    /** The clock read a timed batch pays twice. */
    @Benchmark
    public long clockRead()
    {
        return SystemNanoClock.INSTANCE.nanoTime();
    }

    /** One event's counting: its type. */
    @Benchmark
    public long event()
    {
        accepted.sequence = ++sequence;
        counters.onEvent(accepted, engine);
        return sequence;
    }
}
