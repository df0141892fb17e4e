package io.gpux.core.counters;

/**
 * Every counter the exchange keeps, one type per figure (Aeron's {@code SystemCounterDescriptor}): the
 * Agrona type id a counter is allocated with, the Prometheus name and help it is exported under, whether
 * it only grows (a counter) or goes up and down (a gauge), and the names of the labels its key carries
 * (a reject's reason, a market's symbol). A figure with labels has one counter per set of label values.
 *
 * <p>Counters count from the server's start; sequences and positions are absolute.
 */
public enum CounterDescriptor
{
    // ---- the core: sequencer, command journal, engine, event journal
    COMMANDS(1, "gpux_commands", Kind.COUNTER, "commands journaled and applied by the engine since start"),
    BATCHES(2, "gpux_batches", Kind.COUNTER, "batches the core journaled and applied since start"),
    ENGINE_REJECTS(3, "gpux_engine_rejects", Kind.COUNTER, "commands the engine rejected since start, by reason", "reason"),
    EVENTS(4, "gpux_events", Kind.COUNTER, "events the engine emitted since start, by type", "type"),
    INPUT_RING_OCCUPANCY(5, "gpux_input_ring_occupancy", Kind.GAUGE,
        "commands waiting in the input ring when the core ended its last batch"),
    INPUT_RING_CAPACITY(6, "gpux_input_ring_capacity", Kind.GAUGE, "slots in the input ring"),
    OUTPUT_RING_OCCUPANCY(7, "gpux_output_ring_occupancy", Kind.GAUGE,
        "events and answers waiting in the output ring (dedicated output thread only; 0 otherwise)"),
    COMMAND_JOURNAL_SEQUENCE(8, "gpux_command_journal_sequence", Kind.GAUGE, "sequence of the last command journaled"),
    APPLIED_SEQUENCE(9, "gpux_applied_sequence", Kind.GAUGE, "sequence of the last command the engine applied"),
    EVENT_SEQUENCE(10, "gpux_event_sequence", Kind.GAUGE, "sequence of the last event the engine emitted"),
    SNAPSHOTS(11, "gpux_snapshots", Kind.COUNTER, "snapshots written since start"),
    SNAPSHOT_FAILURES(12, "gpux_snapshot_failures", Kind.COUNTER, "snapshots that failed to write since start"),
    SNAPSHOT_SEQUENCE(13, "gpux_snapshot_sequence", Kind.GAUGE, "command sequence of the last snapshot (recovered or written)"),
    SNAPSHOT_TIME_MS(14, "gpux_snapshot_time_ms", Kind.GAUGE,
        "wall-clock time (epoch ms) the last snapshot was written; 0: none since start"),
    SNAPSHOT_DURATION_NS(15, "gpux_snapshot_duration_ns", Kind.GAUGE,
        "how long the snapshot replica took to serialize its engine for the last snapshot, off the core thread"),
    BATCH_NS(16, "gpux_batch_ns", Kind.GAUGE,
        "the core's time per batch (journal write, msync in SYNC, apply, hand-off) over the last second, one batch in 16 " +
        "timed, by quantile; quantile 1 is the maximum", "quantile"),
    BATCH_COUNT(17, "gpux_batch_window_count", Kind.GAUGE, "batches timed in the last second's window"),
    SNAPSHOT_WRITE_NS(18, "gpux_snapshot_write_ns", Kind.GAUGE,
        "how long the last snapshot took to write, force to disk and rename, off the core thread"),
    SNAPSHOT_LAG_COMMANDS(19, "gpux_snapshot_lag_commands", Kind.GAUGE,
        "commands the core has journaled that the snapshot replica has not applied yet"),

    // ---- the gateway and its egress
    SESSIONS(20, "gpux_sessions", Kind.GAUGE, "sessions logged in now"),
    CONNECTIONS(21, "gpux_connections", Kind.GAUGE, "TCP connections open now, logged in or not"),
    REQUESTS(22, "gpux_requests", Kind.COUNTER, "requests the gateway received from logged-in sessions since start"),
    GATEWAY_REJECTS(23, "gpux_gateway_rejects", Kind.COUNTER,
        "requests the gateway refused itself since start (BUSY, RATE_LIMITED, UNAVAILABLE, ...), by reason", "reason"),
    SLOW_CONSUMERS(24, "gpux_slow_consumers", Kind.COUNTER, "connections cut off as slow consumers since start"),
    EGRESS_EVENT_SEQUENCE(25, "gpux_egress_event_sequence", Kind.GAUGE,
        "sequence of the last event the egress read from the event journal and routed"),
    EGRESS_RESENDS(26, "gpux_egress_resends", Kind.GAUGE, "resends (logins with a last seq) in progress now"),
    LOGIN_FAILURES(27, "gpux_login_failures", Kind.COUNTER, "logins refused since start, by reason", "reason"),
    REQUEST_NS(28, "gpux_request_ns", Kind.GAUGE,
        "time from the gateway reading a command to the egress writing its answer, over the last second, one command " +
        "in 16 of each session timed, by quantile; quantile 1 is the maximum", "quantile"),
    REQUEST_COUNT(29, "gpux_request_window_count", Kind.GAUGE, "commands timed in the last second's window"),

    // ---- per market, read from the engine at a safe point once a second (last price and notices as they happen)
    MARKET_BEST_BID(40, "gpux_market_best_bid", Kind.GAUGE, "the best bid's price, in ticks of 0.0001 per GPU-hour; 0: none",
        "market"),
    MARKET_BEST_ASK(41, "gpux_market_best_ask", Kind.GAUGE, "the best ask's price, in ticks of 0.0001 per GPU-hour; 0: none",
        "market"),
    MARKET_BID_GPUS(42, "gpux_market_bid_gpus", Kind.GAUGE, "GPUs bid on the book", "market"),
    MARKET_ASK_GPUS(43, "gpux_market_ask_gpus", Kind.GAUGE, "GPUs offered on the book", "market"),
    MARKET_BID_LEVELS(44, "gpux_market_bid_levels", Kind.GAUGE, "price levels on the bid side", "market"),
    MARKET_ASK_LEVELS(45, "gpux_market_ask_levels", Kind.GAUGE, "price levels on the ask side", "market"),
    MARKET_LAST_PRICE(46, "gpux_market_last_price", Kind.GAUGE,
        "the price of the last trade since start, in ticks of 0.0001 per GPU-hour; 0: none", "market"),
    MARKET_TRADES(47, "gpux_market_trades", Kind.COUNTER, "trades since start", "market"),
    MARKET_ACTIVE_LEASES(48, "gpux_market_active_leases", Kind.GAUGE, "leases running now", "market"),
    MARKET_LEASED_GPUS(49, "gpux_market_leased_gpus", Kind.GAUGE, "GPUs under running leases now", "market"),
    MARKET_NOTICES(50, "gpux_market_notices", Kind.COUNTER, "preemption notices since start, by reason", "market", "reason");

    /** A counter only grows; a gauge goes up and down. */
    public enum Kind
    {
        COUNTER, GAUGE
    }

    /** The Agrona type ids of gpux's counters start here (Aeron's own are below 1000). */
    public static final int TYPE_ID_BASE = 7_400;

    private static final CounterDescriptor[] BY_TYPE_ID = new CounterDescriptor[64];

    static
    {
        for (final CounterDescriptor d : values())
        {
            if (BY_TYPE_ID[d.id] != null)
            {
                throw new IllegalStateException("counter id " + d.id + " used twice");
            }
            BY_TYPE_ID[d.id] = d;
        }
    }

    private final int id;
    private final String metricName;
    private final Kind kind;
    private final String help;
    private final String[] labelNames;

    CounterDescriptor(final int id, final String metricName, final Kind kind, final String help, final String... labelNames)
    {
        this.id = id;
        this.metricName = metricName;
        this.kind = kind;
        this.help = help;
        this.labelNames = labelNames;
    }

    /** The Agrona type id of this figure's counters. */
    public int typeId()
    {
        return TYPE_ID_BASE + id;
    }

    /** The Prometheus metric name (a counter's is exported with {@code _total} appended). */
    public String metricName()
    {
        return metricName;
    }

    public Kind kind()
    {
        return kind;
    }

    public String help()
    {
        return help;
    }

    public int labelCount()
    {
        return labelNames.length;
    }

    public String labelName(final int i)
    {
        return labelNames[i];
    }

    /** The figure a counter of this type id counts, or null for a type id that is not gpux's. */
    public static CounterDescriptor forTypeId(final int typeId)
    {
        final int id = typeId - TYPE_ID_BASE;
        return id >= 0 && id < BY_TYPE_ID.length ? BY_TYPE_ID[id] : null;
    }
}
