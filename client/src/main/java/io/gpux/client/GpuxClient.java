package io.gpux.client;

import io.gpux.common.Money;
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
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A connection to a gpux gateway for one API key: Login, heartbeats, automatic reconnect with resume,
 * order entry that survives reconnects, queries, market data.
 *
 * <pre>{@code
 * try (GpuxClient client = new GpuxClient(new ClientContext()
 *         .host("127.0.0.1").port(7400).keyId(12).secretHex(secret).listener(myListener)))
 * {
 *     client.connect();                                        // blocks until logged in
 *     long orderId = client.nextOrderId();
 *     long requestId = client.placeBid(orderId, "H100-SXM-80G", 8, Money.parsePrice("2.5000"));
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
 *   disconnected (they wait in the queue, at most {@link ClientContext#maxPendingCommands()}). A command that
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
    private final ClientContext ctx;
    private final EventLoopGroup ownGroup;
    private final EventLoop loop;
    private final CompositeListener listeners;
    private final RequestCorrelator correlator;
    private final ClientConductor conductor;
    private final ClientRequests requests;
    private final AtomicLong orderIds;

    public GpuxClient(final ClientContext context)
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
        this.correlator = new RequestCorrelator(ctx.maxPendingCommands());
        this.conductor = new ClientConductor(ctx, loop, listeners, correlator);
        this.requests = new ClientRequests(ctx, loop, conductor, correlator);
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
        requests.refuseOnLoop("connect()");
        final CompletableFuture<Void> waiter = new CompletableFuture<>();
        loop.execute(() -> conductor.connect(waiter));
        try
        {
            waiter.get(ctx.connectTimeout().plus(ctx.loginTimeout()).toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final ExecutionException ex)
        {
            throw ClientRequests.asIOException(ex.getCause());
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
        return correlator.unansweredOrderEntry();
    }

    /** The thread that runs this client's callbacks. */
    public EventLoop eventLoop()
    {
        return loop;
    }

    public ClientContext context()
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
        return requests.send(request, null);
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
        return requests.request(request, answerType, timeout);
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
        requests.answer(Envelope.newBuilder().setWorkloadLog(log), requestId);
    }
}
