package io.gpux.core.pipeline;

/**
 * The exchange core's settings with their defaults: each can be set with the system property named here.
 * {@link PipelineContext} takes its defaults from here, and so does the gateway's
 * {@code ExchangeContext} for the settings it passes on to the pipeline; the gateway's own settings are in
 * {@code GatewayConfiguration}. Read when a context is made: a property set later changes only the contexts
 * made after it.
 */
public final class PipelineConfiguration
{
    private PipelineConfiguration()
    {
    }

    /** Slots in the input ring (a power of two): commands waiting for the core; a full ring answers BUSY. */
    public static final String RING_SIZE_PROP = "gpux.pipeline.ringSize";
    public static final int RING_SIZE_DEFAULT = 1 << 14;

    /** Slots in the output ring (a power of two), when the event journal is written on a thread of its own. */
    public static final String OUTPUT_RING_SIZE_PROP = "gpux.pipeline.outputRingSize";
    public static final int OUTPUT_RING_SIZE_DEFAULT = 1 << 16;

    /** How often a TICK is injected so that timers fire when the market is quiet; 0: never. */
    public static final String TICK_INTERVAL_PROP = "gpux.pipeline.tickIntervalMs";
    public static final long TICK_INTERVAL_DEFAULT = 100;

    /**
     * How often (rounded to whole ticks, at least one) the core's batch times and the snapshot replica's
     * lag are sampled and the markets' figures read from the engine (the per-market counters).
     */
    public static final String COUNTER_SAMPLE_PROP = "gpux.pipeline.counterSampleMs";
    public static final long COUNTER_SAMPLE_DEFAULT = 1_000;

    /**
     * A snapshot is taken after this many commands since the last one; 0: only when asked for. It bounds the replay
     * of a restart after a crash (docs/operations.md, "Restart time and the snapshot interval").
     */
    public static final String SNAPSHOT_EVERY_PROP = "gpux.pipeline.snapshotEvery";
    public static final long SNAPSHOT_EVERY_DEFAULT = 1_000_000;

    /**
     * Whether a start restores the snapshot twice in parallel: the snapshot replica's engine on a thread of its own,
     * where the state hash is checked while the core replays (wants a second free core). False: the hash is checked
     * on the core's engine before the replay, and the replica restores the snapshot again once the exchange is live.
     */
    public static final String SNAPSHOT_TWIN_PROP = "gpux.pipeline.snapshotTwin";
    public static final boolean SNAPSHOT_TWIN_DEFAULT = false;

    /** How many snapshots are kept in the data directory (the newest; at least 1). */
    public static final String SNAPSHOTS_KEPT_PROP = "gpux.pipeline.snapshotsKept";
    public static final int SNAPSHOTS_KEPT_DEFAULT = 3;

    /** The free space the data directory's file system must keep: below it commands are refused (UNAVAILABLE). */
    public static final String MIN_FREE_BYTES_PROP = "gpux.pipeline.minFreeBytes";
    public static final long MIN_FREE_BYTES_DEFAULT = 64L << 20;

    public static int ringSize()
    {
        return Integer.getInteger(RING_SIZE_PROP, RING_SIZE_DEFAULT);
    }

    public static int outputRingSize()
    {
        return Integer.getInteger(OUTPUT_RING_SIZE_PROP, OUTPUT_RING_SIZE_DEFAULT);
    }

    public static long tickIntervalMs()
    {
        return Long.getLong(TICK_INTERVAL_PROP, TICK_INTERVAL_DEFAULT);
    }

    public static long counterSampleMs()
    {
        return Long.getLong(COUNTER_SAMPLE_PROP, COUNTER_SAMPLE_DEFAULT);
    }

    public static long snapshotEvery()
    {
        return Long.getLong(SNAPSHOT_EVERY_PROP, SNAPSHOT_EVERY_DEFAULT);
    }

    public static boolean snapshotTwin()
    {
        final String value = System.getProperty(SNAPSHOT_TWIN_PROP);
        return value == null ? SNAPSHOT_TWIN_DEFAULT : Boolean.parseBoolean(value);
    }

    public static int snapshotsKept()
    {
        return Integer.getInteger(SNAPSHOTS_KEPT_PROP, SNAPSHOTS_KEPT_DEFAULT);
    }

    public static long minFreeBytes()
    {
        return Long.getLong(MIN_FREE_BYTES_PROP, MIN_FREE_BYTES_DEFAULT);
    }
}
