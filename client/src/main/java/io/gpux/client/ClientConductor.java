package io.gpux.client;

import com.google.protobuf.ByteString;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Heartbeat;
import io.gpux.proto.v1.Login;
import io.gpux.proto.v1.LoginAccepted;
import io.gpux.proto.v1.Logout;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.SessionError;
import io.gpux.proto.v1.SessionErrorCode;
import io.gpux.proto.v1.Subscribe;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The session state machine of one {@link GpuxClient}, confined to the client's event loop thread:
 * connect, Login, heartbeats, resume with {@code last_seq}, the order-entry queue, reconnects with
 * backoff, and dispatch of what arrives to the listeners.
 *
 * <pre>
 *   IDLE --connect--> CONNECTING --TCP up, Login sent--> LOGGING_IN --LoginAccepted--> LOGGED_IN
 *     ^                                                                                  |
 *     +------------- connection lost: backoff, then connect again (unless closed) -------+
 *   any --close()--> CLOSED
 * </pre>
 *
 * Fields written only on the loop are plain; the few that other threads read are volatile.
 */
final class ClientConductor implements PendingCommands.SettlementHandler, PendingCommands.CommandWriter
{
    enum State
    {
        IDLE, CONNECTING, LOGGING_IN, LOGGED_IN, CLOSED
    }

    /** A blocking caller waiting for the answer to one request. */
    static final class Waiter extends CompletableFuture<Object>
    {
        final boolean survivesReconnect;

        Waiter(final boolean survivesReconnect)
        {
            this.survivesReconnect = survivesReconnect;
        }
    }

    private final ClientContext ctx;
    private final GpuxClient client;
    private final EventLoop loop;
    private final CompositeListener listeners;
    private final PendingCommands pending;
    private final ReconnectBackoff backoff;
    private final Bootstrap bootstrap;
    private final AtomicInteger pendingReservations = new AtomicInteger();
    private final Map<Long, Waiter> waiters = new ConcurrentHashMap<>();
    private final Set<String> subscriptions = new LinkedHashSet<>();

    private volatile State state = State.IDLE;
    private volatile boolean sessionReady;
    private volatile long lastSeq;
    private volatile LoginAccepted loginAccepted;
    private Channel channel;
    private long loginLastSeq;
    private boolean replaying;
    private boolean reconnectAllowed;
    private boolean gaveUp;
    private String closeReason;
    private SessionError sessionError;
    private CompletableFuture<Void> connectWaiter;
    private ScheduledFuture<?> reconnectTimer;
    private boolean readInProgress;
    private boolean flushNeeded;

    ClientConductor(final ClientContext ctx, final GpuxClient client, final EventLoop loop,
        final CompositeListener listeners)
    {
        this.ctx = ctx;
        this.client = client;
        this.loop = loop;
        this.listeners = listeners;
        this.pending = new PendingCommands(ctx.maxPendingCommands(), this);
        this.backoff = new ReconnectBackoff(ctx.reconnectBackoffInitial().toMillis(), ctx.reconnectBackoffMax().toMillis());
        this.lastSeq = ctx.lastSeq();
        this.bootstrap = new Bootstrap()
            .group(loop)
            .channel(ctx.socketChannelClass())
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int)Math.min(Integer.MAX_VALUE, ctx.connectTimeout().toMillis()))
            .option(ChannelOption.WRITE_BUFFER_WATER_MARK,
                new WriteBufferWaterMark(ctx.writeBufferLowWaterMark(), ctx.writeBufferHighWaterMark()))
            .remoteAddress(ctx.host(), ctx.port())
            .handler(new ClientInitializer(this, ctx));
    }

    // ------------------------------------------------------------------------------------------
    // Read by other threads

    State state()
    {
        return state;
    }

    boolean isSessionReady()
    {
        return sessionReady;
    }

    long lastSeq()
    {
        return lastSeq;
    }

    LoginAccepted loginAccepted()
    {
        return loginAccepted;
    }

    int unansweredOrderEntry()
    {
        return pendingReservations.get();
    }

    /** Takes a place in the order-entry queue for a caller on any thread; false when full. */
    boolean reserveOrderEntry()
    {
        if (pendingReservations.incrementAndGet() > ctx.maxPendingCommands())
        {
            pendingReservations.decrementAndGet();
            return false;
        }
        return true;
    }

    void addWaiter(final long requestId, final Waiter waiter)
    {
        waiters.put(requestId, waiter);
    }

    void removeWaiter(final long requestId)
    {
        waiters.remove(requestId);
    }

    // ------------------------------------------------------------------------------------------
    // Commands from the client (on the loop)

    void connect(final CompletableFuture<Void> waiter)
    {
        if (state == State.CLOSED)
        {
            waiter.completeExceptionally(new IOException("the client is closed"));
            return;
        }
        if (state == State.LOGGED_IN)
        {
            waiter.complete(null);
            return;
        }
        if (connectWaiter != null)
        {
            waiter.completeExceptionally(new IllegalStateException("a connect() is already waiting"));
            return;
        }
        connectWaiter = waiter;
        if (state == State.IDLE)
        {
            cancelReconnectTimer();
            openConnection();
        }
    }

    /** Gives up on a connect() that timed out: drops the attempt, unless a session is already up. */
    void abandonConnect(final CompletableFuture<Void> waiter)
    {
        if (connectWaiter == waiter)
        {
            connectWaiter = null;
            if (!reconnectAllowed && channel != null)
            {
                closeReason = "connect timed out";
                channel.close();
            }
        }
    }

    void send(final Envelope envelope)
    {
        final Envelope.BodyCase body = envelope.getBodyCase();
        if (PendingCommands.isOrderEntry(body))
        {
            if (state == State.CLOSED || !pending.offer(envelope.getRequestId(), envelope))
            {
                pendingReservations.decrementAndGet();
                failWaiter(envelope.getRequestId(), new IOException(
                    state == State.CLOSED ? "the client is closed" : "too many unanswered order-entry commands"));
                return;
            }
            if (sessionReady && !replaying)
            {
                writePending();
            }
            return;
        }
        if (state != State.LOGGED_IN)
        {
            failWaiter(envelope.getRequestId(), new IOException("not connected"));
            return;
        }
        if (body == Envelope.BodyCase.SUBSCRIBE)
        {
            subscriptions.add(envelope.getSubscribe().getMarket());
        }
        else if (body == Envelope.BodyCase.UNSUBSCRIBE)
        {
            subscriptions.remove(envelope.getUnsubscribe().getMarket());
        }
        writeNow(envelope);
    }

    /**
     * Closes for good: the last listener callback ({@code onDisconnected(.., false)}) runs before this
     * returns; the returned future (null without a connection) completes when the socket is closed.
     */
    ChannelFuture close()
    {
        if (state == State.CLOSED)
        {
            return null;
        }
        final Channel current = channel;
        final boolean loggedIn = state == State.LOGGED_IN;
        state = State.CLOSED;
        channel = null;
        sessionReady = false;
        cancelReconnectTimer();
        final String reason = "closed by the client";
        final IOException closed = new IOException("the client is closed");
        failConnectWaiter(closed);
        for (final Iterator<Waiter> it = waiters.values().iterator(); it.hasNext(); )
        {
            it.next().completeExceptionally(closed);
            it.remove();
        }
        pending.clear();
        pendingReservations.set(0);
        listeners.onDisconnected(reason, false);
        if (current == null)
        {
            return null;
        }
        if (loggedIn && current.isActive())
        {
            current.write(Envelope.newBuilder().setLogout(Logout.newBuilder().setReason(reason)).build(),
                current.voidPromise());
        }
        current.flush();
        return current.close();
    }

    // ------------------------------------------------------------------------------------------
    // Connection life cycle

    private void openConnection()
    {
        state = State.CONNECTING;
        closeReason = null;
        sessionError = null;
        final ChannelFuture connecting = bootstrap.connect();
        channel = connecting.channel();
        connecting.addListener(done ->
        {
            if (!done.isSuccess())
            {
                onConnectFailed(connecting.channel(), done.cause());
            }
        });
    }

    private void onConnectFailed(final Channel failed, final Throwable cause)
    {
        if (failed == channel)
        {
            connectionEnded("connect to " + ctx.host() + ":" + ctx.port() + " failed: " + cause.getMessage());
        }
    }

    void onChannelActive(final Channel ch)
    {
        if (ch != channel || state != State.CONNECTING)
        {
            return;
        }
        state = State.LOGGING_IN;
        loginLastSeq = lastSeq;
        ch.writeAndFlush(loginEnvelope(), ch.voidPromise());
        listeners.onConnected();
    }

    private Envelope loginEnvelope()
    {
        final byte[] nonce = new byte[LoginSigner.NONCE_BYTES];
        ctx.nonceSource().nextBytes(nonce);
        final long now = ctx.clock().getAsLong();
        final Login.Builder login = Login.newBuilder()
            .setKeyId(ctx.keyId())
            .setTimestampMs(now)
            .setNonce(ByteString.copyFrom(nonce))
            .setSignature(ctx.isMarketData() ? ByteString.EMPTY
                : ByteString.copyFrom(LoginSigner.sign(ctx.secret(), ctx.keyId(), now, nonce)))
            .setCancelOnDisconnect(ctx.cancelOnDisconnect())
            .setClientName(ctx.clientName());
        if (loginLastSeq >= 0)
        {
            login.setLastSeq(loginLastSeq);
        }
        return Envelope.newBuilder().setRequestId(client.nextRequestId()).setLogin(login).build();
    }

    void onChannelInactive(final Channel ch)
    {
        if (ch == channel)
        {
            connectionEnded(closeReason != null ? closeReason
                : state == State.LOGGING_IN && ctx.sslContext() == null
                ? "connection closed by the gateway before it answered the Login (if the gateway uses TLS, connect with TLS)"
                : "connection closed by the gateway");
        }
    }

    void onChannelException(final Channel ch, final Throwable cause)
    {
        if (ch == channel && closeReason == null)
        {
            final String tlsFailure = ClientTls.describeFailure(cause);
            closeReason = tlsFailure != null ? tlsFailure : "connection failed: " + cause;
        }
        ch.close();
    }

    void onIdle(final Channel ch, final IdleState idle)
    {
        if (ch != channel)
        {
            return;
        }
        if (idle == IdleState.WRITER_IDLE)
        {
            if (state == State.LOGGED_IN && ctx.heartbeats() && ch.isWritable())
            {
                ch.writeAndFlush(Envelope.newBuilder()
                    .setHeartbeat(Heartbeat.newBuilder().setTimeMs(ctx.clock().getAsLong())).build(), ch.voidPromise());
            }
        }
        else if (idle == IdleState.READER_IDLE)
        {
            closeReason = state == State.LOGGED_IN
                ? "the gateway was silent for two heartbeat intervals"
                : "no answer to the Login within " + ctx.loginTimeout().toMillis() + " ms";
            ch.close();
        }
    }

    private void connectionEnded(final String reason)
    {
        channel = null;
        sessionReady = false;
        replaying = false;
        readInProgress = false;
        flushNeeded = false;
        pending.onConnectionLost();
        final IOException lost = new IOException("connection lost: " + reason);
        for (final Iterator<Waiter> it = waiters.values().iterator(); it.hasNext(); )
        {
            final Waiter waiter = it.next();
            if (!waiter.survivesReconnect)
            {
                waiter.completeExceptionally(lost);
                it.remove();
            }
        }
        state = State.IDLE;
        final boolean reconnecting = reconnectAllowed && !gaveUp && ctx.reconnect();
        if (!reconnecting)
        {
            failConnectWaiter(sessionError != null
                ? new GpuxSessionException(sessionError.getCode(), sessionError.getMessage())
                : new IOException(reason));
        }
        listeners.onDisconnected(reason, reconnecting);
        if (reconnecting)
        {
            reconnectTimer = loop.schedule(this::reconnect, backoff.nextDelayMs(), TimeUnit.MILLISECONDS);
        }
    }

    private void reconnect()
    {
        reconnectTimer = null;
        if (state == State.IDLE)
        {
            openConnection();
        }
    }

    private void cancelReconnectTimer()
    {
        if (reconnectTimer != null)
        {
            reconnectTimer.cancel(false);
            reconnectTimer = null;
        }
    }

    private void failConnectWaiter(final Throwable cause)
    {
        final CompletableFuture<Void> waiter = connectWaiter;
        connectWaiter = null;
        if (waiter != null)
        {
            waiter.completeExceptionally(cause);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Inbound

    void onEnvelope(final Channel ch, final Envelope envelope)
    {
        if (ch != channel)
        {
            return;
        }
        readInProgress = true;
        final long requestId = envelope.getRequestId();
        switch (envelope.getBodyCase())
        {
            case LOGIN_ACCEPTED -> onLoginAccepted(envelope.getLoginAccepted());
            case SESSION_ERROR -> onSessionError(envelope.getSessionError());
            case RESEND_COMPLETE ->
            {
                if (state == State.LOGGED_IN)
                {
                    final boolean wasReplaying = replaying;
                    replaying = false;
                    listeners.onResendComplete(envelope.getResendComplete());
                    if (wasReplaying)
                    {
                        writePending();
                    }
                }
            }
            case LOGOUT -> closeReason = "logged out by the gateway: " + envelope.getLogout().getReason();
            case EVENT -> onAccountEvent(envelope.getEvent());
            case RESPONSE -> onResponse(requestId, envelope.getResponse());
            case QUOTE_RESULT ->
            {
                listeners.onQuote(requestId, envelope.getQuoteResult());
                completeWaiter(requestId, envelope.getQuoteResult());
            }
            case PORTFOLIO ->
            {
                listeners.onPortfolio(requestId, envelope.getPortfolio());
                completeWaiter(requestId, envelope.getPortfolio());
            }
            case MARKETS ->
            {
                listeners.onMarkets(requestId, envelope.getMarkets());
                completeWaiter(requestId, envelope.getMarkets());
            }
            case HISTORY ->
            {
                listeners.onHistory(requestId, envelope.getHistory());
                completeWaiter(requestId, envelope.getHistory());
            }
            case OFFERS -> completeWaiter(requestId, envelope.getOffers());
            case BOOK_SNAPSHOT -> listeners.onBookSnapshot(envelope.getBookSnapshot());
            case BOOK_UPDATE -> listeners.onBookUpdate(envelope.getBookUpdate());
            case TRADE -> listeners.onTrade(envelope.getTrade());
            case WORKLOAD_LAUNCH -> listeners.onWorkloadLaunch(envelope.getWorkloadLaunch());
            case WORKLOAD_STATUS ->
            {
                listeners.onWorkloadStatus(envelope.getWorkloadStatus());
                completeWaiter(requestId, envelope.getWorkloadStatus());
            }
            case WORKLOAD_LOG_REQUEST -> listeners.onWorkloadLogRequest(requestId, envelope.getWorkloadLogRequest());
            case WORKLOAD_LOG ->
            {
                listeners.onWorkloadLog(requestId, envelope.getWorkloadLog());
                completeWaiter(requestId, envelope.getWorkloadLog());
            }
            default ->
            {
                // heartbeats only prove the gateway is alive; anything else is not for a client
            }
        }
    }

    void onReadComplete(final Channel ch)
    {
        if (ch != channel)
        {
            return;
        }
        readInProgress = false;
        if (flushNeeded)
        {
            flushNeeded = false;
            ch.flush();
        }
    }

    void onWritabilityChanged(final Channel ch)
    {
        if (ch == channel && ch.isWritable() && sessionReady && !replaying)
        {
            writePending();
        }
    }

    private void onLoginAccepted(final LoginAccepted accepted)
    {
        if (state != State.LOGGING_IN)
        {
            return;
        }
        state = State.LOGGED_IN;
        loginAccepted = accepted;
        reconnectAllowed = true;
        gaveUp = false;
        backoff.reset();
        final long intervalMs = accepted.getHeartbeatIntervalMs();
        if (intervalMs > 0)
        {
            channel.pipeline().replace(ClientInitializer.IDLE, ClientInitializer.IDLE,
                new IdleStateHandler(2 * intervalMs, intervalMs, 0, TimeUnit.MILLISECONDS));
        }
        else
        {
            channel.pipeline().remove(ClientInitializer.IDLE);
        }
        final boolean resumed = loginLastSeq >= 0;
        if (!resumed)
        {
            lastSeq = accepted.getLastSeq();
        }
        replaying = resumed && accepted.getLastSeq() > loginLastSeq;
        sessionReady = true;
        // renewals and re-sends go out before the listeners can add requests of their own
        for (final String market : subscriptions)
        {
            writeNow(Envelope.newBuilder().setRequestId(client.nextRequestId())
                .setSubscribe(Subscribe.newBuilder().setMarket(market)).build());
        }
        if (!replaying)
        {
            writePending();
        }
        listeners.onLoginAccepted(accepted);
        final CompletableFuture<Void> waiter = connectWaiter;
        connectWaiter = null;
        if (waiter != null)
        {
            waiter.complete(null);
        }
    }

    private void onSessionError(final SessionError error)
    {
        sessionError = error;
        closeReason = "session error " + error.getCode() + (error.getMessage().isEmpty() ? "" : ": " + error.getMessage());
        if (isFatal(error.getCode()))
        {
            gaveUp = true;
        }
        listeners.onSessionError(error);
        if (channel != null)
        {
            // the gateway closes right after; closing here too does not depend on it
            channel.close();
        }
    }

    /** Errors that the same Login would meet again: reconnecting cannot help. */
    private static boolean isFatal(final SessionErrorCode code)
    {
        return code == SessionErrorCode.AUTHENTICATION_FAILED
            || code == SessionErrorCode.KEY_REVOKED
            || code == SessionErrorCode.RESEND_UNAVAILABLE
            || code == SessionErrorCode.PROTOCOL_VIOLATION;
    }

    private void onAccountEvent(final AccountEvent event)
    {
        if (state != State.LOGGED_IN)
        {
            return;
        }
        final long seq = event.getSeq();
        if (seq <= lastSeq)
        {
            return;
        }
        if (seq != lastSeq + 1)
        {
            closeReason = "account event gap: expected seq " + (lastSeq + 1) + ", got " + seq;
            channel.close();
            return;
        }
        lastSeq = seq;
        listeners.onEvent(event);
        if (pending.size() > 0)
        {
            pending.onEvent(event);
        }
    }

    private void onResponse(final long requestId, final Response response)
    {
        if (!pending.onResponse(requestId, response))
        {
            listeners.onResponse(requestId, response);
            completeWaiter(requestId, response);
        }
    }

    @Override
    public void onSettled(final long requestId, final Response response)
    {
        pendingReservations.decrementAndGet();
        listeners.onResponse(requestId, response);
        completeWaiter(requestId, response);
    }

    private void completeWaiter(final long requestId, final Object answer)
    {
        if (!waiters.isEmpty())
        {
            final Waiter waiter = waiters.remove(requestId);
            if (waiter != null)
            {
                waiter.complete(answer);
            }
        }
    }

    private void failWaiter(final long requestId, final Throwable cause)
    {
        if (!waiters.isEmpty())
        {
            final Waiter waiter = waiters.remove(requestId);
            if (waiter != null)
            {
                waiter.completeExceptionally(cause);
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // Outbound: written during a read are flushed once at the end of the read batch

    private void writeNow(final Envelope envelope)
    {
        channel.write(envelope, channel.voidPromise());
        flush();
    }

    private void writePending()
    {
        if (channel != null && pending.writeUnsent(this) > 0)
        {
            flush();
        }
    }

    @Override
    public boolean write(final Envelope command)
    {
        if (!channel.isWritable())
        {
            return false;
        }
        channel.write(command, channel.voidPromise());
        return true;
    }

    private void flush()
    {
        if (readInProgress)
        {
            flushNeeded = true;
        }
        else
        {
            channel.flush();
        }
    }
}
