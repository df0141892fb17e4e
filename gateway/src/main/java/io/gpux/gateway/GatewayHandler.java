package io.gpux.gateway;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.command.Roles;
import io.gpux.engine.market.Market;
import io.gpux.engine.pipeline.CommandSlot;
import io.gpux.gateway.auth.Authenticator;
import io.gpux.gateway.codec.HotRequest;
import io.gpux.gateway.codec.RequestDecoder;
import io.gpux.gateway.codec.SymbolCache;
import io.gpux.gateway.directory.Directory;
import io.gpux.gateway.directory.MachineTelemetry;
import io.gpux.gateway.offers.OfferSearch;
import io.gpux.gateway.egress.Egress;
import io.gpux.gateway.egress.Frames;
import io.gpux.gateway.session.RateLimiter;
import io.gpux.gateway.session.Session;
import io.gpux.gateway.session.SessionRegistry;
import io.gpux.proto.v1.CreateAccount;
import io.gpux.proto.v1.CreateMarket;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.OffersRequest;
import io.gpux.proto.v1.Login;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.SessionError;
import io.gpux.proto.v1.SessionErrorCode;
import com.lmax.disruptor.EventTranslatorOneArg;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import javax.net.ssl.SSLException;

/**
 * One connection: login, then requests. Everything here runs on the connection's event loop and
 * never blocks: a command is checked, resolved to the engine's ids and published to the input ring
 * with {@code tryPublish} (a full ring answers BUSY); its answer comes back through the egress.
 * A connection that breaks the protocol is sent a SessionError and closed; nothing it sends can
 * harm the server.
 *
 * <p>Requests come from the {@link RequestDecoder} in front: the frequent ones (orders, cancels,
 * replaces, heartbeats, ...) as its reused {@link HotRequest}, read without allocating, the rest as
 * Envelopes. Market symbols resolve through a per-connection {@link SymbolCache}, so an order
 * allocates nothing on its way to the input ring.
 */
final class GatewayHandler extends ChannelInboundHandlerAdapter
{
    /** The pipeline name of the decoder in front of this handler (Exchange's Initializer). */
    static final String DECODER = "protobufDecoder";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final String KEY_REVOKED = "the session's key was revoked";
    /** One command in this many (a power of two) of each session is timed to its answer: a clock read is not free. */
    static final int TIMED_COMMAND_EVERY = 16;
    private static final EventTranslatorOneArg<CommandSlot, GatewayHandler> PUBLISH = (slot, seq, h) ->
    {
        slot.command().copyFrom(h.staged);
        slot.correlation = h.stagedCorrelation;
    };

    private final Exchange exchange;
    private final Command staged = new Command();
    private final SymbolCache symbols = new SymbolCache();
    /** A hot request that came as an Envelope (the RequestDecoder left it to the generated parser). */
    private final HotRequest parsed = new HotRequest();
    private long stagedCorrelation;
    private long commandsTracked;
    private Session session;
    private RateLimiter limiter;
    private ScheduledFuture<?> loginDeadline;
    private boolean closing;
    private boolean sessionEnded;

    GatewayHandler(final Exchange exchange)
    {
        this.exchange = exchange;
    }

    @Override
    public void channelActive(final ChannelHandlerContext ctx)
    {
        loginDeadline = ctx.executor().schedule(() ->
        {
            if (session == null)
            {
                fail(ctx, SessionErrorCode.NOT_LOGGED_IN, "no Login within " + exchange.ctx.loginTimeoutMs() + " ms");
            }
        }, exchange.ctx.loginTimeoutMs(), TimeUnit.MILLISECONDS);
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx)
    {
        endSession();
        ctx.fireChannelInactive();
    }

    /**
     * The session ends when its last frame is out (the connection then only waits for the peer to close
     * its side) or when the connection closes, whichever is first: its cancel-on-disconnect does not wait.
     */
    private void endSession()
    {
        if (loginDeadline != null)
        {
            loginDeadline.cancel(false);
        }
        if (session != null && !sessionEnded)
        {
            sessionEnded = true;
            exchange.sessions.unregister(session);
            exchange.egress.put(new Egress.Detach(session));
            if (session.cancelOnDisconnect)
            {
                // a login the egress refused was never a session: its journaled opening is closed, nothing cancelled
                exchange.cancelOnDisconnectClosed(session.accountId, !session.refused);
            }
        }
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        if (closing)
        {
            return;
        }
        if (!ctx.channel().isWritable())
        {
            // the peer does not read what it is sent: answering it would only queue more, without bound
            fail(ctx, SessionErrorCode.SLOW_CONSUMER, "the connection's outbound buffer passed its high-water mark");
            return;
        }
        if (msg instanceof HotRequest hot)
        {
            hot(ctx, hot);
            return;
        }
        final Envelope env = (Envelope)msg;
        if (HotRequest.handles(env.getBodyCase()))
        {
            hot(ctx, parsed.readFrom(env));
            return;
        }
        if (session == null)
        {
            if (env.getBodyCase() == Envelope.BodyCase.LOGIN)
            {
                login(ctx, env.getLogin());
            }
            else
            {
                fail(ctx, SessionErrorCode.NOT_LOGGED_IN, "the first message must be Login, not " + env.getBodyCase());
            }
            return;
        }
        request(ctx, env);
    }

    @Override
    public void channelReadComplete(final ChannelHandlerContext ctx)
    {
        ctx.flush();
    }

    @Override
    public void userEventTriggered(final ChannelHandlerContext ctx, final Object evt)
    {
        if (evt == Frames.LAST_FRAME_SENT)
        {
            endSession();
            return;
        }
        if (evt instanceof IdleStateEvent idle)
        {
            if (idle.state() == IdleState.READER_IDLE)
            {
                if (session == null)
                {
                    return; // before Login, the login deadline alone decides
                }
                else
                {
                    fail(ctx, SessionErrorCode.HEARTBEAT_TIMEOUT, "nothing received for two heartbeat intervals");
                }
            }
            else if (idle.state() == IdleState.WRITER_IDLE && session != null && !closing && ctx.channel().isWritable())
            {
                // none to a connection being closed (its SessionError is its last frame) or not reading (it would only queue)
                ctx.writeAndFlush(Envelope.newBuilder().setHeartbeat(
                    io.gpux.proto.v1.Heartbeat.newBuilder().setTimeMs(exchange.clock.time())).build(), ctx.voidPromise());
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        if (cause instanceof NotSslRecordException || cause instanceof SSLException || cause.getCause() instanceof SSLException)
        {
            // TLS failed (a plain client on a TLS port, a failed handshake): no frame can reach the peer
            ctx.close();
        }
        else if (cause instanceof TooLongFrameException)
        {
            fail(ctx, SessionErrorCode.FRAME_TOO_LARGE,
                "an Envelope may be at most " + exchange.ctx.maxFrameBytes() + " bytes (the 4-byte length prefix not counted)");
        }
        else if (cause instanceof CorruptedFrameException || cause instanceof DecoderException)
        {
            fail(ctx, SessionErrorCode.MALFORMED_FRAME, String.valueOf(cause.getCause() != null ? cause.getCause().getMessage() : cause.getMessage()));
        }
        else if (cause instanceof IOException)
        {
            ctx.close();
        }
        else
        {
            exchange.log.accept("connection " + ctx.channel().remoteAddress() + " failed: " + cause);
            fail(ctx, SessionErrorCode.PROTOCOL_VIOLATION, "internal error handling this connection");
        }
    }

    private void fail(final ChannelHandlerContext ctx, final SessionErrorCode code, final String message)
    {
        if (closing)
        {
            return;
        }
        closing = true;
        final Envelope error = Envelope.newBuilder().setSessionError(
            SessionError.newBuilder().setCode(code).setMessage(message == null ? "" : message)).build();
        if (code == SessionErrorCode.SLOW_CONSUMER)
        {
            if (Frames.claimCutOff(ctx.channel()))
            {
                exchange.counters.slowConsumers.increment();
                Frames.cutOff(ctx.channel(), error);
            }
        }
        else
        {
            Frames.writeLastAndClose(ctx.channel(), error);
        }
    }

    // ---- login

    private void login(final ChannelHandlerContext ctx, final Login login)
    {
        final InetAddress from = ctx.channel().remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
        final String throttled = exchange.loginThrottle.check(from, login.getKeyId());
        if (throttled != null)
        {
            fail(ctx, SessionErrorCode.LOGIN_THROTTLED, throttled);
            return;
        }
        final Session candidate;
        if (login.getKeyId() == MarketDataLogin.KEY_ID)
        {
            candidate = new Session(exchange.nextSessionId(), ctx.channel(), Session.MARKET_DATA_ACCOUNT, "", 0, false,
                MarketDataLogin.KEY_ID);
        }
        else
        {
            final Authenticator.Result result = exchange.authenticator.check(login, exchange.authClock.time());
            if (!result.ok())
            {
                exchange.loginThrottle.onFailure(from, login.getKeyId(), result.error(), result.message());
                fail(ctx, result.error(), result.message());
                return;
            }
            final Directory.AccountEntry account = exchange.directory.account(result.accountId());
            if (account == null)
            {
                fail(ctx, SessionErrorCode.AUTHENTICATION_FAILED, "the key's account is unknown");
                return;
            }
            candidate = new Session(exchange.nextSessionId(), ctx.channel(), account.id(), account.name(),
                account.roles(), login.getCancelOnDisconnect(), login.getKeyId());
        }
        final SessionRegistry.Refusal refusal =
            exchange.sessions.register(candidate, keyId -> exchange.directory.keyAccount(keyId) != 0);
        if (refusal != null)
        {
            final boolean revoked = !candidate.marketDataOnly() && exchange.directory.keyAccount(candidate.keyId) == 0;
            if (!revoked)
            {
                exchange.loginThrottle.onSessionLimit(from, candidate.keyId, refusal.message());
            }
            fail(ctx, revoked ? SessionErrorCode.AUTHENTICATION_FAILED : SessionErrorCode.SESSION_LIMIT, refusal.message());
            return;
        }
        loginDeadline.cancel(false);
        session = candidate;
        if (session.cancelOnDisconnect)
        {
            // journaled before the session can place anything, so a crash cannot leave its orders open
            exchange.cancelOnDisconnectOpened(session.accountId);
        }
        limiter = new RateLimiter(exchange.ctx.ratePerSecond(), exchange.ctx.rateBurst(), exchange.ctx.nanoClock().nanoTime());
        final Egress.Attach attach = new Egress.Attach(session, login.hasLastSeq() && !session.marketDataOnly() ? login.getLastSeq() : -1,
            exchange.ctx.heartbeatIntervalMs(), exchange.ctx.maxFrameBytes(), 0);
        // Attach behind every command already published (a previous session's last orders may still be in
        // the ring): LoginAccepted.last_seq and the resend then include their events, so a client that
        // re-sends what the lost connection left unanswered never places an order twice. Ring full: at once.
        if (!exchange.pipeline.tryPublishQuery(engine -> exchange.egress.put(attach.after(engine.eventSequence()))))
        {
            exchange.egress.put(attach);
        }
        if (!session.marketDataOnly())
        {
            exchange.workloads.onLogin(session);
        }
    }

    // ---- requests

    /** The frequent requests (see {@link HotRequest#handles}). */
    private void hot(final ChannelHandlerContext ctx, final HotRequest r)
    {
        if (r.kind == Envelope.BodyCase.HEARTBEAT)
        {
            return;
        }
        if (session == null)
        {
            fail(ctx, SessionErrorCode.NOT_LOGGED_IN, "the first message must be Login, not " + r.kind);
            return;
        }
        final long rid = r.requestId;
        exchange.counters.requests.increment();
        if (session.revoked())
        {
            reply(ctx, rid, Reason.NOT_AUTHORIZED, KEY_REVOKED);
            return;
        }
        if (!limiter.tryAcquire(exchange.ctx.nanoClock().nanoTime()))
        {
            reply(ctx, rid, Reason.RATE_LIMITED, "more than " + exchange.ctx.ratePerSecond() + " requests a second");
            return;
        }
        if (session.marketDataOnly())
        {
            reply(ctx, rid, Reason.NOT_AUTHORIZED, MarketDataLogin.REFUSAL);
            return;
        }
        switch (r.kind)
        {
            case PLACE_BID -> bid(ctx, rid, r);
            case PLACE_ASK -> ask(ctx, rid, r);
            case CANCEL ->
            {
                stage(CommandType.CANCEL);
                r.toCancel(staged);
                publish(ctx, rid, Session.KIND_COMMAND, 0);
            }
            case REPLACE -> replace(ctx, rid, r);
            case MASS_CANCEL ->
            {
                stage(CommandType.MASS_CANCEL);
                if (r.marketLength() > 0)
                {
                    final Directory.MarketEntry m = market(r);
                    if (m == null)
                    {
                        reply(ctx, rid, Reason.UNKNOWN_MARKET, r.marketString());
                        return;
                    }
                    staged.marketId = m.id();
                    staged.hasMarket = true;
                }
                publish(ctx, rid, Session.KIND_COMMAND, 0);
            }
            case RELEASE ->
            {
                stage(CommandType.RELEASE);
                staged.leaseId = r.leaseId;
                publish(ctx, rid, Session.KIND_COMMAND, 0);
            }
            case MACHINE_HEARTBEAT -> machineHeartbeat(ctx, rid, r);
            default -> throw new IllegalStateException("not a hot request: " + r.kind);
        }
    }

    /** The market a request names, through this connection's symbol cache; null if there is none of that symbol. */
    private Directory.MarketEntry market(final HotRequest r)
    {
        final String cached = symbols.get(r.bytes(), r.marketOffset(), r.marketLength());
        if (cached != null)
        {
            return exchange.directory.market(cached);
        }
        final String symbol = new String(r.bytes(), r.marketOffset(), r.marketLength(), StandardCharsets.UTF_8);
        final Directory.MarketEntry m = exchange.directory.market(symbol);
        if (m != null)
        {
            symbols.put(r.bytes(), r.marketOffset(), r.marketLength(), m.symbol());
        }
        return m;
    }

    private void request(final ChannelHandlerContext ctx, final Envelope env)
    {
        final long rid = env.getRequestId();
        switch (env.getBodyCase())
        {
            case LOGOUT:
                closing = true;
                ctx.close();
                return;
            case LOGIN:
                fail(ctx, SessionErrorCode.PROTOCOL_VIOLATION, "already logged in");
                return;
            case LOGIN_ACCEPTED, SESSION_ERROR, RESEND_COMPLETE, QUOTE_RESULT, PORTFOLIO, MARKETS, OFFERS, BOOK_SNAPSHOT,
                BOOK_UPDATE, TRADE, RESPONSE, EVENT, WORKLOAD_LAUNCH, HISTORY, BODY_NOT_SET:
                fail(ctx, SessionErrorCode.PROTOCOL_VIOLATION, "not a request: " + env.getBodyCase());
                return;
            default:
                break;
        }
        exchange.counters.requests.increment();
        if (session.revoked())
        {
            reply(ctx, rid, Reason.NOT_AUTHORIZED, KEY_REVOKED);
            return;
        }
        if (!limiter.tryAcquire(exchange.ctx.nanoClock().nanoTime()))
        {
            reply(ctx, rid, Reason.RATE_LIMITED, "more than " + exchange.ctx.ratePerSecond() + " requests a second");
            return;
        }
        if (session.marketDataOnly() && !MarketDataLogin.allows(env.getBodyCase()))
        {
            reply(ctx, rid, Reason.NOT_AUTHORIZED, MarketDataLogin.REFUSAL);
            return;
        }
        switch (env.getBodyCase())
        {
            case HISTORY_REQUEST -> exchange.queries.history(session, rid, env.getHistoryRequest());
            case REGISTER_MACHINE -> registerMachine(ctx, rid, env.getRegisterMachine());
            case QUOTE_REQUEST -> query(ctx, rid, exchange.queries.quote(session, rid, env.getQuoteRequest()));
            case PORTFOLIO_REQUEST -> query(ctx, rid, exchange.queries.portfolio(session, rid));
            case LAUNCH_WORKLOAD -> exchange.workloads.launch(session, rid, env.getLaunchWorkload());
            case WORKLOAD_STATUS -> exchange.workloads.status(session, rid, env.getWorkloadStatus());
            case WORKLOAD_LOG_REQUEST -> exchange.workloads.logRequest(session, rid, env.getWorkloadLogRequest());
            case WORKLOAD_LOG -> exchange.workloads.log(session, rid, env.getWorkloadLog());
            case WORKLOAD_STATUS_REQUEST -> exchange.workloads.statusRequest(session, rid, env.getWorkloadStatusRequest());
            case MARKETS_REQUEST -> query(ctx, rid, exchange.queries.markets(session, rid));
            case OFFERS_REQUEST -> offers(ctx, rid, env.getOffersRequest());
            case SUBSCRIBE ->
            {
                final Directory.MarketEntry m = exchange.directory.market(env.getSubscribe().getMarket());
                if (m == null)
                {
                    reply(ctx, rid, Reason.UNKNOWN_MARKET, env.getSubscribe().getMarket());
                    return;
                }
                query(ctx, rid, exchange.queries.subscribe(session, rid, m.id()));
            }
            case UNSUBSCRIBE ->
            {
                final Directory.MarketEntry m = exchange.directory.market(env.getUnsubscribe().getMarket());
                if (m != null)
                {
                    exchange.egress.put(new Egress.Unsubscribed(session, m.id()));
                }
                reply(ctx, rid, m == null ? Reason.UNKNOWN_MARKET : Reason.REASON_OK, "");
            }
            default -> admin(ctx, rid, env);
        }
    }

    private void admin(final ChannelHandlerContext ctx, final long rid, final Envelope env)
    {
        if (!session.isAdmin())
        {
            reply(ctx, rid, Reason.NOT_AUTHORIZED, env.getBodyCase() + " needs the ADMIN role");
            return;
        }
        final Directory directory = exchange.directory;
        switch (env.getBodyCase())
        {
            case CREATE_MARKET -> createMarket(ctx, rid, env.getCreateMarket());
            case CONFIGURE ->
            {
                stage(CommandType.CONFIG);
                if (env.getConfigure().hasHeartbeatIntervalMs())
                {
                    staged.heartbeatIntervalMs = env.getConfigure().getHeartbeatIntervalMs();
                }
                if (env.getConfigure().hasHeartbeatTimeoutMs())
                {
                    staged.heartbeatTimeoutMs = env.getConfigure().getHeartbeatTimeoutMs();
                }
                if (env.getConfigure().hasRestartWindowMs())
                {
                    staged.restartWindowMs = env.getConfigure().getRestartWindowMs();
                }
                publish(ctx, rid, Session.KIND_COMMAND, 0);
            }
            case CREATE_ACCOUNT -> createAccount(ctx, rid, env.getCreateAccount());
            case DEPOSIT ->
            {
                final Directory.AccountEntry a = directory.account(env.getDeposit().getAccount());
                if (a == null)
                {
                    reply(ctx, rid, Reason.UNKNOWN_ACCOUNT, env.getDeposit().getAccount());
                    return;
                }
                stage(CommandType.DEPOSIT);
                staged.accountId = a.id();
                staged.amount = env.getDeposit().getAmount();
                publish(ctx, rid, Session.KIND_COMMAND, 0);
            }
            case CREATE_KEY ->
            {
                final Directory.AccountEntry a = directory.account(env.getCreateKey().getAccount());
                if (a == null)
                {
                    reply(ctx, rid, Reason.UNKNOWN_ACCOUNT, env.getCreateKey().getAccount());
                    return;
                }
                final long keyId = directory.newKeyId();
                exchange.pendingKeys.put(keyId, a.id());
                stage(CommandType.KEY);
                staged.accountId = a.id();
                staged.keyId = keyId;
                if (!publish(ctx, rid, Session.KIND_NEW_KEY, keyId))
                {
                    exchange.pendingKeys.remove(keyId);
                }
            }
            case REVOKE_KEY ->
            {
                final long keyId = env.getRevokeKey().getKeyId();
                final long account = directory.keyAccount(keyId);
                if (account == 0)
                {
                    reply(ctx, rid, Reason.UNKNOWN_KEY, "no live key " + keyId);
                    return;
                }
                stage(CommandType.KEY);
                staged.accountId = account;
                staged.keyId = keyId;
                staged.revoke = true;
                // The key stops being live, and its sessions stop publishing, before the revoke is
                // published: no command of the key can follow the revoke into the ring. The egress
                // closes the sessions once the revoke is answered (after their earlier answers).
                exchange.sessions.revokeKey(keyId, () -> directory.keyRevoked(keyId));
                if (!publish(ctx, rid, Session.KIND_REVOKE_KEY, keyId))
                {
                    exchange.sessions.restoreKey(keyId, () -> directory.keyAdded(keyId, account));
                }
            }
            case HALT_MARKET, RESUME_MARKET ->
            {
                final boolean halt = env.getBodyCase() == Envelope.BodyCase.HALT_MARKET;
                final String symbol = halt ? env.getHaltMarket().getMarket() : env.getResumeMarket().getMarket();
                final Directory.MarketEntry m = directory.market(symbol);
                if (m == null)
                {
                    reply(ctx, rid, Reason.UNKNOWN_MARKET, symbol);
                    return;
                }
                stage(halt ? CommandType.HALT : CommandType.RESUME);
                staged.marketId = m.id();
                publish(ctx, rid, Session.KIND_COMMAND, 0);
            }
            default -> fail(ctx, SessionErrorCode.PROTOCOL_VIOLATION, "unknown request " + env.getBodyCase());
        }
    }

    private void bid(final ChannelHandlerContext ctx, final long rid, final HotRequest b)
    {
        final Directory.MarketEntry m = market(b);
        if (m == null)
        {
            reply(ctx, rid, Reason.UNKNOWN_MARKET, b.marketString());
            return;
        }
        if (b.minReliabilityPpm > 1_000_000 || b.maxDurationMs < 0 || b.gpus < 0)
        {
            reply(ctx, rid, Reason.INVALID_REQUEST, "min_reliability_ppm above 1000000, or a negative field");
            return;
        }
        if (!HotRequest.isTimeInForce(b.tif))
        {
            reply(ctx, rid, Reason.INVALID_REQUEST, HotRequest.timeInForceProblem(b.tif));
            return;
        }
        stage(CommandType.BID);
        staged.marketId = m.id();
        b.toBid(staged);
        publish(ctx, rid, Session.KIND_COMMAND, 0);
    }

    private void ask(final ChannelHandlerContext ctx, final long rid, final HotRequest a)
    {
        if (a.gpus < 0)
        {
            reply(ctx, rid, Reason.INVALID_REQUEST, "gpus out of range");
            return;
        }
        if (!HotRequest.isTimeInForce(a.tif))
        {
            reply(ctx, rid, Reason.INVALID_REQUEST, HotRequest.timeInForceProblem(a.tif));
            return;
        }
        stage(CommandType.ASK);
        a.toAsk(staged);
        publish(ctx, rid, Session.KIND_COMMAND, 0);
    }

    private void replace(final ChannelHandlerContext ctx, final long rid, final HotRequest r)
    {
        if (!r.hasPrice && !r.hasGpus)
        {
            reply(ctx, rid, Reason.INVALID_REQUEST, "a replace needs a price or gpus");
            return;
        }
        if (r.hasGpus && r.gpus < 0)
        {
            reply(ctx, rid, Reason.INVALID_REQUEST, "gpus out of range");
            return;
        }
        stage(CommandType.REPLACE);
        r.toReplace(staged);
        publish(ctx, rid, Session.KIND_COMMAND, 0);
    }

    private void registerMachine(final ChannelHandlerContext ctx, final long rid, final RegisterMachine r)
    {
        if (!Roles.canAsk(session.roles))
        {
            reply(ctx, rid, Reason.NOT_AUTHORIZED, "registering machines needs the OWNER or MARKET_MAKER role");
            return;
        }
        if (!NAME.matcher(r.getName()).matches())
        {
            reply(ctx, rid, Reason.INVALID_REQUEST, "a machine name is 1 to 64 of A-Z a-z 0-9 . _ -");
            return;
        }
        if (Integer.toUnsignedLong(r.getGpus()) > Integer.MAX_VALUE)
        {
            reply(ctx, rid, Reason.INVALID_REQUEST,
                "gpus " + Integer.toUnsignedString(r.getGpus()) + " out of range (at most " + Integer.MAX_VALUE + ")");
            return;
        }
        final Directory.MarketEntry m = exchange.directory.market(r.getMarket());
        if (m == null)
        {
            reply(ctx, rid, Reason.UNKNOWN_MARKET, r.getMarket());
            return;
        }
        final boolean[] created = new boolean[1];
        final Directory.MachineEntry machine = exchange.directory.machineFor(session.accountId, r.getName(), m.id(), created);
        exchange.directory.rememberName(r.getRegion(), created[0]);
        exchange.directory.rememberName(r.getInterconnect(), created[0]);
        if (!created[0])
        {
            ctx.write(Envelope.newBuilder().setRequestId(rid).setResponse(
                Response.newBuilder().setReason(Reason.REASON_OK).setAssignedId(machine.id())
                    .setMessage("already registered")).build(), ctx.voidPromise());
            return;
        }
        stage(CommandType.MACHINE);
        staged.machineId = machine.id();
        staged.accountId = session.accountId;
        staged.marketId = m.id();
        staged.name = Directory.engineMachineName(session.accountName, r.getName());
        staged.gpus = r.getGpus();
        staged.regionId = Directory.nameId(r.getRegion());
        staged.vramGb = r.getVramGb() == 0 ? Command.ABSENT : r.getVramGb();
        staged.interconnectId = Directory.nameId(r.getInterconnect());
        if (!publish(ctx, rid, Session.KIND_NEW_MACHINE, machine.id()))
        {
            exchange.directory.forgetMachine(machine.id());
        }
    }

    private void machineHeartbeat(final ChannelHandlerContext ctx, final long rid, final HotRequest h)
    {
        final Directory.MachineEntry machine = exchange.directory.machine(h.machineId);
        if (machine == null)
        {
            reply(ctx, rid, Reason.UNKNOWN_MACHINE, "machine " + h.machineId);
            return;
        }
        if (machine.ownerId() != session.accountId)
        {
            reply(ctx, rid, Reason.NOT_OWNER, "machine " + h.machineId + " is not this account's");
            return;
        }
        if (h.telemetry != null)
        {
            exchange.telemetry.put(machine.id(), new MachineTelemetry(exchange.clock.time(), h.telemetry));
        }
        stage(CommandType.HEARTBEAT);
        staged.machineId = machine.id();
        publish(ctx, rid, Session.KIND_COMMAND, 0);
    }

    private void createMarket(final ChannelHandlerContext ctx, final long rid, final CreateMarket c)
    {
        if (!Market.validSymbol(c.getSymbol()))
        {
            reply(ctx, rid, Reason.INVALID_PARAMETER, "a symbol is 2 to 32 of A-Z 0-9 - . _");
            return;
        }
        final Directory.MarketEntry m = exchange.directory.newMarket(c.getSymbol());
        if (m == null)
        {
            reply(ctx, rid, Reason.DUPLICATE_ID, "market " + c.getSymbol() + " exists");
            return;
        }
        stage(CommandType.MARKET);
        staged.marketId = m.id();
        staged.name = c.getSymbol();
        if (c.hasTick())
        {
            staged.tick = c.getTick();
        }
        if (c.hasPreemption())
        {
            staged.preemption = c.getPreemption() ? 1 : 0;
        }
        if (c.hasGraceMs())
        {
            staged.graceMs = c.getGraceMs();
        }
        if (c.hasMinIncrement())
        {
            staged.minIncrement = c.getMinIncrement();
        }
        if (c.hasPreemptIncrementBps())
        {
            staged.preemptIncrementBps = c.getPreemptIncrementBps();
        }
        staged.fragmentFirst = c.getFragmentFirst();
        if (c.hasFeeBps())
        {
            staged.feeBps = c.getFeeBps();
        }
        if (c.hasPrepayMs())
        {
            staged.prepayMs = c.getPrepayMs();
        }
        if (c.hasMaxGpusPerOrder())
        {
            staged.maxGpusPerOrder = c.getMaxGpusPerOrder();
        }
        if (!publish(ctx, rid, Session.KIND_NEW_MARKET, m.id()))
        {
            exchange.directory.forgetMarket(m.id());
        }
    }

    private void createAccount(final ChannelHandlerContext ctx, final long rid, final CreateAccount c)
    {
        if (!NAME.matcher(c.getName()).matches())
        {
            reply(ctx, rid, Reason.INVALID_PARAMETER, "an account name is 1 to 64 of A-Z a-z 0-9 . _ -");
            return;
        }
        int roles = 0;
        for (final Role role : c.getRolesList())
        {
            roles |= switch (role)
            {
                case RENTER -> Roles.RENTER;
                case OWNER -> Roles.OWNER;
                case MARKET_MAKER -> Roles.MARKET_MAKER;
                case ADMIN -> Roles.ADMIN;
                default -> 0;
            };
        }
        if (roles == 0)
        {
            reply(ctx, rid, Reason.INVALID_PARAMETER, "an account needs at least one role");
            return;
        }
        final Directory.AccountEntry a = exchange.directory.newAccount(c.getName(), roles);
        if (a == null)
        {
            reply(ctx, rid, Reason.DUPLICATE_ID, "account " + c.getName() + " exists");
            return;
        }
        stage(CommandType.ACCOUNT);
        staged.accountId = a.id();
        staged.name = a.name();
        staged.roles = roles;
        if (!publish(ctx, rid, Session.KIND_NEW_ACCOUNT, a.id()))
        {
            exchange.directory.forgetAccount(a.id());
        }
    }

    /** Starts a command of this session's account. */
    private void stage(final CommandType type)
    {
        staged.reset(type, 0);
        staged.accountId = session.accountId;
    }

    /** Publishes the staged command; answers BUSY (or UNAVAILABLE) itself when it cannot. */
    private boolean publish(final ChannelHandlerContext ctx, final long rid, final byte kind, final long assignedId)
    {
        stagedCorrelation = session.track(rid, kind, assignedId);
        if (stagedCorrelation == 0 && exchange.makeRoom())
        {
            stagedCorrelation = session.track(rid, kind, assignedId);
        }
        if (stagedCorrelation == 0)
        {
            reply(ctx, rid, Reason.BUSY, "too many requests in flight");
            return false;
        }
        if ((++commandsTracked & (TIMED_COMMAND_EVERY - 1)) == 0)
        {
            session.timeLastTracked(System.nanoTime());
        }
        if (!exchange.pipeline.tryPublish(PUBLISH, this) && !(exchange.makeRoom() && exchange.pipeline.tryPublish(PUBLISH, this)))
        {
            session.untrack();
            final String refusal = exchange.pipeline.refusal();
            reply(ctx, rid, refusal != null ? Reason.UNAVAILABLE : Reason.BUSY,
                refusal != null ? refusal : "the exchange is busy: retry");
            return false;
        }
        return true;
    }

    /** An offer search: checked here, answered from the offer board on this event loop, never through the core's ring. */
    private void offers(final ChannelHandlerContext ctx, final long rid, final OffersRequest r)
    {
        final Directory.MarketEntry m = r.getMarket().isEmpty() ? null : exchange.directory.market(r.getMarket());
        if (m == null && !r.getMarket().isEmpty())
        {
            reply(ctx, rid, Reason.UNKNOWN_MARKET, r.getMarket());
            return;
        }
        final String[] problem = new String[1];
        final OfferSearch search = OfferSearch.of(r, m == null ? 0 : m.id(), problem);
        if (search == null)
        {
            reply(ctx, rid, Reason.INVALID_REQUEST, problem[0]);
            return;
        }
        if (exchange.pipeline.failed())
        {
            reply(ctx, rid, Reason.UNAVAILABLE, exchange.pipeline.refusal());
            return;
        }
        final long sessionId = session.id;
        exchange.offers.search(search, rid, ctx.executor(), answer -> exchange.egress.put(new Egress.Direct(sessionId, answer)));
    }

    private void query(final ChannelHandlerContext ctx, final long rid, final io.gpux.engine.pipeline.Query query)
    {
        if (!exchange.pipeline.tryPublishQuery(query) && !(exchange.makeRoom() && exchange.pipeline.tryPublishQuery(query)))
        {
            final boolean failed = exchange.pipeline.failed();
            reply(ctx, rid, failed ? Reason.UNAVAILABLE : Reason.BUSY,
                failed ? exchange.pipeline.refusal() : "the exchange is busy: retry");
        }
    }

    /** An answer from the gateway itself (a refusal is counted by its reason). */
    private void reply(final ChannelHandlerContext ctx, final long rid, final Reason reason, final String message)
    {
        exchange.counters.answered(reason);
        ctx.write(Envelope.newBuilder().setRequestId(rid).setResponse(
            Response.newBuilder().setReason(reason).setMessage(message)).build(), ctx.voidPromise());
    }
}
