package io.gpux.gateway;

/**
 * The gateway's settings with their defaults; each can be set with the system property named here
 * (or the server's command-line options).
 */
public final class GatewayConfiguration
{
    private GatewayConfiguration()
    {
    }

    public static final String PORT_PROP = "gpux.gateway.port";
    public static final int PORT_DEFAULT = 7400;

    public static final String BIND_PROP = "gpux.gateway.bind";
    public static final String BIND_DEFAULT = "127.0.0.1";

    /** The Prometheus metrics endpoint's port; -1: none. */
    public static final String METRICS_PORT_PROP = "gpux.gateway.metricsPort";
    public static final int METRICS_PORT_DEFAULT = -1;

    /** The address the metrics endpoint listens on: this machine only unless the operator says otherwise. */
    public static final String METRICS_BIND_PROP = "gpux.gateway.metricsBind";
    public static final String METRICS_BIND_DEFAULT = "127.0.0.1";
    public static final String HTTP_PORT_PROP = "gpux.gateway.httpPort";
    public static final int HTTP_PORT_DEFAULT = -1;
    public static final String HTTP_BIND_PROP = "gpux.gateway.httpBind";
    public static final String HTTP_BIND_DEFAULT = "127.0.0.1";

    /** Largest frame accepted (the length prefix is checked before anything is allocated for it). */
    public static final String MAX_FRAME_PROP = "gpux.gateway.maxFrameBytes";
    public static final int MAX_FRAME_DEFAULT = 64 * 1024;

    /** Session heartbeat interval; a peer silent for two intervals is closed. */
    public static final String HEARTBEAT_PROP = "gpux.gateway.heartbeatIntervalMs";
    public static final int HEARTBEAT_DEFAULT = 1000;

    /** A connection that has not logged in within this time is closed. */
    public static final String LOGIN_TIMEOUT_PROP = "gpux.gateway.loginTimeoutMs";
    public static final int LOGIN_TIMEOUT_DEFAULT = 5000;

    /**
     * How long a connection closed for a reason is given to take its last frame (the SessionError)
     * before it is closed anyway: a peer that stopped reading would otherwise keep its connection, and
     * everything queued for it, for ever.
     */
    public static final String CLOSE_GRACE_PROP = "gpux.gateway.closeGraceMs";
    public static final long CLOSE_GRACE_DEFAULT = 5_000;

    /** How often the command round-trip times are sampled into the request-time window (gpux_request_ns). */
    public static final String METRICS_SAMPLE_PROP = "gpux.gateway.metricsSampleIntervalMs";
    public static final long METRICS_SAMPLE_DEFAULT = 1_000;

    /** How long a renter's workload log request waits for the agent's answer. */
    public static final String WORKLOAD_LOG_TIMEOUT_PROP = "gpux.gateway.workloadLogTimeoutMs";
    public static final long WORKLOAD_LOG_TIMEOUT_DEFAULT = 10_000;

    /** How far a Login timestamp may be from the server's clock. */
    public static final String AUTH_WINDOW_PROP = "gpux.gateway.authWindowMs";
    public static final long AUTH_WINDOW_DEFAULT = 30_000;

    /** Requests per second per session (token bucket rate) and the burst it may save up. */
    public static final String RATE_PROP = "gpux.gateway.ratePerSecond";
    public static final long RATE_DEFAULT = 100_000;
    public static final String BURST_PROP = "gpux.gateway.rateBurst";
    public static final long BURST_DEFAULT = 20_000;

    /** Sessions one account may have open at once; a login past it is refused with SESSION_LIMIT. */
    public static final String MAX_SESSIONS_PER_ACCOUNT_PROP = "gpux.gateway.maxSessionsPerAccount";
    public static final int MAX_SESSIONS_PER_ACCOUNT_DEFAULT = 64;

    /** Sessions the server holds open in all; a login past it is refused with SESSION_LIMIT. */
    /** Market-data sessions (Login key_id 0, no key) at once, in all; 0 takes no market-data logins. */
    public static final String MAX_MARKET_DATA_SESSIONS_PROP = "gpux.gateway.maxMarketDataSessions";
    public static final int MAX_MARKET_DATA_SESSIONS_DEFAULT = 1000;

    public static final String MAX_SESSIONS_PROP = "gpux.gateway.maxSessions";
    public static final int MAX_SESSIONS_DEFAULT = 10_000;

    /**
     * Failed logins allowed at once per source address and per key id, and how many a second come
     * back; past them, logins are refused with LOGIN_THROTTLED before their signature is checked.
     */
    public static final String LOGIN_FAILURE_BURST_PROP = "gpux.gateway.loginFailureBurst";
    public static final int LOGIN_FAILURE_BURST_DEFAULT = 10;
    public static final String LOGIN_FAILURES_PER_SECOND_PROP = "gpux.gateway.loginFailuresPerSecond";
    public static final int LOGIN_FAILURES_PER_SECOND_DEFAULT = 1;

    /** Outbound bytes queued for a connection beyond which it is cut off as a slow consumer. */
    public static final String HIGH_WATER_PROP = "gpux.gateway.outboundHighWaterBytes";
    public static final int HIGH_WATER_DEFAULT = 8 * 1024 * 1024;

    /**
     * Resends (Login with last_seq) one account may have in progress at once; a Login that would start
     * one more is refused with TOO_MANY_RESENDS.
     */
    public static final String MAX_RESENDS_PER_ACCOUNT_PROP = "gpux.gateway.maxResendsPerAccount";
    public static final int MAX_RESENDS_PER_ACCOUNT_DEFAULT = 4;

    /** Resends the whole gateway may have in progress at once (each holds a reader of the event journal). */
    public static final String MAX_RESENDS_PROP = "gpux.gateway.maxResends";
    public static final int MAX_RESENDS_DEFAULT = 64;

    /**
     * The thread layout: "shared" runs the exchange core and the egress on the gateway's event loop
     * (the fastest on two cores: nothing crosses a thread); "dedicated" gives each its own thread, so
     * that nothing the egress does (a resend, a portfolio's encoding) runs on the core's thread;
     * "auto" picks dedicated on a machine with at least {@link #DEDICATED_MIN_CPUS} CPUs, shared below.
     */
    public static final String THREADS_PROP = "gpux.threads";
    public static final String THREADS_DEFAULT = "auto";

    /** With the auto layout: the CPUs from which the core and the egress get threads of their own. */
    public static final int DEDICATED_MIN_CPUS = 4;

    /**
     * @param layout "shared", "dedicated" or "auto" (any case; anything else reads as auto).
     * @param cpus   the CPUs the JVM may use.
     * @return whether the core and the egress run on the gateway's event loop.
     */
    public static boolean sharedLoop(final String layout, final int cpus)
    {
        return switch (layout.toLowerCase(java.util.Locale.ROOT))
        {
            case "shared" -> true;
            case "dedicated" -> false;
            default -> cpus < DEDICATED_MIN_CPUS;
        };
    }

    /** @return the layout the {@code gpux.threads} property asks for, on this JVM's CPUs. */
    public static boolean sharedLoop()
    {
        return sharedLoop(System.getProperty(THREADS_PROP, THREADS_DEFAULT), Runtime.getRuntime().availableProcessors());
    }

    /** With the shared layout: how long the event loop keeps polling without blocking after its last work. */
    public static final String SPIN_PROP = "gpux.gateway.spinMicros";
    public static final long SPIN_DEFAULT = 50;

    static int intProp(final String name, final int dflt)
    {
        return Integer.getInteger(name, dflt);
    }

    static long longProp(final String name, final long dflt)
    {
        return Long.getLong(name, dflt);
    }
}
