package io.gpux.gateway;

import io.gpux.core.pipeline.Durability;
import io.gpux.core.pipeline.PipelineConfiguration;
import io.gpux.gateway.tls.ServerTls;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.SystemNanoClock;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * How to start an {@link Exchange}: fluent setters and same-name getters, each setting defaulting to
 * its system property in {@link GatewayConfiguration} (and, for the core, {@link PipelineConfiguration});
 * {@link #conclude()} validates them (the exchange calls it as it starts, on the starting thread). After
 * the start the exchange's threads only read it.
 */
public final class ExchangeContext
{
    private Path dataDir = Path.of("data");
    private Path configFile;
    private Durability durability = Durability.ASYNC;
    private String bind = System.getProperty(GatewayConfiguration.BIND_PROP, GatewayConfiguration.BIND_DEFAULT);
    private int port = GatewayConfiguration.intProp(GatewayConfiguration.PORT_PROP, GatewayConfiguration.PORT_DEFAULT);
    private int maxFrameBytes = GatewayConfiguration.intProp(
        GatewayConfiguration.MAX_FRAME_PROP, GatewayConfiguration.MAX_FRAME_DEFAULT);
    private int heartbeatIntervalMs = GatewayConfiguration.intProp(
        GatewayConfiguration.HEARTBEAT_PROP, GatewayConfiguration.HEARTBEAT_DEFAULT);
    private int loginTimeoutMs = GatewayConfiguration.intProp(
        GatewayConfiguration.LOGIN_TIMEOUT_PROP, GatewayConfiguration.LOGIN_TIMEOUT_DEFAULT);
    private long closeGraceMs = GatewayConfiguration.longProp(
        GatewayConfiguration.CLOSE_GRACE_PROP, GatewayConfiguration.CLOSE_GRACE_DEFAULT);
    private long metricsSampleIntervalMs = GatewayConfiguration.longProp(
        GatewayConfiguration.METRICS_SAMPLE_PROP, GatewayConfiguration.METRICS_SAMPLE_DEFAULT);
    private long workloadLogTimeoutMs = GatewayConfiguration.longProp(
        GatewayConfiguration.WORKLOAD_LOG_TIMEOUT_PROP, GatewayConfiguration.WORKLOAD_LOG_TIMEOUT_DEFAULT);
    private long authWindowMs = GatewayConfiguration.longProp(
        GatewayConfiguration.AUTH_WINDOW_PROP, GatewayConfiguration.AUTH_WINDOW_DEFAULT);
    private long ratePerSecond = GatewayConfiguration.longProp(
        GatewayConfiguration.RATE_PROP, GatewayConfiguration.RATE_DEFAULT);
    private long rateBurst = GatewayConfiguration.longProp(
        GatewayConfiguration.BURST_PROP, GatewayConfiguration.BURST_DEFAULT);
    private int outboundHighWaterBytes = GatewayConfiguration.intProp(
        GatewayConfiguration.HIGH_WATER_PROP, GatewayConfiguration.HIGH_WATER_DEFAULT);
    private int maxSessionsPerAccount = GatewayConfiguration.intProp(
        GatewayConfiguration.MAX_SESSIONS_PER_ACCOUNT_PROP, GatewayConfiguration.MAX_SESSIONS_PER_ACCOUNT_DEFAULT);
    private int maxSessions = GatewayConfiguration.intProp(
        GatewayConfiguration.MAX_SESSIONS_PROP, GatewayConfiguration.MAX_SESSIONS_DEFAULT);
    private int maxMarketDataSessions = GatewayConfiguration.intProp(
        GatewayConfiguration.MAX_MARKET_DATA_SESSIONS_PROP, GatewayConfiguration.MAX_MARKET_DATA_SESSIONS_DEFAULT);
    private int loginFailureBurst = GatewayConfiguration.intProp(
        GatewayConfiguration.LOGIN_FAILURE_BURST_PROP, GatewayConfiguration.LOGIN_FAILURE_BURST_DEFAULT);
    private int loginFailuresPerSecond = GatewayConfiguration.intProp(
        GatewayConfiguration.LOGIN_FAILURES_PER_SECOND_PROP, GatewayConfiguration.LOGIN_FAILURES_PER_SECOND_DEFAULT);
    private NanoClock nanoClock = SystemNanoClock.INSTANCE;
    private int maxResendsPerAccount = GatewayConfiguration.intProp(
        GatewayConfiguration.MAX_RESENDS_PER_ACCOUNT_PROP, GatewayConfiguration.MAX_RESENDS_PER_ACCOUNT_DEFAULT);
    private int maxResends = GatewayConfiguration.intProp(
        GatewayConfiguration.MAX_RESENDS_PROP, GatewayConfiguration.MAX_RESENDS_DEFAULT);
    private long tickIntervalMs = PipelineConfiguration.tickIntervalMs();
    private long counterSampleMs = PipelineConfiguration.counterSampleMs();
    private long snapshotEvery = PipelineConfiguration.snapshotEvery();
    private boolean sharedLoop = GatewayConfiguration.sharedLoop();
    private long spinMicros = GatewayConfiguration.longProp(GatewayConfiguration.SPIN_PROP, GatewayConfiguration.SPIN_DEFAULT);
    private EpochClock clock = SystemEpochClock.INSTANCE;
    private long minFreeBytes = PipelineConfiguration.minFreeBytes();
    private EpochClock authClock = SystemEpochClock.INSTANCE;
    private Consumer<String> log = System.err::println;
    private ServerTls tls;
    private boolean allowPlaintext;
    private int metricsPort = GatewayConfiguration.intProp(
        GatewayConfiguration.METRICS_PORT_PROP, GatewayConfiguration.METRICS_PORT_DEFAULT);
    private String metricsBind = System.getProperty(
        GatewayConfiguration.METRICS_BIND_PROP, GatewayConfiguration.METRICS_BIND_DEFAULT);
    private int httpPort = GatewayConfiguration.intProp(
        GatewayConfiguration.HTTP_PORT_PROP, GatewayConfiguration.HTTP_PORT_DEFAULT);
    private String httpBind = System.getProperty(
        GatewayConfiguration.HTTP_BIND_PROP, GatewayConfiguration.HTTP_BIND_DEFAULT);

    public ExchangeContext dataDir(final Path v)
    {
        dataDir = v;
        return this;
    }

    public Path dataDir()
    {
        return dataDir;
    }

    /** Markets and exchange settings for a fresh exchange (scenario MARKET/CONFIG lines); null: the built-in set. */
    public ExchangeContext configFile(final Path v)
    {
        configFile = v;
        return this;
    }

    public Path configFile()
    {
        return configFile;
    }

    public ExchangeContext durability(final Durability v)
    {
        durability = v;
        return this;
    }

    public Durability durability()
    {
        return durability;
    }

    /** The free space the data directory's file system must keep; below it commands are answered UNAVAILABLE. */
    public ExchangeContext minFreeBytes(final long v)
    {
        minFreeBytes = v;
        return this;
    }

    public ExchangeContext bind(final String v)
    {
        bind = v;
        return this;
    }

    public String bind()
    {
        return bind;
    }

    /** 0: an ephemeral port (see {@link Exchange#port()}). */
    public ExchangeContext port(final int v)
    {
        port = v;
        return this;
    }

    public int port()
    {
        return port;
    }

    public ExchangeContext maxFrameBytes(final int v)
    {
        maxFrameBytes = v;
        return this;
    }

    public int maxFrameBytes()
    {
        return maxFrameBytes;
    }

    public ExchangeContext heartbeatIntervalMs(final int v)
    {
        heartbeatIntervalMs = v;
        return this;
    }

    public int heartbeatIntervalMs()
    {
        return heartbeatIntervalMs;
    }

    public ExchangeContext loginTimeoutMs(final int v)
    {
        loginTimeoutMs = v;
        return this;
    }

    public int loginTimeoutMs()
    {
        return loginTimeoutMs;
    }

    /** How long a connection closed for a reason is given to take its last frame before it is closed anyway. */
    public ExchangeContext closeGraceMs(final long v)
    {
        closeGraceMs = v;
        return this;
    }

    public long closeGraceMs()
    {
        return closeGraceMs;
    }

    /** How often the command round-trip times are sampled into the request-time window. */
    public ExchangeContext metricsSampleIntervalMs(final long v)
    {
        metricsSampleIntervalMs = v;
        return this;
    }

    public long metricsSampleIntervalMs()
    {
        return metricsSampleIntervalMs;
    }

    /** How long a renter's workload log request waits for the agent of the lease's machine. */
    public ExchangeContext workloadLogTimeoutMs(final long v)
    {
        workloadLogTimeoutMs = v;
        return this;
    }

    public long workloadLogTimeoutMs()
    {
        return workloadLogTimeoutMs;
    }

    public ExchangeContext authWindowMs(final long v)
    {
        authWindowMs = v;
        return this;
    }

    public long authWindowMs()
    {
        return authWindowMs;
    }

    public ExchangeContext ratePerSecond(final long v)
    {
        ratePerSecond = v;
        return this;
    }

    public long ratePerSecond()
    {
        return ratePerSecond;
    }

    public ExchangeContext rateBurst(final long v)
    {
        rateBurst = v;
        return this;
    }

    public long rateBurst()
    {
        return rateBurst;
    }

    /** Sessions one account may have open at once. */
    public ExchangeContext maxSessionsPerAccount(final int v)
    {
        maxSessionsPerAccount = v;
        return this;
    }

    public int maxSessionsPerAccount()
    {
        return maxSessionsPerAccount;
    }

    /** Sessions the server holds open in all. */
    public ExchangeContext maxSessions(final int v)
    {
        maxSessions = v;
        return this;
    }

    public int maxSessions()
    {
        return maxSessions;
    }

    /** Market-data sessions (Login key_id 0: no key, market data only) the server holds open in all; 0: none. */
    public ExchangeContext maxMarketDataSessions(final int v)
    {
        maxMarketDataSessions = v;
        return this;
    }

    public int maxMarketDataSessions()
    {
        return maxMarketDataSessions;
    }

    /** Failed logins allowed at once per source address and per key id. */
    public ExchangeContext loginFailureBurst(final int v)
    {
        loginFailureBurst = v;
        return this;
    }

    public int loginFailureBurst()
    {
        return loginFailureBurst;
    }

    /** How many failed logins a second come back to an address's and a key's allowance. */
    public ExchangeContext loginFailuresPerSecond(final int v)
    {
        loginFailuresPerSecond = v;
        return this;
    }

    public int loginFailuresPerSecond()
    {
        return loginFailuresPerSecond;
    }

    /** The clock of the gateway's own timing (the login throttle, each session's rate limit); tests move it by hand. */
    public ExchangeContext nanoClock(final NanoClock v)
    {
        nanoClock = v;
        return this;
    }

    public NanoClock nanoClock()
    {
        return nanoClock;
    }

    public ExchangeContext outboundHighWaterBytes(final int v)
    {
        outboundHighWaterBytes = v;
        return this;
    }

    public int outboundHighWaterBytes()
    {
        return outboundHighWaterBytes;
    }

    /** Resends one account may have in progress; a Login asking for one more is refused (TOO_MANY_RESENDS). */
    public ExchangeContext maxResendsPerAccount(final int v)
    {
        maxResendsPerAccount = v;
        return this;
    }

    public int maxResendsPerAccount()
    {
        return maxResendsPerAccount;
    }

    /** Resends the gateway may have in progress in all; a Login asking for one more is refused (TOO_MANY_RESENDS). */
    public ExchangeContext maxResends(final int v)
    {
        maxResends = v;
        return this;
    }

    public int maxResends()
    {
        return maxResends;
    }

    public ExchangeContext tickIntervalMs(final long v)
    {
        tickIntervalMs = v;
        return this;
    }

    /** How often the core's counters are sampled and the markets' figures read (rounded to whole ticks). */
    public ExchangeContext counterSampleMs(final long v)
    {
        counterSampleMs = v;
        return this;
    }

    public long counterSampleMs()
    {
        return counterSampleMs;
    }

    public ExchangeContext snapshotEvery(final long v)
    {
        snapshotEvery = v;
        return this;
    }

    public long tickIntervalMs()
    {
        return tickIntervalMs;
    }

    public long snapshotEvery()
    {
        return snapshotEvery;
    }

    public long minFreeBytes()
    {
        return minFreeBytes;
    }

    /**
     * True (the default): the exchange core and the egress run on the gateway's event loop, so a
     * command crosses no thread from its socket to the engine and back ({@link SharedLoop}); false:
     * a core thread and an egress thread of their own.
     */
    public ExchangeContext sharedLoop(final boolean v)
    {
        sharedLoop = v;
        return this;
    }

    public boolean sharedLoop()
    {
        return sharedLoop;
    }

    /** With the shared loop: how long the loop keeps polling its sockets without blocking after it last had work. */
    public ExchangeContext spinMicros(final long v)
    {
        spinMicros = v;
        return this;
    }

    public long spinMicros()
    {
        return spinMicros;
    }

    /** The exchange's clock: the time stamped on commands (see {@link ScaledEpochClock}). */
    public ExchangeContext clock(final EpochClock v)
    {
        clock = v;
        return this;
    }

    public EpochClock clock()
    {
        return clock;
    }

    /** The wall clock that Login timestamps are checked against (the exchange's clock may be scaled). */
    public ExchangeContext authClock(final EpochClock v)
    {
        authClock = v;
        return this;
    }

    public EpochClock authClock()
    {
        return authClock;
    }

    public ExchangeContext log(final Consumer<String> v)
    {
        log = v;
        return this;
    }

    public Consumer<String> log()
    {
        return log;
    }

    /** TLS on every connection (an {@link io.netty.handler.ssl.SslHandler} first in its pipeline); null: plain TCP. */
    public ExchangeContext tls(final ServerTls v)
    {
        tls = v;
        return this;
    }

    public ServerTls tls()
    {
        return tls;
    }

    /**
     * Whether plain TCP may listen on an address other than loopback; default false: without
     * {@link #tls(ServerTls)} such a bind is refused before anything is opened.
     */
    public ExchangeContext allowPlaintext(final boolean v)
    {
        allowPlaintext = v;
        return this;
    }

    public boolean allowPlaintext()
    {
        return allowPlaintext;
    }

    /** Serve the counters for Prometheus on this port (0: any free one); -1, the default: no metrics endpoint. */
    public ExchangeContext metricsPort(final int v)
    {
        metricsPort = v;
        return this;
    }

    public int metricsPort()
    {
        return metricsPort;
    }

    /** Serve the web dashboard on this port (0: any free one); -1, the default: no dashboard. */
    public ExchangeContext httpPort(final int v)
    {
        httpPort = v;
        return this;
    }

    public int httpPort()
    {
        return httpPort;
    }

    /** The address the web dashboard listens on (default {@value GatewayConfiguration#HTTP_BIND_DEFAULT}). */
    public ExchangeContext httpBind(final String v)
    {
        httpBind = v;
        return this;
    }

    public String httpBind()
    {
        return httpBind;
    }

    /** The address the metrics endpoint listens on (default {@value GatewayConfiguration#METRICS_BIND_DEFAULT}). */
    public ExchangeContext metricsBind(final String v)
    {
        metricsBind = v;
        return this;
    }

    public String metricsBind()
    {
        return metricsBind;
    }

    /** Checks the settings; the exchange calls it as it starts. */
    public ExchangeContext conclude()
    {
        if (tls == null && !allowPlaintext && !isLoopback(bind))
        {
            throw new IllegalArgumentException("refusing plain TCP on " + bind + ": it is not a loopback address, so " +
                "logins and orders would cross the network unencrypted; give --tls-cert and --tls-key (or " +
                "--tls-self-signed), or --allow-plaintext");
        }
        atLeast("maxFrameBytes", maxFrameBytes, 256);
        atLeast("heartbeatIntervalMs", heartbeatIntervalMs, 10);
        atLeast("loginTimeoutMs", loginTimeoutMs, 10);
        atLeast("workloadLogTimeoutMs", workloadLogTimeoutMs, 1);
        atLeast("closeGraceMs", closeGraceMs, 1);
        atLeast("metricsSampleIntervalMs", metricsSampleIntervalMs, 1);
        atLeast("counterSampleMs", counterSampleMs, 1);
        atLeast("ratePerSecond", ratePerSecond, 1);
        atLeast("rateBurst", rateBurst, 1);
        atLeast("outboundHighWaterBytes", outboundHighWaterBytes, 64 * 1024);
        atLeast("spinMicros", spinMicros, 0);
        if (metricsPort < -1 || metricsPort > 65535)
        {
            throw new IllegalArgumentException("metrics port " + metricsPort + " is out of range: 0 (any free one) to 65535");
        }
        if (httpPort < -1 || httpPort > 65535)
        {
            throw new IllegalArgumentException("http port " + httpPort + " is out of range: 0 (any free one) to 65535");
        }
        if (port < 0 || port > 65535)
        {
            throw new IllegalArgumentException("port " + port + " is out of range: 0 (any free one) to 65535");
        }
        atLeast("maxResendsPerAccount", maxResendsPerAccount, 1);
        atLeast("maxResends", maxResends, 1);
        atLeast("maxMarketDataSessions", maxMarketDataSessions, 0);
        if (maxSessionsPerAccount < 1 || maxSessions < 1 || loginFailureBurst < 1 || loginFailuresPerSecond < 1)
        {
            throw new IllegalArgumentException("the session limits and the login throttle's burst and rate must be " +
                "at least 1 (sessions per account " + maxSessionsPerAccount + ", sessions " + maxSessions +
                ", login failure burst " + loginFailureBurst + ", login failures a second " + loginFailuresPerSecond + ")");
        }
        return this;
    }

    private static void atLeast(final String setting, final long value, final long min)
    {
        if (value < min)
        {
            throw new IllegalArgumentException(setting + " " + value + " is out of range: at least " + min);
        }
    }

    /** Whether {@code address} is a loopback address (a name is looked up). */
    static boolean isLoopback(final String address)
    {
        try
        {
            return InetAddress.getByName(address).isLoopbackAddress();
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException("cannot listen on " + address + ": unknown host");
        }
    }
}
