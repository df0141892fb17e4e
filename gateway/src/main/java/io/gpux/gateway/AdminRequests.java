package io.gpux.gateway;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.command.Roles;
import io.gpux.engine.market.Market;
import io.gpux.gateway.directory.Directory;
import io.gpux.gateway.orders.OrderRequests;
import io.gpux.gateway.session.Session;
import io.gpux.proto.v1.Configure;
import io.gpux.proto.v1.CreateAccount;
import io.gpux.proto.v1.CreateMarket;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Role;
import io.netty.channel.ChannelHandlerContext;

/**
 * A session's administration requests (ADMIN role only): markets, the exchange's configuration,
 * accounts, deposits, keys, halts. Names are checked and ids assigned here (the directory remembers
 * them, and forgets them when the core refuses), then the command goes to the {@link SessionPublisher}.
 */
final class AdminRequests
{
    private final Exchange exchange;
    private final Session session;
    private final SessionPublisher publisher;

    AdminRequests(final Exchange exchange, final Session session, final SessionPublisher publisher)
    {
        this.exchange = exchange;
        this.session = session;
        this.publisher = publisher;
    }

    /**
     * Handles an administration request (a non-admin session is answered NOT_AUTHORIZED).
     *
     * @return false if the request is not one this class knows: the caller fails the connection.
     */
    boolean onRequest(final ChannelHandlerContext ctx, final long rid, final Envelope env)
    {
        if (!session.isAdmin())
        {
            publisher.reply(ctx, rid, Reason.NOT_AUTHORIZED, env.getBodyCase() + " needs the ADMIN role");
            return true;
        }
        final Directory directory = exchange.directory;
        switch (env.getBodyCase())
        {
            case CREATE_MARKET -> createMarket(ctx, rid, env.getCreateMarket());
            case CONFIGURE -> configure(ctx, rid, env.getConfigure());
            case CREATE_ACCOUNT -> createAccount(ctx, rid, env.getCreateAccount());
            case DEPOSIT ->
            {
                final Directory.AccountEntry a = directory.account(env.getDeposit().getAccount());
                if (a == null)
                {
                    publisher.reply(ctx, rid, Reason.UNKNOWN_ACCOUNT, env.getDeposit().getAccount());
                    return true;
                }
                final Command staged = publisher.stage(CommandType.DEPOSIT);
                staged.accountId = a.id();
                staged.amount = env.getDeposit().getAmount();
                publisher.publish(ctx, rid, Session.KIND_COMMAND, 0);
            }
            case CREATE_KEY ->
            {
                final Directory.AccountEntry a = directory.account(env.getCreateKey().getAccount());
                if (a == null)
                {
                    publisher.reply(ctx, rid, Reason.UNKNOWN_ACCOUNT, env.getCreateKey().getAccount());
                    return true;
                }
                final long keyId = directory.newKeyId();
                exchange.pendingKeys.put(keyId, a.id());
                final Command staged = publisher.stage(CommandType.KEY);
                staged.accountId = a.id();
                staged.keyId = keyId;
                if (!publisher.publish(ctx, rid, Session.KIND_NEW_KEY, keyId))
                {
                    exchange.pendingKeys.remove(keyId);
                }
            }
            case REVOKE_KEY -> revokeKey(ctx, rid, env.getRevokeKey().getKeyId());
            case HALT_MARKET, RESUME_MARKET ->
            {
                final boolean halt = env.getBodyCase() == Envelope.BodyCase.HALT_MARKET;
                final String symbol = halt ? env.getHaltMarket().getMarket() : env.getResumeMarket().getMarket();
                final Directory.MarketEntry m = directory.market(symbol);
                if (m == null)
                {
                    publisher.reply(ctx, rid, Reason.UNKNOWN_MARKET, symbol);
                    return true;
                }
                publisher.stage(halt ? CommandType.HALT : CommandType.RESUME).marketId = m.id();
                publisher.publish(ctx, rid, Session.KIND_COMMAND, 0);
            }
            default ->
            {
                return false;
            }
        }
        return true;
    }

    private void configure(final ChannelHandlerContext ctx, final long rid, final Configure c)
    {
        final Command staged = publisher.stage(CommandType.CONFIG);
        if (c.hasHeartbeatIntervalMs())
        {
            staged.heartbeatIntervalMs = c.getHeartbeatIntervalMs();
        }
        if (c.hasHeartbeatTimeoutMs())
        {
            staged.heartbeatTimeoutMs = c.getHeartbeatTimeoutMs();
        }
        if (c.hasRestartWindowMs())
        {
            staged.restartWindowMs = c.getRestartWindowMs();
        }
        publisher.publish(ctx, rid, Session.KIND_COMMAND, 0);
    }

    private void revokeKey(final ChannelHandlerContext ctx, final long rid, final long keyId)
    {
        final Directory directory = exchange.directory;
        final long account = directory.keyAccount(keyId);
        if (account == 0)
        {
            publisher.reply(ctx, rid, Reason.UNKNOWN_KEY, "no live key " + keyId);
            return;
        }
        final Command staged = publisher.stage(CommandType.KEY);
        staged.accountId = account;
        staged.keyId = keyId;
        staged.revoke = true;
        // The key stops being live, and its sessions stop publishing, before the revoke is
        // published: no command of the key can follow the revoke into the ring. The egress
        // closes the sessions once the revoke is answered (after their earlier answers).
        exchange.sessions.revokeKey(keyId, () -> directory.keyRevoked(keyId));
        if (!publisher.publish(ctx, rid, Session.KIND_REVOKE_KEY, keyId))
        {
            exchange.sessions.restoreKey(keyId, () -> directory.keyAdded(keyId, account));
        }
    }

    private void createMarket(final ChannelHandlerContext ctx, final long rid, final CreateMarket c)
    {
        if (!Market.validSymbol(c.getSymbol()))
        {
            publisher.reply(ctx, rid, Reason.INVALID_PARAMETER, "a symbol is 2 to 32 of A-Z 0-9 - . _");
            return;
        }
        final Directory.MarketEntry m = exchange.directory.newMarket(c.getSymbol());
        if (m == null)
        {
            publisher.reply(ctx, rid, Reason.DUPLICATE_ID, "market " + c.getSymbol() + " exists");
            return;
        }
        final Command staged = publisher.stage(CommandType.MARKET);
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
        if (!publisher.publish(ctx, rid, Session.KIND_NEW_MARKET, m.id()))
        {
            exchange.directory.forgetMarket(m.id());
        }
    }

    private void createAccount(final ChannelHandlerContext ctx, final long rid, final CreateAccount c)
    {
        if (!OrderRequests.NAME.matcher(c.getName()).matches())
        {
            publisher.reply(ctx, rid, Reason.INVALID_PARAMETER, "an account name is 1 to 64 of A-Z a-z 0-9 . _ -");
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
            publisher.reply(ctx, rid, Reason.INVALID_PARAMETER, "an account needs at least one role");
            return;
        }
        final Directory.AccountEntry a = exchange.directory.newAccount(c.getName(), roles);
        if (a == null)
        {
            publisher.reply(ctx, rid, Reason.DUPLICATE_ID, "account " + c.getName() + " exists");
            return;
        }
        final Command staged = publisher.stage(CommandType.ACCOUNT);
        staged.accountId = a.id();
        staged.name = a.name();
        staged.roles = roles;
        if (!publisher.publish(ctx, rid, Session.KIND_NEW_ACCOUNT, a.id()))
        {
            exchange.directory.forgetAccount(a.id());
        }
    }
}
