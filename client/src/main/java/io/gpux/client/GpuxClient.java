package io.gpux.client;

import com.google.protobuf.Message;
import io.gpux.proto.v1.Cancel;
import io.gpux.proto.v1.Configure;
import io.gpux.proto.v1.CreateAccount;
import io.gpux.proto.v1.CreateKey;
import io.gpux.proto.v1.CreateMarket;
import io.gpux.proto.v1.Deposit;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.HaltMarket;
import io.gpux.proto.v1.History;
import io.gpux.proto.v1.HistoryRequest;
import io.gpux.proto.v1.LoginAccepted;
import io.gpux.proto.v1.LaunchWorkload;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.Markets;
import io.gpux.proto.v1.MarketsRequest;
import io.gpux.proto.v1.MassCancel;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.PortfolioRequest;
import io.gpux.proto.v1.QuoteRequest;
import io.gpux.proto.v1.QuoteResult;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Release;
import io.gpux.proto.v1.Replace;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.ResumeMarket;
import io.gpux.proto.v1.RevokeKey;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.Subscribe;
import io.gpux.proto.v1.Unsubscribe;
import io.gpux.proto.v1.WorkloadLog;
import io.gpux.proto.v1.WorkloadLogRequest;
import io.gpux.proto.v1.WorkloadStatus;
import io.gpux.proto.v1.WorkloadStatusRequest;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * A connection to a gpux gateway for one API key: Login, heartbeats, automatic reconnect with resume,
 * order entry that survives reconnects, queries, market data.
 *
 * <pre>{@code
 * try (GpuxClient client = new GpuxClient(new GpuxClient.Context()
 *         .host("127.0.0.1").port(7400).keyId(12).secretHex(secret).listener(myListener)))
 * {
 *     client.connect();                                        // blocks until logged in
 *     long orderId = client.nextOrderId();
 *     long requestId = client.placeBid(orderId, "H100-SXM-80G", 8, Prices.parse("2.5000"));
 *     // the Response comes to myListener.onResponse(requestId, response), the Fill as onFill(...)
 * }
 * }</pre>
 *
 * <h2>Threading</h2>
 * Each client runs on one event loop thread, taken from the context's {@code EventLoopGroup} (shared
 * by many clients) or from a one-thread group of its own. Listener callbacks run on that thread: do not
 * block in them. The request methods may be called from any thread: on the loop thread (from a
 * callback) they write at once, flushed with the read batch; from another thread they are handed to
 * the loop. They never block and allocate only the protobuf messages.
 *
 * <h2>Requests</h2>
 * Every request method returns the request id (increasing, unique for the client's life) that its
 * answer carries: {@link ClientListener#onResponse} for commands and subscriptions,
 * {@code onQuote}/{@code onPortfolio}/{@code onMarkets} for queries. A Response with {@code BUSY} means
 * retry later, {@code RATE_LIMITED} slow down. Order ids are the caller's ({@link #nextOrderId()}
 * hands out fresh ones).
 *
 * <h2>Reconnects</h2>
 * After {@link #connect()} has succeeded once, a lost connection (closed by the gateway, silent for two
 * heartbeat intervals, an event sequence gap) is re-opened after an exponential backoff, until
 * {@link #close()} or a Login refusal that a retry cannot fix. The new Login asks for every
 * account event after the last one delivered ({@code last_seq}), so listeners see each event exactly
 * once, in order. Subscriptions are renewed (their answers arrive under new request ids).
 * <ul>
 *   <li><b>Order-entry commands</b> (placeBid, placeAsk, cancel, replace, massCancel, release) are kept
 *   until answered and re-sent after a reconnect, in order, under the same request id and order id
 *   (once the gateway has finished resending the missed events); they may also be issued while
 *   disconnected (they wait in the queue, at most {@link Context#maxPendingCommands()}). A command that
 *   went through before the connection dropped is reported as settled ({@code REASON_OK}, or the
 *   engine's reject reason), not re-sent and not reported as an error: its account events
 *   (Accepted/Rejected/Cancelled naming its order, whether they arrived before the drop or in the
 *   resend) settle it, and a re-sent PlaceBid/PlaceAsk answered {@code DUPLICATE_ORDER_ID} (Cancel:
 *   {@code UNKNOWN_ORDER}, Release: {@code UNKNOWN_LEASE}) because its first send went through counts
 *   as {@code REASON_OK}; the Response's message says which rule settled it. Do not reuse an order id
 *   while a command naming it is unanswered.</li>
 *   <li><b>Other requests</b> (queries, machines, admin, subscriptions) need a live session: they
 *   throw {@link IllegalStateException} while disconnected, and one in flight when the connection
 *   drops is never answered ({@code onDisconnected} says so; a blocking call fails).</li>
 * </ul>
 */
public final class GpuxClient implements OrderSender, AutoCloseable
{
    private final Context ctx;
    private final EventLoopGroup ownGroup;
    private final EventLoop loop;
    private final CompositeListener listeners;
    private final ClientConductor conductor;
    private final AtomicLong requestIds = new AtomicLong();
    private final AtomicLong orderIds;

    public GpuxClient(final Context context)
    {
        this.ctx = context.conclude();
        this.ownGroup = ctx.eventLoopGroup() == null
            ? new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("gpux-client", true), NioIoHandler.newFactory())
            : null;
        this.loop = (ownGroup != null ? ownGroup : ctx.eventLoopGroup()).next();
        this.listeners = new CompositeListener(ctx.errorHandler());
        if (ctx.listener() != null)
        {
            listeners.add(ctx.listener());
        }
        this.orderIds = new AtomicLong(ctx.firstOrderId() > 0 ? ctx.firstOrderId() - 1 : ctx.clock().getAsLong() * 1000);
        this.conductor = new ClientConductor(ctx, this, loop, listeners);
    }

    // ------------------------------------------------------------------------------------------
    // Life cycle

    /**
     * Connects and logs in; returns once the gateway accepted the Login. From then on the client
     * reconnects by itself when the connection drops.
     *
     * @throws GpuxSessionException if the gateway refused the Login (its code and message).
     * @throws IOException          if the connection failed or the Login got no answer in time.
     * @throws IllegalStateException on the client's event loop thread (it would wait for itself).
     */
    public void connect() throws IOException, InterruptedException
    {
        refuseOnLoop("connect()");
        final CompletableFuture<Void> waiter = new CompletableFuture<>();
        loop.execute(() -> conductor.connect(waiter));
        try
        {
            waiter.get(ctx.connectTimeout().plus(ctx.loginTimeout()).toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final ExecutionException ex)
        {
            throw asIOException(ex.getCause());
        }
        catch (final TimeoutException ex)
        {
            loop.execute(() -> conductor.abandonConnect(waiter));
            throw new IOException("no LoginAccepted within " + ctx.connectTimeout().plus(ctx.loginTimeout()).toMillis() + " ms");
        }
    }

    /**
     * Logs out and closes the connection for good, fails waiting blocking calls, drops unanswered
     * commands, and shuts down the client's own event loop group (never a shared one).
     */
    @Override
    public void close()
    {
        if (loop.inEventLoop())
        {
            conductor.close();
        }
        else if (!loop.isShuttingDown())
        {
            final CompletableFuture<ChannelFuture> closing = new CompletableFuture<>();
            loop.execute(() -> closing.complete(conductor.close()));
            try
            {
                final ChannelFuture closed = closing.get(5, TimeUnit.SECONDS);
                if (closed != null)
                {
                    closed.await(5, TimeUnit.SECONDS);
                }
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
            catch (final ExecutionException | TimeoutException ex)
            {
                ctx.errorHandler().accept(ex);
            }
        }
        if (ownGroup != null)
        {
            ownGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    /** Adds a listener after the context's one (see {@link CompositeListener}); any thread. */
    public GpuxClient addListener(final ClientListener listener)
    {
        listeners.add(listener);
        return this;
    }

    public boolean removeListener(final ClientListener listener)
    {
        return listeners.remove(listener);
    }

    /** How many listeners the client feeds (the context's one included). */
    public int listenerCount()
    {
        return listeners.size();
    }

    /** True while logged in. */
    public boolean isConnected()
    {
        return conductor.isSessionReady();
    }

    /** The last account event seq delivered to the listeners (-1 before the first Login, if not resuming). */
    public long lastSeq()
    {
        return conductor.lastSeq();
    }

    /** The current (or last) session's LoginAccepted; null before the first Login. */
    public LoginAccepted loginAccepted()
    {
        return conductor.loginAccepted();
    }

    /** Order-entry commands issued and not answered yet. */
    public int unansweredCommands()
    {
        return conductor.unansweredOrderEntry();
    }

    /** The thread that runs this client's callbacks. */
    public EventLoop eventLoop()
    {
        return loop;
    }

    public Context context()
    {
        return ctx;
    }

    @Override
    public long nextOrderId()
    {
        return orderIds.incrementAndGet();
    }

    @Override
    public void execute(final Runnable task)
    {
        if (loop.inEventLoop())
        {
            task.run();
        }
        else
        {
            loop.execute(task);
        }
    }

    @Override
    public void schedule(final long delayMs, final Runnable task)
    {
        loop.schedule(task, delayMs, TimeUnit.MILLISECONDS);
    }

    long nextRequestId()
    {
        return requestIds.incrementAndGet();
    }

    // ------------------------------------------------------------------------------------------
    // Sending

    /**
     * Sends any request: sets the next request id on the builder and sends the message.
     *
     * @return the request id.
     * @throws IllegalStateException    if the client is closed, if a request that needs a session is
     *                                  sent while disconnected, or if the order-entry queue is full.
     * @throws IllegalArgumentException if the request is larger than the frame limit.
     */
    public long send(final Envelope.Builder request)
    {
        return send(request, null);
    }

    private long send(final Envelope.Builder request, final ClientConductor.Waiter waiter)
    {
        final boolean orderEntry = PendingCommands.isOrderEntry(request.getBodyCase());
        if (conductor.state() == ClientConductor.State.CLOSED)
        {
            throw new IllegalStateException("the client is closed");
        }
        if (!orderEntry && !conductor.isSessionReady())
        {
            throw new IllegalStateException("not connected");
        }
        final long requestId = nextRequestId();
        final Envelope envelope = request.setRequestId(requestId).build();
        if (envelope.getSerializedSize() > ctx.maxFrameBytes())
        {
            throw new IllegalArgumentException("a " + envelope.getSerializedSize() + "-byte request exceeds the "
                + ctx.maxFrameBytes() + "-byte frame limit");
        }
        if (orderEntry && !conductor.reserveOrderEntry())
        {
            throw new IllegalStateException("too many unanswered order-entry commands (" + ctx.maxPendingCommands() + ")");
        }
        if (waiter != null)
        {
            conductor.addWaiter(requestId, waiter);
        }
        if (loop.inEventLoop())
        {
            conductor.send(envelope);
        }
        else
        {
            loop.execute(() -> conductor.send(envelope));
        }
        return requestId;
    }

    /** A GTC bid without constraints. */
    public long placeBid(final long orderId, final String market, final int gpus, final long price)
    {
        return placeBid(PlaceBid.newBuilder().setOrderId(orderId).setMarket(market).setGpus(gpus).setPrice(price).build());
    }

    /** Any bid: time in force, post-only, gang, minimum reliability, region, maximum duration. */
    @Override
    public long placeBid(final PlaceBid bid)
    {
        return send(Envelope.newBuilder().setPlaceBid(bid));
    }

    /** A GTC ask of a machine's GPUs. */
    public long placeAsk(final long orderId, final long machineId, final int gpus, final long price)
    {
        return placeAsk(PlaceAsk.newBuilder().setOrderId(orderId).setMachineId(machineId).setGpus(gpus).setPrice(price).build());
    }

    public long placeAsk(final PlaceAsk ask)
    {
        return send(Envelope.newBuilder().setPlaceAsk(ask));
    }

    @Override
    public long cancel(final long orderId)
    {
        return cancel(orderId, false);
    }

    /** Cancels an order; {@code reclaim} (owners) also gives notice to the ask's leases. */
    public long cancel(final long orderId, final boolean reclaim)
    {
        return send(Envelope.newBuilder().setCancel(Cancel.newBuilder().setOrderId(orderId).setReclaim(reclaim)));
    }

    /** A new price and open quantity for an order. */
    public long replace(final long orderId, final long price, final int gpus)
    {
        return replace(Replace.newBuilder().setOrderId(orderId).setPrice(price).setGpus(gpus).build());
    }

    /** A replace that sets the price, the open quantity, or both (the fields left unset stay). */
    public long replace(final Replace replace)
    {
        return send(Envelope.newBuilder().setReplace(replace));
    }

    /** Cancels every open order of the account, of one market or (null or empty) of all. */
    public long massCancel(final String market)
    {
        return send(Envelope.newBuilder().setMassCancel(MassCancel.newBuilder().setMarket(market == null ? "" : market)));
    }

    @Override
    public long release(final long leaseId)
    {
        return send(Envelope.newBuilder().setRelease(Release.newBuilder().setLeaseId(leaseId)));
    }

    /** Registers (or finds again, by name) a machine; its id comes in {@code Response.assigned_id}. */
    public long registerMachine(final String name, final String market, final int gpus, final String region)
    {
        return registerMachine(RegisterMachine.newBuilder().setName(name).setMarket(market).setGpus(gpus)
            .setRegion(region == null ? "" : region).build());
    }

    public long registerMachine(final RegisterMachine machine)
    {
        return send(Envelope.newBuilder().setRegisterMachine(machine));
    }

    public long machineHeartbeat(final long machineId)
    {
        return machineHeartbeat(MachineHeartbeat.newBuilder().setMachineId(machineId).build());
    }

    /** A machine heartbeat with GPU telemetry. */
    public long machineHeartbeat(final MachineHeartbeat heartbeat)
    {
        return send(Envelope.newBuilder().setMachineHeartbeat(heartbeat));
    }

    /** ADMIN: a market with default parameters. */
    public long createMarket(final String symbol)
    {
        return createMarket(CreateMarket.newBuilder().setSymbol(symbol).build());
    }

    public long createMarket(final CreateMarket market)
    {
        return send(Envelope.newBuilder().setCreateMarket(market));
    }

    public long configure(final Configure configure)
    {
        return send(Envelope.newBuilder().setConfigure(configure));
    }

    /** ADMIN: the account id comes in {@code Response.assigned_id}. */
    public long createAccount(final String name, final Role... roles)
    {
        final CreateAccount.Builder account = CreateAccount.newBuilder().setName(name);
        for (final Role role : roles)
        {
            account.addRoles(role);
        }
        return send(Envelope.newBuilder().setCreateAccount(account));
    }

    /** ADMIN: adds micro-units to an account's balance. */
    public long deposit(final String account, final long amount)
    {
        return send(Envelope.newBuilder().setDeposit(Deposit.newBuilder().setAccount(account).setAmount(amount)));
    }

    /** ADMIN: the key id and its secret come in the Response ({@code assigned_id}, {@code secret}). */
    public long createKey(final String account)
    {
        return send(Envelope.newBuilder().setCreateKey(CreateKey.newBuilder().setAccount(account)));
    }

    public long revokeKey(final long keyId)
    {
        return send(Envelope.newBuilder().setRevokeKey(RevokeKey.newBuilder().setKeyId(keyId)));
    }

    public long halt(final String market)
    {
        return send(Envelope.newBuilder().setHaltMarket(HaltMarket.newBuilder().setMarket(market)));
    }

    public long resume(final String market)
    {
        return send(Envelope.newBuilder().setResumeMarket(ResumeMarket.newBuilder().setMarket(market)));
    }

    /** What a bid would do now; the answer is {@code onQuote}. */
    public long quote(final QuoteRequest quote)
    {
        return send(Envelope.newBuilder().setQuoteRequest(quote));
    }

    /** The account's balance, orders, leases and machines; the answer is {@code onPortfolio}. */
    public long portfolio()
    {
        return send(Envelope.newBuilder().setPortfolioRequest(PortfolioRequest.getDefaultInstance()));
    }

    /** Every market and its parameters; the answer is {@code onMarkets}. */
    public long markets()
    {
        return send(Envelope.newBuilder().setMarketsRequest(MarketsRequest.getDefaultInstance()));
    }

    /** A market's candles of one interval; the answer is {@code onHistory} (or a refusal, {@code onResponse}). */
    public long history(final HistoryRequest request)
    {
        return send(Envelope.newBuilder().setHistoryRequest(request));
    }

    /** A book snapshot then updates, and trades, of a market; renewed after every reconnect. */
    public long subscribe(final String market)
    {
        return send(Envelope.newBuilder().setSubscribe(Subscribe.newBuilder().setMarket(market)));
    }

    public long unsubscribe(final String market)
    {
        return send(Envelope.newBuilder().setUnsubscribe(Unsubscribe.newBuilder().setMarket(market)));
    }

    // ------------------------------------------------------------------------------------------
    // Blocking conveniences for tools and tests (one future per call; not for the hot path)

    /**
     * Sends a command and waits for its Response, whatever its reason. An order-entry command keeps
     * waiting across reconnects; any other request fails with an IOException if the connection drops.
     *
     * @throws TimeoutException if no answer came in time (it may still come, to the listeners).
     */
    public Response call(final Envelope.Builder request, final Duration timeout)
        throws IOException, InterruptedException, TimeoutException
    {
        return request(request, Response.class, timeout);
    }

    /**
     * Sends a request and waits for its answer of the given type.
     *
     * @throws RequestFailedException if a query was answered by a Response (a refusal) instead.
     */
    public <T extends Message> T request(final Envelope.Builder request, final Class<T> answerType, final Duration timeout)
        throws IOException, InterruptedException, TimeoutException
    {
        refuseOnLoop("a blocking request");
        final ClientConductor.Waiter waiter = new ClientConductor.Waiter(PendingCommands.isOrderEntry(request.getBodyCase()));
        final long requestId = send(request, waiter);
        final Object answer;
        try
        {
            answer = waiter.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final ExecutionException ex)
        {
            throw asIOException(ex.getCause());
        }
        catch (final TimeoutException ex)
        {
            conductor.removeWaiter(requestId);
            throw new TimeoutException("no answer to request " + requestId + " within " + timeout.toMillis() + " ms");
        }
        if (answerType.isInstance(answer))
        {
            return answerType.cast(answer);
        }
        if (answer instanceof Response refusal)
        {
            throw new RequestFailedException(refusal);
        }
        throw new IOException("request " + requestId + " was answered by a " + answer.getClass().getSimpleName());
    }

    public QuoteResult quote(final QuoteRequest quote, final Duration timeout)
        throws IOException, InterruptedException, TimeoutException
    {
        return request(Envelope.newBuilder().setQuoteRequest(quote), QuoteResult.class, timeout);
    }

    public Portfolio portfolio(final Duration timeout) throws IOException, InterruptedException, TimeoutException
    {
        return request(Envelope.newBuilder().setPortfolioRequest(PortfolioRequest.getDefaultInstance()), Portfolio.class, timeout);
    }

    public Markets markets(final Duration timeout) throws IOException, InterruptedException, TimeoutException
    {
        return request(Envelope.newBuilder().setMarketsRequest(MarketsRequest.getDefaultInstance()), Markets.class, timeout);
    }

    /**
     * A market's candles of one interval (oldest first; see {@link History#getMore()} for a range longer
     * than one answer).
     *
     * @throws RequestFailedException UNKNOWN_MARKET, INVALID_REQUEST.
     */
    public History history(final HistoryRequest request, final Duration timeout)
        throws IOException, InterruptedException, TimeoutException
    {
        return request(Envelope.newBuilder().setHistoryRequest(request), History.class, timeout);
    }

    /** The machines with GPUs for rent now that pass the request's filters, sorted as it asks (docs/protocol.md, "Offers"). */
    public io.gpux.proto.v1.Offers offers(final io.gpux.proto.v1.OffersRequest request, final Duration timeout)
        throws IOException, InterruptedException, TimeoutException
    {
        return request(Envelope.newBuilder().setOffersRequest(request), io.gpux.proto.v1.Offers.class, timeout);
    }

    // ------------------------------------------------------------------------------------------
    // Workloads (docs/protocol.md, "Workloads")

    /**
     * Launches a workload on a live lease this account rents; answered with a Response (see
     * {@link #call}); its states come to {@link ClientListener#onWorkloadStatus}.
     *
     * @return the request id.
     */
    public long launch(final long leaseId, final io.gpux.proto.v1.WorkloadSpec spec)
    {
        return send(Envelope.newBuilder().setLaunchWorkload(LaunchWorkload.newBuilder().setLeaseId(leaseId).setSpec(spec)));
    }

    /** Launches a workload and waits for the exchange's Response (REASON_OK: the launch is recorded and sent to the agent). */
    public Response launch(final long leaseId, final io.gpux.proto.v1.WorkloadSpec spec, final Duration timeout)
        throws IOException, InterruptedException, TimeoutException
    {
        return call(Envelope.newBuilder().setLaunchWorkload(LaunchWorkload.newBuilder().setLeaseId(leaseId).setSpec(spec)),
            timeout);
    }

    /**
     * The last lines of the log of the workload on a lease this account rents, read by the agent of
     * the lease's machine.
     *
     * @throws RequestFailedException with the exchange's reason when it refused (the lease is not
     *                                live or not this account's, the agent is not connected or did
     *                                not answer).
     */
    public WorkloadLog logTail(final long leaseId, final int lines, final Duration timeout)
        throws IOException, InterruptedException, TimeoutException
    {
        return request(Envelope.newBuilder().setWorkloadLogRequest(WorkloadLogRequest.newBuilder().setLeaseId(leaseId)
            .setLines(lines)), WorkloadLog.class, timeout);
    }

    /**
     * The latest status of the workload on a live lease this account rents.
     *
     * @throws RequestFailedException with the exchange's reason when it refused (the lease is not
     *                                live or not this account's, or has no workload).
     */
    public WorkloadStatus workloadStatus(final long leaseId, final Duration timeout)
        throws IOException, InterruptedException, TimeoutException
    {
        return request(Envelope.newBuilder().setWorkloadStatusRequest(WorkloadStatusRequest.newBuilder().setLeaseId(leaseId)),
            WorkloadStatus.class, timeout);
    }

    /** Reports the state of the workload on a lease of this account's machine (agents); answered with a Response. */
    public long reportWorkloadStatus(final WorkloadStatus status)
    {
        return send(Envelope.newBuilder().setWorkloadStatus(status));
    }

    /**
     * Answers a log request the exchange relayed ({@link ClientListener#onWorkloadLogRequest}) with
     * its request id; nothing answers this.
     *
     * @throws IllegalStateException if the client is not connected.
     */
    public void answerLogRequest(final long requestId, final WorkloadLog log)
    {
        if (!conductor.isSessionReady())
        {
            throw new IllegalStateException("not connected");
        }
        final Envelope envelope = Envelope.newBuilder().setRequestId(requestId).setWorkloadLog(log).build();
        if (envelope.getSerializedSize() > ctx.maxFrameBytes())
        {
            throw new IllegalArgumentException("a " + envelope.getSerializedSize() + "-byte log exceeds the "
                + ctx.maxFrameBytes() + "-byte frame limit");
        }
        if (loop.inEventLoop())
        {
            conductor.send(envelope);
        }
        else
        {
            loop.execute(() -> conductor.send(envelope));
        }
    }

    private void refuseOnLoop(final String what)
    {
        if (loop.inEventLoop())
        {
            throw new IllegalStateException(what + " would block the client's own event loop thread");
        }
    }

    private static IOException asIOException(final Throwable cause)
    {
        return cause instanceof IOException io ? io : new IOException(cause);
    }

    // ------------------------------------------------------------------------------------------

    /**
     * How to build a {@link GpuxClient}: fluent setters and same-name getters; {@link #conclude()}
     * validates (the client calls it). Required: {@code port}, {@code keyId}, {@code secretHex}; or
     * {@link #marketData()} instead of a key.
     */
    public static final class Context
    {
        private String host = "127.0.0.1";
        private int port;
        private long keyId;
        private String secretHex;
        private byte[] secret;
        private boolean marketData;
        private ClientListener listener;
        private EventLoopGroup eventLoopGroup;
        private Class<? extends SocketChannel> socketChannelClass = NioSocketChannel.class;
        private String clientName = "gpux-client";
        private boolean cancelOnDisconnect;
        private boolean heartbeats = true;
        private boolean reconnect = true;
        private Duration reconnectBackoffInitial = Duration.ofMillis(100);
        private Duration reconnectBackoffMax = Duration.ofSeconds(5);
        private Duration connectTimeout = Duration.ofSeconds(5);
        private Duration loginTimeout = Duration.ofSeconds(10);
        private LongSupplier clock = System::currentTimeMillis;
        private Random nonceSource;
        private int maxPendingCommands = 4096;
        private long firstOrderId;
        private long lastSeq = -1;
        private int maxFrameBytes = 64 * 1024;
        private int writeBufferLowWaterMark = 32 * 1024;
        private int writeBufferHighWaterMark = 64 * 1024;
        private Consumer<Throwable> errorHandler = Throwable::printStackTrace;
        private boolean tls;
        private Path tlsCaFile;
        private String tlsFingerprint;
        private SslContext sslContext;

        /** Checks the settings and derives the rest; called by the client's constructor. */
        public Context conclude()
        {
            if (host == null || host.isEmpty())
            {
                throw new IllegalArgumentException("host is required");
            }
            if (port < 1 || port > 65_535)
            {
                throw new IllegalArgumentException("port must be 1 to 65535, got " + port);
            }
            if (marketData)
            {
                if (keyId != 0 || secretHex != null)
                {
                    throw new IllegalArgumentException("a market-data login takes no key");
                }
            }
            else
            {
                if (keyId == 0)
                {
                    throw new IllegalArgumentException("keyId is required");
                }
                secret = LoginSigner.parseSecret(secretHex);
            }
            if (maxPendingCommands < 1 || maxFrameBytes < 64 || writeBufferLowWaterMark > writeBufferHighWaterMark)
            {
                throw new IllegalArgumentException("maxPendingCommands, maxFrameBytes or the water marks are out of range");
            }
            if (nonceSource == null)
            {
                nonceSource = new SecureRandom();
            }
            sslContext = ClientTls.context(tls, tlsCaFile, tlsFingerprint);
            return this;
        }

        /** The gateway's host name or address; default 127.0.0.1. */
        public Context host(final String host)
        {
            this.host = host;
            return this;
        }

        public String host()
        {
            return host;
        }

        /**
         * Connect over TLS (1.3 or 1.2), trusting the JVM's certificate authorities and checking that the
         * gateway's certificate names {@link #host}; default false (plain TCP). Implied by
         * {@link #tlsCaFile} and {@link #tlsFingerprint}.
         */
        public Context tls(final boolean tls)
        {
            this.tls = tls;
            return this;
        }

        /** Whether the client connects over TLS. */
        public boolean tls()
        {
            return tls || tlsCaFile != null || tlsFingerprint != null;
        }

        /**
         * Connect over TLS and trust the certificate authorities of this PEM file (instead of the JVM's):
         * the gateway's certificate must chain to one of them and name {@link #host}.
         */
        public Context tlsCaFile(final Path tlsCaFile)
        {
            this.tlsCaFile = tlsCaFile;
            return this;
        }

        public Path tlsCaFile()
        {
            return tlsCaFile;
        }

        /**
         * Connect over TLS and accept only the gateway certificate with this SHA-256 fingerprint
         * ({@code SHA256:AB:CD:...}, as {@code gpux server} prints it; colons and case optional); a
         * different certificate fails the connection with both fingerprints in the reason.
         */
        public Context tlsFingerprint(final String tlsFingerprint)
        {
            this.tlsFingerprint = tlsFingerprint;
            return this;
        }

        public String tlsFingerprint()
        {
            return tlsFingerprint;
        }

        /** The TLS context built by {@link #conclude()}, or null for plain TCP. */
        SslContext sslContext()
        {
            return sslContext;
        }

        /** The gateway's port; required. */
        public Context port(final int port)
        {
            this.port = port;
            return this;
        }

        public int port()
        {
            return port;
        }

        /** The API key's id; required. */
        public Context keyId(final long keyId)
        {
            this.keyId = keyId;
            return this;
        }

        public long keyId()
        {
            return keyId;
        }

        /**
         * Logs in without a key, as a market-data session (Login key_id 0): it may only read the markets,
         * books, trades and price history; anything else is refused NOT_AUTHORIZED.
         */
        public Context marketData()
        {
            this.marketData = true;
            return this;
        }

        public boolean isMarketData()
        {
            return marketData;
        }

        /** The API key's secret as its 64 hex digits; required. */
        public Context secretHex(final String secretHex)
        {
            this.secretHex = secretHex;
            return this;
        }

        byte[] secret()
        {
            return secret;
        }

        /** The first listener (more with {@link GpuxClient#addListener}); optional. */
        public Context listener(final ClientListener listener)
        {
            this.listener = listener;
            return this;
        }

        public ClientListener listener()
        {
            return listener;
        }

        /**
         * A group to take the client's event loop from, shared with other clients and not shut down
         * by {@link GpuxClient#close()}; null (the default): the client runs a one-thread NIO group
         * of its own. An epoll group needs {@link #socketChannelClass} set to EpollSocketChannel.
         */
        public Context eventLoopGroup(final EventLoopGroup eventLoopGroup)
        {
            this.eventLoopGroup = eventLoopGroup;
            return this;
        }

        public EventLoopGroup eventLoopGroup()
        {
            return eventLoopGroup;
        }

        /** The socket channel type matching the event loop group; default NioSocketChannel. */
        public Context socketChannelClass(final Class<? extends SocketChannel> socketChannelClass)
        {
            this.socketChannelClass = socketChannelClass;
            return this;
        }

        public Class<? extends SocketChannel> socketChannelClass()
        {
            return socketChannelClass;
        }

        /** Free text for the gateway's logs. */
        public Context clientName(final String clientName)
        {
            this.clientName = clientName;
            return this;
        }

        public String clientName()
        {
            return clientName;
        }

        /** Asks the gateway to cancel the account's open orders when a session of this client ends. */
        public Context cancelOnDisconnect(final boolean cancelOnDisconnect)
        {
            this.cancelOnDisconnect = cancelOnDisconnect;
            return this;
        }

        public boolean cancelOnDisconnect()
        {
            return cancelOnDisconnect;
        }

        /**
         * Whether the client sends a Heartbeat after one interval with nothing sent; default true.
         * (A gateway silent for two intervals is always treated as dead.)
         */
        public Context heartbeats(final boolean heartbeats)
        {
            this.heartbeats = heartbeats;
            return this;
        }

        public boolean heartbeats()
        {
            return heartbeats;
        }

        /** Whether a lost session is re-opened by itself; default true. */
        public Context reconnect(final boolean reconnect)
        {
            this.reconnect = reconnect;
            return this;
        }

        public boolean reconnect()
        {
            return reconnect;
        }

        /** The reconnect delays: doubling from {@code initial} up to {@code max}, with jitter. */
        public Context reconnectBackoff(final Duration initial, final Duration max)
        {
            this.reconnectBackoffInitial = initial;
            this.reconnectBackoffMax = max;
            return this;
        }

        public Duration reconnectBackoffInitial()
        {
            return reconnectBackoffInitial;
        }

        public Duration reconnectBackoffMax()
        {
            return reconnectBackoffMax;
        }

        public Context connectTimeout(final Duration connectTimeout)
        {
            this.connectTimeout = connectTimeout;
            return this;
        }

        public Duration connectTimeout()
        {
            return connectTimeout;
        }

        /** How long to wait for LoginAccepted after the Login; default 10 s. */
        public Context loginTimeout(final Duration loginTimeout)
        {
            this.loginTimeout = loginTimeout;
            return this;
        }

        public Duration loginTimeout()
        {
            return loginTimeout;
        }

        /** Epoch milliseconds, for Login timestamps, heartbeats and the first order id. */
        public Context clock(final LongSupplier clock)
        {
            this.clock = clock;
            return this;
        }

        public LongSupplier clock()
        {
            return clock;
        }

        /** Where Login nonces come from; default a SecureRandom. */
        public Context nonceSource(final Random nonceSource)
        {
            this.nonceSource = nonceSource;
            return this;
        }

        public Random nonceSource()
        {
            return nonceSource;
        }

        /** The most order-entry commands waiting for an answer; default 4096. */
        public Context maxPendingCommands(final int maxPendingCommands)
        {
            this.maxPendingCommands = maxPendingCommands;
            return this;
        }

        public int maxPendingCommands()
        {
            return maxPendingCommands;
        }

        /**
         * The first id {@link GpuxClient#nextOrderId()} hands out; 0 (the default): the clock in
         * milliseconds times 1000, so that a restarted client does not reuse the ids of its orders
         * still open.
         */
        public Context firstOrderId(final long firstOrderId)
        {
            this.firstOrderId = firstOrderId;
            return this;
        }

        public long firstOrderId()
        {
            return firstOrderId;
        }

        /**
         * Resume the first Login after this account event seq (an application that kept its place);
         * -1 (the default): the first session starts live.
         */
        public Context lastSeq(final long lastSeq)
        {
            this.lastSeq = lastSeq;
            return this;
        }

        public long lastSeq()
        {
            return lastSeq;
        }

        /** The largest Envelope accepted from the gateway; default 64 KiB. */
        public Context maxFrameBytes(final int maxFrameBytes)
        {
            this.maxFrameBytes = maxFrameBytes;
            return this;
        }

        public int maxFrameBytes()
        {
            return maxFrameBytes;
        }

        /** Queued order entry stops being written above {@code high} bytes unsent, resumes below {@code low}. */
        public Context writeBufferWaterMark(final int low, final int high)
        {
            this.writeBufferLowWaterMark = low;
            this.writeBufferHighWaterMark = high;
            return this;
        }

        public int writeBufferLowWaterMark()
        {
            return writeBufferLowWaterMark;
        }

        public int writeBufferHighWaterMark()
        {
            return writeBufferHighWaterMark;
        }

        /** Receives what a listener throws (the client carries on); default: print it. */
        public Context errorHandler(final Consumer<Throwable> errorHandler)
        {
            this.errorHandler = errorHandler;
            return this;
        }

        public Consumer<Throwable> errorHandler()
        {
            return errorHandler;
        }
    }
}
