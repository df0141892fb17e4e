package io.gpux.client;

import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Heartbeat;
import io.gpux.proto.v1.LoginAccepted;
import io.gpux.proto.v1.Logout;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.SessionError;
import io.gpux.proto.v1.Subscribe;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoop;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateHandler;
import java.io.IOException;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The session state machine of one {@link GpuxClient}, confined to the client's event loop thread:
 * when to connect, Login and resume with {@code last_seq}, heartbeats, the account events in order,
 * the order-entry queue and its re-sends, the subscriptions renewed after a reconnect. Its helpers
 * each do one part: {@link ClientConnector} opens connections and times reconnects,
 * {@link SessionLogin} builds the Login, {@link RequestCorrelator} matches answers to blocking
 * callers, {@link InboundDispatcher} hands queries' answers and market data to the listeners.
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

    private final ClientContext ctx;
    private final CompositeListener listeners;
    private final RequestCorrelator correlator;
    private final InboundDispatcher dispatcher;
    private final SessionLogin login;
    private final ClientConnector connector;
    private final PendingCommands pending;
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
    private boolean readInProgress;
    private boolean flushNeeded;

    ClientConductor(final ClientContext ctx, final EventLoop loop, final CompositeListener listeners,
        final RequestCorrelator correlator)
    {
        this.ctx = ctx;
        this.listeners = listeners;
        this.correlator = correlator;
        this.dispatcher = new InboundDispatcher(listeners, correlator);
        this.login = new SessionLogin(ctx);
        this.connector = new ClientConnector(ctx, loop, this);
        this.pending = new PendingCommands(ctx.maxPendingCommands(), this);
        this.lastSeq = ctx.lastSeq();
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
            connector.cancelReconnect();
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
                correlator.releaseOrderEntry();
                correlator.failWaiter(envelope.getRequestId(), new IOException(
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
            correlator.failWaiter(envelope.getRequestId(), new IOException("not connected"));
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
        connector.cancelReconnect();
        final String reason = "closed by the client";
        final IOException closed = new IOException("the client is closed");
        failConnectWaiter(closed);
        correlator.onClosed(closed);
        pending.clear();
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
        final ChannelFuture connecting = connector.connect();
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
        ch.writeAndFlush(login.login(correlator.nextRequestId(), loginLastSeq), ch.voidPromise());
        listeners.onConnected();
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
        correlator.onConnectionLost(new IOException("connection lost: " + reason));
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
            connector.scheduleReconnect(this::reconnect);
        }
    }

    private void reconnect()
    {
        if (state == State.IDLE)
        {
            openConnection();
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
            default -> dispatcher.dispatch(envelope);
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
        connector.onLoggedIn();
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
            writeNow(Envelope.newBuilder().setRequestId(correlator.nextRequestId())
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
        if (SessionLogin.isFatal(error.getCode()))
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
            dispatcher.onResponse(requestId, response);
        }
    }

    @Override
    public void onSettled(final long requestId, final Response response)
    {
        correlator.releaseOrderEntry();
        dispatcher.onResponse(requestId, response);
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
