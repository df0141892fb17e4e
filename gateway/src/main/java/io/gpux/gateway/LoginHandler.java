package io.gpux.gateway;

import io.gpux.gateway.auth.Authenticator;
import io.gpux.gateway.codec.HotRequest;
import io.gpux.gateway.directory.Directory;
import io.gpux.gateway.egress.Egress;
import io.gpux.gateway.egress.Frames;
import io.gpux.gateway.session.Session;
import io.gpux.gateway.session.SessionRegistry;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Login;
import io.gpux.proto.v1.SessionErrorCode;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.timeout.IdleStateEvent;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A connection before its Login: the first message must be a Login, within the login timeout. A Login
 * that is accepted opens the session and this handler replaces itself in the pipeline with the
 * session's {@link SessionHandler}; anything else is answered with a SessionError and the connection
 * closed. Heartbeats before the Login are ignored, and so is the reader-idle timeout (the login
 * deadline alone decides).
 */
final class LoginHandler extends ConnectionHandler
{
    /** The pipeline name of this handler (Exchange's Initializer). */
    static final String NAME = "login";

    private ScheduledFuture<?> loginDeadline;

    LoginHandler(final Exchange exchange)
    {
        super(exchange);
    }

    @Override
    public void channelActive(final ChannelHandlerContext ctx)
    {
        loginDeadline = ctx.executor().schedule(
            () -> fail(ctx, SessionErrorCode.NOT_LOGGED_IN, "no Login within " + exchange.ctx.loginTimeoutMs() + " ms"),
            exchange.ctx.loginTimeoutMs(), TimeUnit.MILLISECONDS);
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx)
    {
        cancelDeadline();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(final ChannelHandlerContext ctx)
    {
        cancelDeadline();
    }

    private void cancelDeadline()
    {
        if (loginDeadline != null)
        {
            loginDeadline.cancel(false);
        }
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        if (closing || cutOffUnread(ctx))
        {
            return;
        }
        final Envelope.BodyCase kind = msg instanceof HotRequest hot ? hot.kind : ((Envelope)msg).getBodyCase();
        if (kind == Envelope.BodyCase.LOGIN)
        {
            login(ctx, ((Envelope)msg).getLogin());
        }
        else if (kind != Envelope.BodyCase.HEARTBEAT)
        {
            fail(ctx, SessionErrorCode.NOT_LOGGED_IN, "the first message must be Login, not " + kind);
        }
    }

    @Override
    public void userEventTriggered(final ChannelHandlerContext ctx, final Object evt)
    {
        if (evt == Frames.LAST_FRAME_SENT)
        {
            cancelDeadline();
        }
        else if (!(evt instanceof IdleStateEvent))
        {
            ctx.fireUserEventTriggered(evt);
        }
    }

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
        cancelDeadline();
        open(ctx, candidate, login);
    }

    /** The session is registered: from here on the connection is the session's. */
    private void open(final ChannelHandlerContext ctx, final Session session, final Login login)
    {
        if (session.cancelOnDisconnect)
        {
            // journaled before the session can place anything, so a crash cannot leave its orders open
            exchange.cancelOnDisconnectOpened(session.accountId);
        }
        ctx.pipeline().replace(this, SessionHandler.NAME, new SessionHandler(exchange, session));
        final Egress.Attach attach = new Egress.Attach(session, login.hasLastSeq() && !session.marketDataOnly() ? login.getLastSeq() : -1,
            exchange.ctx.heartbeatIntervalMs(), exchange.ctx.maxFrameBytes(), 0, 0, 0);
        publishAttach(exchange, ctx.channel(), attach);
        if (!session.marketDataOnly())
        {
            exchange.workloads.onLogin(session);
        }
    }

    /**
     * Attaches the session behind every command already published (a previous session's last orders may
     * still be in the ring): LoginAccepted.last_seq and the resend then include their events, so a client
     * that re-sends what the lost connection left unanswered never places an order twice. The account's
     * event numbers are the engine's, read on the core thread at that point; with the ring full, tried
     * again shortly.
     */
    private static void publishAttach(final Exchange exchange, final Channel channel, final Egress.Attach attach)
    {
        final long accountId = attach.session().accountId;
        final boolean published = exchange.pipeline.tryPublishQuery(engine ->
        {
            final io.gpux.engine.funds.Account account = engine.account(accountId);
            exchange.egress.put(attach.at(engine.eventSequence(), account == null ? 0 : account.lastSeq,
                account == null ? 0 : account.lastEventSequence));
        });
        if (!published && channel.isActive())
        {
            channel.eventLoop().schedule(() -> publishAttach(exchange, channel, attach), 1, TimeUnit.MILLISECONDS);
        }
    }
}
