package io.gpux.gateway;

import io.gpux.engine.command.Command;
import io.gpux.core.counters.ExchangeCounters;
import io.gpux.core.journal.DataDirectoryLock;
import io.gpux.core.pipeline.ExchangePipeline;
import io.gpux.core.pipeline.PipelineContext;
import io.gpux.gateway.auth.Authenticator;
import io.gpux.gateway.auth.LoginThrottle;
import io.gpux.gateway.directory.Directory;
import io.gpux.gateway.directory.MachineTelemetry;
import io.gpux.gateway.offers.OfferBoard;
import io.gpux.gateway.offers.OfferQueries;
import io.gpux.gateway.egress.Egress;
import io.gpux.gateway.egress.WorkProbe;
import io.gpux.gateway.dashboard.Dashboard;
import io.gpux.gateway.marketdata.MarketData;
import io.gpux.gateway.metrics.GatewayCounters;
import io.gpux.gateway.metrics.MetricsEndpoint;
import io.gpux.gateway.session.SessionRegistry;
import io.gpux.gateway.workload.WorkloadRelay;
import io.netty.channel.Channel;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.SystemEpochClock;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The whole exchange in one process: the core pipeline (journals, engine, snapshots, recovery), the
 * egress, and the Netty gateway in front.
 *
 * <pre>
 *  clients --TCP--> [Netty event loop: frames, login, checks, tryPublish] --> input ring
 *                                                                               |
 *        core: sequence, command journal, engine, event journal <---------------+
 *              | completions, query answers, market data                        |
 *              v                                                          event journal
 *        [egress: tails the event journal, routes each account's numbered events, answers] --> clients
 * </pre>
 *
 * Two thread layouts ({@link ExchangeContext#sharedLoop(boolean)}):
 * <ul>
 *   <li><b>shared</b> (the default): one event loop does all three in turn ({@link SharedLoop}): a
 *   command goes from its socket through the journal and the engine and its events back out to the
 *   sockets on one thread, with no thread to wake on the way. On two cores this leaves the other core
 *   to everything else (and, in a benchmark, to the client).</li>
 *   <li><b>dedicated</b>: the event loop, a core thread (the pipeline's Disruptor consumer) and an
 *   egress thread that backs off when idle and is woken by the core after each batch.</li>
 * </ul>
 * Either way there are also the acceptor, the ticker, the snapshot writer, the journals' pretoucher, the
 * portfolio encoder and the resend reader, all mostly asleep; {@link ExchangePipeline} describes every thread in one place.
 *
 * <p>This class owns the exchange's lifecycle: it starts the parts in order on the starting thread, holds
 * them for the connection handlers (which read them on the event loop), and closes them in order. Its
 * settings are an {@link ExchangeContext}; the Netty server (event loops, listening channel, connections)
 * is a {@link GatewayServer}; the waits of the start (recovery, the restart, a fresh exchange's
 * bootstrap) are {@link ExchangeStartup}'s.
 */
public final class Exchange implements AutoCloseable
{
    /** The length prefix before each frame's Envelope; {@code maxFrameBytes} counts the Envelope alone. */
    static final int FRAME_PREFIX_BYTES = 4;

    /** A key made at this start (the bootstrap admin key of a fresh exchange). */
    public record Key(String account, long keyId, String secret)
    {
    }

    /** At most one log line about failed and throttled logins in this time. */
    static final long LOGIN_LOG_INTERVAL_MS = 10_000;

    /** The offer board is copied again at most this often after changes, and at least this often without. */
    static final long OFFERS_MIN_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(20);
    static final long OFFERS_MAX_AGE_NS = TimeUnit.SECONDS.toNanos(1);

    /** The name of the TLS handler in a connection's pipeline. */
    static final String TLS_HANDLER = "tls";
    /** The pipeline name of the request decoder in front of the connection's handler. */
    static final String DECODER = "protobufDecoder";

    final ExchangeContext ctx;
    final Consumer<String> log;
    final EpochClock clock;
    final EpochClock authClock;
    final Directory directory = new Directory();
    final Map<Long, MachineTelemetry> telemetry = new ConcurrentHashMap<>();
    final Map<Long, Long> pendingKeys = new ConcurrentHashMap<>();
    final Authenticator authenticator;
    final LoginThrottle loginThrottle;
    final SessionRegistry sessions;
    final ExchangePipeline pipeline;
    final Egress egress;
    final Queries queries;
    final OfferQueries offers;
    final WorkloadRelay workloads;
    /** The egress's own thread, or null when it runs on the shared loop. */
    private final AgentRunner egressRunner;
    /** The Netty side: the event loops, the listening channel, the connections. */
    private final GatewayServer server;
    /** The event loop that also runs the core and the egress, or null (dedicated threads). */
    private final SharedLoop sharedLoop;
    /** The egress waits by spinning briefly, then parks until the core has applied a batch. */
    private final WakeableIdleStrategy egressIdle = new WakeableIdleStrategy(200, 20, TimeUnit.MICROSECONDS.toNanos(200));
    private final AtomicLong sessionIds = new AtomicLong();
    /** The journaled commands of cancel-on-disconnect sessions opening and closing. */
    private final SessionCommands sessionCommands;
    private final Key bootstrapKey;
    /** The counters in the data directory, read by {@code gpux stat} and the metrics endpoint. */
    private final ExchangeCounters exchangeCounters;
    final GatewayCounters counters;
    /** The Prometheus endpoint, or null. */
    private final MetricsEndpoint metrics;
    /** The web dashboard, if asked for. */
    private final Dashboard dashboard;
    private final Dashboard.TradeTape tradeTape;
    /** Held from the start to the end of {@link #close()}: one exchange per data directory. */
    private final DataDirectoryLock dataLock;
    private volatile boolean closed;

    /**
     * The start, step by step: the config read and the data directory locked; the port bound; the
     * counters opened; the gateway's parts made and the core started; recovery (and, for a fresh
     * exchange, the bootstrap) awaited; the HTTP endpoints opened; connections accepted. A step that
     * fails closes what the steps before it opened.
     */
    private Exchange(final ExchangeContext context) throws IOException, InterruptedException
    {
        ctx = context.conclude();
        log = ctx.log();
        clock = ctx.clock();
        authClock = ctx.authClock();
        final List<Command> config = ExchangeConfig.read(ctx.configFile());
        dataLock = DataDirectoryLock.acquire(ctx.dataDir());
        warnIfPlaintext();
        server = listen();
        sharedLoop = server.sharedLoop();
        exchangeCounters = openCounters();
        counters = new GatewayCounters(exchangeCounters);
        WorkloadRelay startingWorkloads = null;
        try
        {
            final byte[] masterKey = Authenticator.loadOrCreateMasterKey(ctx.dataDir());
            authenticator = new Authenticator(masterKey, directory, ctx.authWindowMs());
            loginThrottle = new LoginThrottle(ctx.loginFailuresPerSecond(), ctx.loginFailureBurst(), ctx.nanoClock(),
                LOGIN_LOG_INTERVAL_MS, log, counters);
            sessions = new SessionRegistry(ctx.maxSessionsPerAccount(), ctx.maxSessions(), ctx.maxMarketDataSessions(),
                counters.sessions);
            tradeTape = ctx.httpPort() >= 0 ? new Dashboard.TradeTape() : null;
            egress = newEgress();
            final MarketData marketData = new MarketData((marketId, update) ->
                egress.put(new Egress.MarketUpdate(marketId, update)));
            queries = new Queries(directory, marketData, telemetry);
            queries.egress(egress);
            final OfferBoard offerBoard = new OfferBoard(ctx.nanoClock(), OFFERS_MIN_INTERVAL_NS, OFFERS_MAX_AGE_NS);
            offers = new OfferQueries(directory, telemetry, offerBoard, ctx.clock());
            final CorePublisher core = new CorePublisher(directory, marketData, offerBoard,
                sharedLoop != null ? () -> { } : egressIdle::wake);
            core.egress(egress);
            egressRunner = sharedLoop != null ? null : new AgentRunner(egressIdle, this::onEgressError, null, egress);
            pipeline = startPipeline(core);
            sessionCommands = new SessionCommands(pipeline, server.workerGroup(), () -> closed);
            startingWorkloads = newWorkloads(masterKey);
            workloads = startingWorkloads;
            bootstrapKey = recoverAndBootstrap(core, config);
            workloads.onRecovered();
        }
        catch (final IOException | RuntimeException | InterruptedException ex)
        {
            if (startingWorkloads != null)
            {
                startingWorkloads.close();
            }
            server.abandon();
            exchangeCounters.close();
            dataLock.close();
            throw ex;
        }
        metrics = startMetrics();
        dashboard = startDashboard();
        accept();
    }

    private void warnIfPlaintext()
    {
        if (ctx.tls() == null && !ExchangeContext.isLoopback(ctx.bind()))
        {
            log.accept("warning: plain TCP on " + ctx.bind() + " (--allow-plaintext): logins, orders and fills cross the " +
                "network unencrypted");
        }
    }

    /** Binds the port before anything in the data directory changes: a port in use fails a start with nothing done. */
    private GatewayServer listen() throws IOException, InterruptedException
    {
        try
        {
            return new GatewayServer(ctx, connections -> new ExchangeInitializer(this, connections));
        }
        catch (final IOException | RuntimeException | InterruptedException ex)
        {
            dataLock.close();
            throw ex;
        }
    }

    /** Only once the port is had: a start that cannot listen leaves nothing in the data directory. */
    private ExchangeCounters openCounters() throws IOException
    {
        try
        {
            return ExchangeCounters.inFile(ctx.dataDir(), System.currentTimeMillis());
        }
        catch (final IOException | RuntimeException ex)
        {
            server.abandon();
            dataLock.close();
            throw ex;
        }
    }

    private Egress newEgress()
    {
        final Egress made = new Egress(this::eventReader, directory, new CompletedRequests(directory, pendingKeys, authenticator),
            new Egress.ResendLimits(ctx.maxResendsPerAccount(), ctx.maxResends(), ctx.outboundHighWaterBytes()), log);
        made.counters(counters);
        made.closeGraceMs(ctx.closeGraceMs());
        made.tradeTap(tradeTape);
        if (sharedLoop != null)
        {
            made.wakeWith(sharedLoop::kick);
        }
        return made;
    }

    /** Starts the core, which recovers from the data directory; in the shared layout it is polled by the event loop. */
    private ExchangePipeline startPipeline(final CorePublisher core) throws IOException
    {
        final PipelineContext pipelineContext = new PipelineContext()
            .dataDir(ctx.dataDir())
            .durability(ctx.durability())
            .minFreeBytes(ctx.minFreeBytes())
            .tickIntervalMs(ctx.tickIntervalMs())
            .counterSampleMs(ctx.counterSampleMs())
            .snapshotEvery(ctx.snapshotEvery())
            .announceRestart(true)
            .counters(exchangeCounters)
            .clock(ctx.clock())
            .log(ctx.log());
        if (sharedLoop != null)
        {
            pipelineContext.polled(sharedLoop::kick);
        }
        return ExchangePipeline.start(pipelineContext.publisher(core));
    }

    private WorkloadRelay newWorkloads(final byte[] masterKey) throws IOException
    {
        final WorkloadRelay made = new WorkloadRelay(ctx.dataDir(), masterKey, pipeline::tryPublishQuery, egress,
            sessions::sessions, ctx.clock(), ctx.workloadLogTimeoutMs(), log);
        made.counters(counters);
        return made;
    }

    /** Accepts connections, only now: the exchange has recovered and a fresh one has its admin key. */
    private void accept()
    {
        server.workerGroup().next().scheduleAtFixedRate(counters.requestNs::sample,
            ctx.metricsSampleIntervalMs(), ctx.metricsSampleIntervalMs(), TimeUnit.MILLISECONDS);
        server.accept();
        log.accept("gateway listening on " + server.localAddress() + (ctx.tls() != null ? " over TLS" : "") +
            " (" + server.transport() + (sharedLoop != null ? ", core and egress on the event loop)" : ", core and egress threads)"));
    }

    /** The web dashboard, if asked for; a port that cannot be had stops the start, with everything closed. */
    private Dashboard startDashboard() throws IOException
    {
        if (ctx.httpPort() < 0)
        {
            return null;
        }
        try
        {
            final Dashboard started = Dashboard.create(ctx.httpBind(), ctx.httpPort(),
                new DashboardSources(pipeline, egress, loginThrottle, directory, authenticator, telemetry),
                tradeTape, exchangeCounters.reader(), SystemEpochClock.INSTANCE, log);
            started.start();
            log.accept("dashboard on http://" + ctx.httpBind() + ":" + started.port() + "/");
            return started;
        }
        catch (final IOException ex)
        {
            if (metrics != null)
            {
                metrics.close();
            }
            closeAll();
            throw ex;
        }
    }

    /** The metrics endpoint, if asked for; a port that cannot be had stops the start, with everything closed. */
    private MetricsEndpoint startMetrics() throws IOException
    {
        if (ctx.metricsPort() < 0)
        {
            return null;
        }
        try
        {
            final MetricsEndpoint endpoint = MetricsEndpoint.start(ctx.metricsBind(), ctx.metricsPort(), exchangeCounters.reader(),
                SystemEpochClock.INSTANCE);
            log.accept("metrics on http://" + ctx.metricsBind() + ":" + endpoint.port() + "/metrics");
            return endpoint;
        }
        catch (final IOException ex)
        {
            closeAll();
            throw ex;
        }
    }

    /** Waits for recovery and the egress to catch up; bootstraps a fresh exchange (its admin key, else null). */
    private Key recoverAndBootstrap(final CorePublisher core, final List<Command> config) throws IOException, InterruptedException
    {
        final ExchangeStartup startup = new ExchangeStartup(pipeline, egress, directory, authenticator, log);
        try
        {
            if (sharedLoop != null)
            {
                sharedLoop.start(server.workerGroup().next(), pipeline, egress);
            }
            core.awaitRecovered();
            if (egressRunner != null)
            {
                AgentRunner.startOnThread(egressRunner);
            }
            startup.awaitEgress();
            pipeline.goLive();
            startup.awaitRestartApplied();
            startup.awaitEgress();
            return directory.accounts().isEmpty() ? startup.bootstrap(config) : null;
        }
        catch (final IOException | RuntimeException | InterruptedException ex)
        {
            stopThreads();
            pipeline.close();
            throw ex;
        }
    }

    /** Recovers the exchange from its data directory and opens the gateway. */
    public static Exchange start(final ExchangeContext ctx) throws IOException, InterruptedException
    {
        return new Exchange(ctx);
    }

    /** The port the gateway listens on. */
    public int port()
    {
        return server.port();
    }

    /** The open client connections (the gateway's side). */
    Iterable<Channel> connections()
    {
        return server.connections();
    }

    /** The admin key made when this start created a fresh exchange, else null. */
    public Key bootstrapKey()
    {
        return bootstrapKey;
    }

    public ExchangePipeline pipeline()
    {
        return pipeline;
    }

    /** Failed logins so far (a login's signature, timestamp or nonce refused). */
    public long failedLogins()
    {
        return loginThrottle.failed();
    }

    /** Logins refused unchecked so far, their address or key having failed too often. */
    public long throttledLogins()
    {
        return loginThrottle.throttled();
    }

    /** Logins refused so far because the account or the server had its most sessions. */
    public long loginsOverSessionLimit()
    {
        return loginThrottle.overSessionLimit();
    }

    /** The port the web dashboard listens on, or -1 when there is none. */
    public int httpPort()
    {
        return dashboard == null ? -1 : dashboard.port();
    }

    /** The port the metrics endpoint listens on, or -1 when there is none. */
    public int metricsPort()
    {
        return metrics == null ? -1 : metrics.port();
    }

    /**
     * For benchmarks: from now on, tell {@code probe} the wall and CPU time of each portfolio copy (core thread),
     * portfolio encode and resend slice (egress thread); null stops it. Without a probe nothing is timed.
     */
    public void workProbe(final WorkProbe probe)
    {
        queries.workProbe(probe);
        egress.workProbe(probe);
    }

    /** Sessions logged in now. */
    public int sessionCount()
    {
        return sessions.sessions();
    }

    long nextSessionId()
    {
        return sessionIds.incrementAndGet();
    }

    /**
     * Called on the event loop when the input ring or a session's requests in flight are full: with
     * the shared layout the loop is the core, so it applies and answers what is waiting now and the
     * caller tries again; with dedicated threads there is nothing to do here (the caller answers BUSY).
     */
    boolean makeRoom()
    {
        return sharedLoop != null && sharedLoop.makeRoom();
    }

    private io.gpux.core.journal.Journal.Reader eventReader()
    {
        return pipeline.newEventReader();
    }

    private void onEgressError(final Throwable t)
    {
        log.accept("egress error: " + t);
    }

    /** A session with cancel-on-disconnect logged in: journaled, so that a restart knows to cancel its orders. */
    void cancelOnDisconnectOpened(final long accountId)
    {
        sessionCommands.opened(accountId);
    }

    /**
     * A session with cancel-on-disconnect closed: every order of its account is cancelled (unless
     * {@code cancel} is false: a login refused before it went live), then the session ends.
     */
    void cancelOnDisconnectClosed(final long accountId, final boolean cancel)
    {
        sessionCommands.closed(accountId, cancel);
    }

    /** Stops accepting, tells every session, drains the core and closes the journals. Idempotent. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (dashboard != null)
        {
            dashboard.close();
        }
        if (metrics != null)
        {
            metrics.close();
        }
        closeAll();
    }

    private void closeAll()
    {
        server.closeConnections();
        try
        {
            stopThreads();
            workloads.close();
            pipeline.close();
        }
        finally
        {
            // every thread that writes a counter has stopped
            exchangeCounters.close();
            try
            {
                dataLock.close();
            }
            catch (final IOException ex)
            {
                log.accept("releasing " + dataLock.dir().resolve(DataDirectoryLock.FILE_NAME) + " failed: " + ex.getMessage());
            }
        }
    }

    /**
     * Stops the event loop and the egress: the egress reads the pipeline's event journal, so it stops
     * first (every session is closed by now); with the shared loop, the pipeline's core is then left to
     * this thread, which drains it on close.
     */
    private void stopThreads()
    {
        server.stopWorker();
        if (egressRunner != null)
        {
            egressRunner.close();
        }
        else
        {
            egress.onClose();
        }
    }
}
