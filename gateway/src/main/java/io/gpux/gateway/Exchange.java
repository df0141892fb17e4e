package io.gpux.gateway;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.command.Roles;
import io.gpux.core.counters.ExchangeCounters;
import io.gpux.core.journal.DataDirectoryLock;
import io.gpux.core.pipeline.Durability;
import io.gpux.core.pipeline.ExchangePipeline;
import io.gpux.core.pipeline.PipelineConfiguration;
import io.gpux.gateway.auth.Authenticator;
import io.gpux.gateway.auth.LoginThrottle;
import io.gpux.gateway.directory.Directory;
import io.gpux.gateway.directory.MachineTelemetry;
import io.gpux.gateway.offers.OfferBoard;
import io.gpux.gateway.offers.OfferQueries;
import io.gpux.gateway.egress.Egress;
import io.gpux.gateway.dashboard.Dashboard;
import io.gpux.gateway.marketdata.MarketData;
import io.gpux.gateway.metrics.GatewayCounters;
import io.gpux.gateway.metrics.MetricsEndpoint;
import io.gpux.gateway.session.SessionRegistry;
import io.gpux.gateway.tls.ServerTls;
import io.gpux.gateway.workload.WorkloadRelay;
import io.gpux.proto.v1.SessionErrorCode;
import io.gpux.proto.v1.Envelope;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.SystemEpochClock;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.ArrayList;
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
 * Either way there are also the acceptor, the ticker, the snapshot writer and the journals' pretoucher,
 * all mostly asleep; {@link ExchangePipeline} describes every thread in one place.
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
    /** The event loop that also runs the core and the egress, or null (dedicated threads). */
    private final SharedLoop sharedLoop;
    /** The egress waits by spinning briefly, then parks until the core has applied a batch. */
    private final WakeableIdleStrategy egressIdle = new WakeableIdleStrategy(200, 20, TimeUnit.MICROSECONDS.toNanos(200));
    private final AtomicLong sessionIds = new AtomicLong();
    /** The journaled commands of cancel-on-disconnect sessions opening and closing. */
    private final SessionCommands sessionCommands;
    private final EventLoopGroup bossGroup;
    private final EventLoopGroup workerGroup;
    private final Channel serverChannel;
    private final io.netty.channel.group.ChannelGroup connections =
        new io.netty.channel.group.DefaultChannelGroup(io.netty.util.concurrent.GlobalEventExecutor.INSTANCE);
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

    private Exchange(final ExchangeContext ctx) throws IOException, InterruptedException
    {
        this.ctx = ctx.conclude();
        this.log = ctx.log();
        this.clock = ctx.clock();
        this.authClock = ctx.authClock();
        final List<Command> config = ExchangeConfig.read(ctx.configFile());
        dataLock = DataDirectoryLock.acquire(ctx.dataDir());
        if (ctx.tls() == null && !ExchangeContext.isLoopback(ctx.bind()))
        {
            log.accept("warning: plain TCP on " + ctx.bind() + " (--allow-plaintext): logins, orders and fills cross the " +
                "network unencrypted");
        }
        final boolean epoll = Epoll.isAvailable();
        final IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        if (ctx.sharedLoop())
        {
            sharedLoop = new SharedLoop(io, TimeUnit.MICROSECONDS.toNanos(ctx.spinMicros()));
            workerGroup = new MultiThreadIoEventLoopGroup(1, sharedLoop);
        }
        else
        {
            sharedLoop = null;
            workerGroup = new MultiThreadIoEventLoopGroup(1, io);
        }
        bossGroup = new MultiThreadIoEventLoopGroup(1, io);
        try
        {
            serverChannel = listen(epoll);
        }
        catch (final IOException | RuntimeException | InterruptedException ex)
        {
            shutDownGroups();
            dataLock.close();
            throw ex;
        }
        try
        {
            // only once the port is had: a start that cannot listen leaves nothing in the data directory
            exchangeCounters = ExchangeCounters.inFile(ctx.dataDir(), System.currentTimeMillis());
        }
        catch (final IOException | RuntimeException ex)
        {
            serverChannel.close().awaitUninterruptibly();
            shutDownGroups();
            dataLock.close();
            throw ex;
        }
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
            egress = new Egress(this::eventReader, directory, new CompletedRequests(directory, pendingKeys, authenticator),
                new Egress.ResendLimits(ctx.maxResendsPerAccount(), ctx.maxResends(), ctx.outboundHighWaterBytes()), log);
            egress.counters(counters);
            tradeTape = ctx.httpPort() >= 0 ? new Dashboard.TradeTape() : null;
            egress.tradeTap(tradeTape);
            final MarketData marketData = new MarketData((marketId, update) ->
                egress.put(new Egress.MarketUpdate(marketId, update)));
            queries = new Queries(directory, marketData, telemetry);
            queries.egress(egress);
            final OfferBoard offerBoard = new OfferBoard(ctx.nanoClock(), OFFERS_MIN_INTERVAL_NS, OFFERS_MAX_AGE_NS);
            offers = new OfferQueries(directory, telemetry, offerBoard, ctx.clock());
            final ExchangePipeline.Context pipelineContext = new ExchangePipeline.Context()
                .dataDir(ctx.dataDir())
                .durability(ctx.durability())
                .minFreeBytes(ctx.minFreeBytes())
                .tickIntervalMs(ctx.tickIntervalMs())
                .snapshotEvery(ctx.snapshotEvery())
                .announceRestart(true)
                .counters(exchangeCounters)
                .clock(ctx.clock())
                .log(ctx.log());
            final CorePublisher core;
            if (sharedLoop != null)
            {
                core = new CorePublisher(directory, marketData, offerBoard, () -> { });
                pipelineContext.polled(sharedLoop::kick);
                egress.wakeWith(sharedLoop::kick);
                egressRunner = null;
            }
            else
            {
                core = new CorePublisher(directory, marketData, offerBoard, egressIdle::wake);
                egressRunner = new AgentRunner(egressIdle, this::onEgressError, null, egress);
            }
            core.egress(egress);
            pipeline = ExchangePipeline.start(pipelineContext.publisher(core));
            sessionCommands = new SessionCommands(pipeline, workerGroup, () -> closed);
            startingWorkloads = new WorkloadRelay(ctx.dataDir(), masterKey, pipeline::tryPublishQuery, egress,
                sessions::sessions, ctx.clock(), ctx.workloadLogTimeoutMs(), log);
            startingWorkloads.counters(counters);
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
            serverChannel.close().awaitUninterruptibly();
            shutDownGroups();
            exchangeCounters.close();
            dataLock.close();
            throw ex;
        }
        metrics = startMetrics();
        dashboard = startDashboard();
        workerGroup.next().scheduleAtFixedRate(counters.requestNs::sample, 1, 1, TimeUnit.SECONDS);
        // accept connections only now: the exchange has recovered and a fresh one has its admin key
        serverChannel.config().setAutoRead(true);
        log.accept("gateway listening on " + serverChannel.localAddress() + (ctx.tls() != null ? " over TLS" : "") +
            (epoll ? " (epoll" : " (nio") +
            (sharedLoop != null ? ", core and egress on the event loop)" : ", core and egress threads)"));
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

    /**
     * Binds the port before anything in the data directory changes, so that a port in use fails a
     * start with nothing done; the channel accepts no connection until the exchange is ready (the
     * kernel holds them in its backlog until then).
     */
    private Channel listen(final boolean epoll) throws IOException, InterruptedException
    {
        final ServerBootstrap b = new ServerBootstrap()
            .group(bossGroup, workerGroup)
            .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
            .option(ChannelOption.AUTO_READ, false)
            .childOption(ChannelOption.TCP_NODELAY, true)
            // shared loop: one read (up to 64 KiB) per connection per turn, then the core and the egress run
            .childOption(ChannelOption.RECVBUF_ALLOCATOR,
                new AdaptiveRecvByteBufAllocator(64, 2048, 64 * 1024).maxMessagesPerRead(sharedLoop != null ? 1 : 16))
            .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK,
                new WriteBufferWaterMark(ctx.outboundHighWaterBytes() / 2, ctx.outboundHighWaterBytes()))
            .childHandler(new ExchangeInitializer(this, connections));
        final io.netty.channel.ChannelFuture bound = b.bind(new InetSocketAddress(ctx.bind(), ctx.port())).await();
        if (!bound.isSuccess())
        {
            final Throwable cause = bound.cause();
            final java.net.BindException ex = new java.net.BindException("cannot listen on " + ctx.bind() + ":" + ctx.port() + ": " +
                bindProblem(cause));
            ex.initCause(cause);
            throw ex;
        }
        return bound.channel();
    }

    /** The reason a bind failed, in words (Netty's native transport prefixes the system call). */
    private static String bindProblem(final Throwable cause)
    {
        final String message = String.valueOf(cause.getMessage());
        final int colon = message.lastIndexOf(": ");
        final String reason = message.startsWith("bind(") && colon > 0 ? message.substring(colon + 2) : message;
        return reason.isEmpty() ? cause.getClass().getSimpleName() : Character.toLowerCase(reason.charAt(0)) + reason.substring(1);
    }

    /** Waits for recovery and the egress to catch up; bootstraps a fresh exchange (its admin key, else null). */
    private Key recoverAndBootstrap(final CorePublisher core, final List<Command> config) throws IOException, InterruptedException
    {
        try
        {
            if (sharedLoop != null)
            {
                sharedLoop.start(workerGroup.next(), pipeline, egress);
            }
            core.awaitRecovered();
            if (egressRunner != null)
            {
                AgentRunner.startOnThread(egressRunner);
            }
            awaitEgress();
            pipeline.goLive();
            awaitRestartApplied();
            awaitEgress();
            return directory.accounts().isEmpty() ? bootstrap(config) : null;
        }
        catch (final IOException | RuntimeException | InterruptedException ex)
        {
            stopThreads();
            pipeline.close();
            throw ex;
        }
    }

    private void shutDownGroups()
    {
        bossGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
        workerGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }

    /** Recovers the exchange from its data directory and opens the gateway. */
    public static Exchange start(final ExchangeContext ctx) throws IOException, InterruptedException
    {
        return new Exchange(ctx);
    }

    /** The port the gateway listens on. */
    public int port()
    {
        return ((InetSocketAddress)serverChannel.localAddress()).getPort();
    }

    /** The open client connections (the gateway's side). */
    Iterable<Channel> connections()
    {
        return connections;
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

    /** Cancels every open order of an account (cancel-on-disconnect), retrying while the ring is full. */
    private void awaitEgress() throws InterruptedException
    {
        while (!egress.caughtUp())
        {
            Thread.sleep(1);
        }
    }

    /**
     * After a restart, the engine has ended the outage and cancelled the orders of the cancel-on-disconnect
     * sessions the stop left open before any client can connect (docs/market-rules.md section 14).
     */
    private void awaitRestartApplied() throws IOException, InterruptedException
    {
        final long restart = pipeline.restartSequence();
        while (pipeline.appliedCommands() < restart)
        {
            if (pipeline.failed())
            {
                throw new IOException("the exchange core stopped while applying the restart");
            }
            final String refusal = pipeline.refusal();
            if (refusal != null && pipeline.appliedCommands() < restart)
            {
                // the restart could not be journaled: start again once there is room
                throw new IOException("cannot journal the restart: " + refusal);
            }
            Thread.sleep(1);
        }
        if (restart > 0)
        {
            log.accept("restart applied as command " + restart);
        }
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

    /**
     * A fresh exchange: the configured markets and settings, and an admin account with a key, all
     * through the journaled path like any other command.
     */
    private Key bootstrap(final List<Command> config) throws IOException, InterruptedException
    {
        final List<Command> commands = new ArrayList<>(config);
        for (final Command c : commands)
        {
            if (c.type == CommandType.MARKET)
            {
                c.marketId = directory.newMarket(c.name).id();
            }
        }
        final Directory.AccountEntry admin = directory.newAccount("admin", Roles.ADMIN);
        final Command account = new Command().reset(CommandType.ACCOUNT, 0);
        account.accountId = admin.id();
        account.name = admin.name();
        account.roles = Roles.ADMIN;
        commands.add(account);
        final long keyId = directory.newKeyId();
        final Command key = new Command().reset(CommandType.KEY, 0);
        key.accountId = admin.id();
        key.keyId = keyId;
        commands.add(key);
        final long target = pipeline.appliedCommands() + commands.size();
        for (final Command c : commands)
        {
            while (!pipeline.tryPublish(c))
            {
                Thread.sleep(1);
            }
        }
        while (pipeline.appliedCommands() < target)
        {
            if (pipeline.failed())
            {
                throw new IOException("the exchange core stopped while bootstrapping");
            }
            Thread.sleep(1);
        }
        directory.keyAdded(keyId, admin.id());
        log.accept("fresh exchange: " + directory.markets().size() + " markets, admin key " + keyId + " created");
        return new Key(admin.name(), keyId, authenticator.secretHex(keyId));
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
        serverChannel.close().awaitUninterruptibly();
        connections.writeAndFlush(Envelope.newBuilder().setSessionError(io.gpux.proto.v1.SessionError.newBuilder()
            .setCode(io.gpux.proto.v1.SessionErrorCode.SERVER_SHUTDOWN).setMessage("the exchange is shutting down")).build())
            .awaitUninterruptibly(1, TimeUnit.SECONDS);
        connections.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
        bossGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
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
        workerGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
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
