package io.gpux.gateway;

import io.gpux.gateway.codec.HotRequest;
import io.gpux.gateway.codec.RequestDecoder;
import io.gpux.gateway.egress.Egress;
import io.gpux.gateway.egress.Frames;
import io.gpux.gateway.session.RateLimiter;
import io.gpux.gateway.session.Session;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Heartbeat;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.SessionErrorCode;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;

/**
 * A logged-in connection: it takes the place of the {@link LoginHandler} once the Login is accepted.
 * Everything here runs on the connection's event loop and never blocks: each request is counted,
 * refused if the session's key was revoked, over its rate or not allowed to a market-data session,
 * and otherwise handed to its family: {@link OrderEntry}, {@link QueryRequests}, the workload relay,
 * {@link AdminRequests}. Commands reach the input ring through the session's {@link SessionPublisher};
 * their answers come back through the egress. The session heartbeats when it has sent nothing for an
 * interval and is closed when it received nothing for two.
 *
 * <p>Requests come from the {@link RequestDecoder} in front: the frequent ones (orders, cancels,
 * replaces, heartbeats, ...) as its reused {@link HotRequest}, read without allocating, the rest as
 * Envelopes.
 */
final class SessionHandler extends ConnectionHandler
{
    /** The pipeline name of this handler, once it replaced the {@link LoginHandler}. */
    static final String NAME = "session";
    private static final String KEY_REVOKED = "the session's key was revoked";

    private final Session session;
    private final RateLimiter limiter;
    private final SessionPublisher publisher;
    private final OrderEntry orders;
    private final QueryRequests queries;
    private final AdminRequests admin;
    /** A hot request that came as an Envelope (the RequestDecoder left it to the generated parser). */
    private final HotRequest parsed = new HotRequest();
    private boolean sessionEnded;

    SessionHandler(final Exchange exchange, final Session session)
    {
        super(exchange);
        this.session = session;
        this.limiter = new RateLimiter(exchange.ctx.ratePerSecond(), exchange.ctx.rateBurst(), exchange.ctx.nanoClock().nanoTime());
        this.publisher = new SessionPublisher(exchange, session);
        this.orders = new OrderEntry(exchange, session, publisher);
        this.queries = new QueryRequests(exchange, session, publisher);
        this.admin = new AdminRequests(exchange, session, publisher);
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
        if (sessionEnded)
        {
            return;
        }
        sessionEnded = true;
        exchange.sessions.unregister(session);
        exchange.egress.put(new Egress.Detach(session));
        if (session.cancelOnDisconnect)
        {
            // a login the egress refused was never a session: its journaled opening is closed, nothing cancelled
            exchange.cancelOnDisconnectClosed(session.accountId, !session.refused);
        }
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        if (closing || cutOffUnread(ctx))
        {
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
        request(ctx, env);
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
                fail(ctx, SessionErrorCode.HEARTBEAT_TIMEOUT, "nothing received for two heartbeat intervals");
            }
            else if (idle.state() == IdleState.WRITER_IDLE && !closing && ctx.channel().isWritable())
            {
                // none to a connection being closed (its SessionError is its last frame) or not reading (it would only queue)
                ctx.writeAndFlush(Envelope.newBuilder().setHeartbeat(
                    Heartbeat.newBuilder().setTimeMs(exchange.clock.time())).build(), ctx.voidPromise());
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    /** The frequent requests (see {@link HotRequest#handles}). */
    private void hot(final ChannelHandlerContext ctx, final HotRequest r)
    {
        if (r.kind == Envelope.BodyCase.HEARTBEAT)
        {
            return;
        }
        final long rid = r.requestId;
        if (!admitted(ctx, rid))
        {
            return;
        }
        if (session.marketDataOnly())
        {
            publisher.reply(ctx, rid, Reason.NOT_AUTHORIZED, MarketDataLogin.REFUSAL);
            return;
        }
        orders.onHot(ctx, rid, r);
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
        if (!admitted(ctx, rid))
        {
            return;
        }
        if (session.marketDataOnly() && !MarketDataLogin.allows(env.getBodyCase()))
        {
            publisher.reply(ctx, rid, Reason.NOT_AUTHORIZED, MarketDataLogin.REFUSAL);
            return;
        }
        if (queries.onRequest(ctx, rid, env))
        {
            return;
        }
        switch (env.getBodyCase())
        {
            case REGISTER_MACHINE -> orders.registerMachine(ctx, rid, env.getRegisterMachine());
            case LAUNCH_WORKLOAD -> exchange.workloads.launch(session, rid, env.getLaunchWorkload());
            case WORKLOAD_STATUS -> exchange.workloads.status(session, rid, env.getWorkloadStatus());
            case WORKLOAD_LOG_REQUEST -> exchange.workloads.logRequest(session, rid, env.getWorkloadLogRequest());
            case WORKLOAD_LOG -> exchange.workloads.log(session, rid, env.getWorkloadLog());
            case WORKLOAD_STATUS_REQUEST -> exchange.workloads.statusRequest(session, rid, env.getWorkloadStatusRequest());
            default ->
            {
                if (!admin.onRequest(ctx, rid, env))
                {
                    fail(ctx, SessionErrorCode.PROTOCOL_VIOLATION, "unknown request " + env.getBodyCase());
                }
            }
        }
    }

    /** Counts a request and says whether it may go on: not if the session's key was revoked or it is over its rate. */
    private boolean admitted(final ChannelHandlerContext ctx, final long rid)
    {
        exchange.counters.requests.increment();
        if (session.revoked())
        {
            publisher.reply(ctx, rid, Reason.NOT_AUTHORIZED, KEY_REVOKED);
            return false;
        }
        if (!limiter.tryAcquire(exchange.ctx.nanoClock().nanoTime()))
        {
            publisher.reply(ctx, rid, Reason.RATE_LIMITED, "more than " + exchange.ctx.ratePerSecond() + " requests a second");
            return false;
        }
        return true;
    }
}
