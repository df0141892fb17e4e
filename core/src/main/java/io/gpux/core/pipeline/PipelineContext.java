package io.gpux.core.pipeline;

import io.gpux.core.counters.ExchangeCounters;
import io.gpux.core.journal.SnapshotStore;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.SystemEpochClock;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The settings of an {@link ExchangePipeline}, with the defaults of {@link PipelineConfiguration}: filled
 * by the owner's thread before {@link ExchangePipeline#start}, read by the stages after.
 */
public final class PipelineContext
{
    private Path dataDir;
    private Durability durability = Durability.ASYNC;
    private int ringSize = PipelineConfiguration.ringSize();
    private int outputRingSize = PipelineConfiguration.outputRingSize();
    private long tickIntervalMs = PipelineConfiguration.tickIntervalMs();
    private long counterSampleMs = PipelineConfiguration.counterSampleMs();
    private long snapshotEvery = PipelineConfiguration.snapshotEvery();
    private int snapshotsKept = PipelineConfiguration.snapshotsKept();
    private boolean snapshotTwin = PipelineConfiguration.snapshotTwin();
    private EpochClock clock = SystemEpochClock.INSTANCE;
    final List<EventPublisher> publishers = new ArrayList<>();
    private Consumer<String> log = System.err::println;
    boolean yielding = true;
    boolean outputYielding = true;
    boolean inlineOutput = true;
    boolean busySpin;
    boolean pretouch = true;
    boolean polled;
    boolean announceRestart;
    Runnable onPublish = () -> { };
    private long minFreeBytes = PipelineConfiguration.minFreeBytes();
    private org.agrona.concurrent.NanoClock nanoClock = org.agrona.concurrent.SystemNanoClock.INSTANCE;
    ExchangeCounters counters;
    java.util.function.BiFunction<Path, Integer, SnapshotStore> snapshotStore = SnapshotStore::new;

    public PipelineContext dataDir(final Path v)
    {
        dataDir = v;
        return this;
    }

    public PipelineContext durability(final Durability v)
    {
        durability = v;
        return this;
    }

    public PipelineContext ringSize(final int v)
    {
        ringSize = v;
        return this;
    }

    public PipelineContext outputRingSize(final int v)
    {
        outputRingSize = v;
        return this;
    }

    /** 0 disables the TICK injection. */
    public PipelineContext tickIntervalMs(final long v)
    {
        tickIntervalMs = v;
        return this;
    }

    /** How often the counters are sampled and the markets' figures read (rounded to whole ticks). */
    public PipelineContext counterSampleMs(final long v)
    {
        counterSampleMs = v;
        return this;
    }

    /** 0 disables periodic snapshots. */
    public PipelineContext snapshotEvery(final long v)
    {
        snapshotEvery = v;
        return this;
    }

    public PipelineContext snapshotsKept(final int v)
    {
        snapshotsKept = v;
        return this;
    }

    /** See {@link PipelineConfiguration#SNAPSHOT_TWIN_PROP}. */
    public PipelineContext snapshotTwin(final boolean v)
    {
        snapshotTwin = v;
        return this;
    }

    public PipelineContext clock(final EpochClock v)
    {
        clock = v;
        return this;
    }

    public PipelineContext publisher(final EventPublisher v)
    {
        publishers.add(v);
        return this;
    }

    public PipelineContext log(final Consumer<String> v)
    {
        log = v;
        return this;
    }

    /** Yielding (lowest latency, burns the cores) or blocking wait strategies, for both threads. */
    public PipelineContext yielding(final boolean v)
    {
        yielding = v;
        outputYielding = v;
        return this;
    }

    /**
     * Write the event journal and call the publishers on the core thread, after each batch, instead
     * of handing events to an output thread through the output ring. The default: on a 2-core
     * machine a third busy thread costs more than it gives.
     */
    public PipelineContext inlineOutput(final boolean v)
    {
        inlineOutput = v;
        return this;
    }

    /**
     * The core thread never yields its core while waiting (lowest latency; the core is the
     * exchange's alone, the other one carries the network and everything else).
     */
    public PipelineContext busySpin(final boolean v)
    {
        busySpin = v;
        return this;
    }

    /**
     * Touch the journals' pages ahead of the writer on a background thread (the default), so that the
     * core thread never waits for the kernel to allocate a page of the journal files.
     */
    public PipelineContext pretouch(final boolean v)
    {
        pretouch = v;
        return this;
    }

    /**
     * No core thread: the owner calls {@link #poll(int)} from a thread of its own (e.g. the gateway's
     * event loop, so that a command decoded there is applied and answered on the same thread, with no
     * hand-over between threads). Needs inline output. {@code onPublish} is called after every
     * successful publish, from the publishing thread, so that the owner can wake its polling thread.
     */
    public PipelineContext polled(final Runnable onPublish)
    {
        polled = true;
        this.onPublish = onPublish;
        return this;
    }

    /**
     * The free space the data directory's file system must keep: below it new commands are refused
     * (UNAVAILABLE, with the reason) until space comes back. Default 64 MiB ({@link PipelineConfiguration#MIN_FREE_BYTES_PROP}).
     */
    public PipelineContext minFreeBytes(final long v)
    {
        minFreeBytes = v;
        return this;
    }

    /** Where the core keeps its counters (default: in memory, read by nobody outside the process). */
    public PipelineContext counters(final ExchangeCounters v)
    {
        counters = v;
        return this;
    }

    /**
     * The clock the ticker paces its TICKs by, the journal space guard its free-space checks, and the core
     * times its batches by; a test moves it by hand.
     */
    public PipelineContext nanoClock(final org.agrona.concurrent.NanoClock v)
    {
        nanoClock = v;
        return this;
    }

    /**
     * The owner goes live by calling {@link ExchangePipeline#goLive()}: only then is a RESTART journaled
     * (after recovering a journal that holds commands; docs/market-rules.md section 14) and does the ticker
     * start, so that the restart's time is as close as possible to the moment clients can connect again.
     * Off by default (the ticker starts at once and no RESTART is journaled); the exchange turns it on.
     */
    public PipelineContext announceRestart(final boolean v)
    {
        announceRestart = v;
        return this;
    }

    /** The snapshot folder's store, from its path and how many to keep (a test's may watch or hold its writes). */
    PipelineContext snapshotStore(final java.util.function.BiFunction<Path, Integer, SnapshotStore> v)
    {
        snapshotStore = v;
        return this;
    }

    /** The output thread's wait strategy alone: blocking leaves the core thread a whole core. */
    public PipelineContext outputYielding(final boolean v)
    {
        outputYielding = v;
        return this;
    }

    PipelineContext conclude()
    {
        if (dataDir == null)
        {
            throw new IllegalArgumentException("dataDir is required");
        }
        if (Integer.bitCount(ringSize) != 1 || Integer.bitCount(outputRingSize) != 1)
        {
            throw new IllegalArgumentException("ring sizes must be powers of two");
        }
        if (polled && !inlineOutput)
        {
            throw new IllegalArgumentException("a polled pipeline writes its output inline");
        }
        if (tickIntervalMs < 0 || counterSampleMs < 1 || snapshotEvery < 0 || snapshotsKept < 1 || minFreeBytes < 0)
        {
            throw new IllegalArgumentException("negative interval, no counter sampling or no snapshot kept");
        }
        if (counters == null)
        {
            counters = ExchangeCounters.inMemory();
        }
        return this;
    }

    public Path dataDir()
    {
        return dataDir;
    }

    public Durability durability()
    {
        return durability;
    }

    public int ringSize()
    {
        return ringSize;
    }

    public int outputRingSize()
    {
        return outputRingSize;
    }

    public long tickIntervalMs()
    {
        return tickIntervalMs;
    }

    public long counterSampleMs()
    {
        return counterSampleMs;
    }

    public long snapshotEvery()
    {
        return snapshotEvery;
    }

    public int snapshotsKept()
    {
        return snapshotsKept;
    }

    public boolean snapshotTwin()
    {
        return snapshotTwin;
    }

    public long minFreeBytes()
    {
        return minFreeBytes;
    }

    public EpochClock clock()
    {
        return clock;
    }

    public org.agrona.concurrent.NanoClock nanoClock()
    {
        return nanoClock;
    }

    public Consumer<String> log()
    {
        return log;
    }
}
