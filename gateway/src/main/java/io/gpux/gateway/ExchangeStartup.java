package io.gpux.gateway;

import io.gpux.core.pipeline.ExchangePipeline;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.command.Roles;
import io.gpux.gateway.auth.Authenticator;
import io.gpux.gateway.directory.Directory;
import io.gpux.gateway.egress.Egress;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The waits of an {@link Exchange}'s start, on the starting thread, once its core and egress run: for
 * the egress to find the end of the event journal, for the restart command to be applied (the outage
 * ended and the orders of the cancel-on-disconnect sessions the stop left open cancelled, before any
 * client can connect), and, for a fresh exchange, for its bootstrap: the configured markets and settings
 * and an admin account with a key, all through the journaled path like any other command.
 */
final class ExchangeStartup
{
    private final ExchangePipeline pipeline;
    private final Egress egress;
    private final Directory directory;
    private final Authenticator authenticator;
    private final Consumer<String> log;

    ExchangeStartup(
        final ExchangePipeline pipeline, final Egress egress, final Directory directory, final Authenticator authenticator,
        final Consumer<String> log)
    {
        this.pipeline = pipeline;
        this.egress = egress;
        this.directory = directory;
        this.authenticator = authenticator;
        this.log = log;
    }

    /** Waits until the egress has found the end of the event journal and tails it. */
    void awaitEgress() throws InterruptedException
    {
        while (!egress.caughtUp())
        {
            Thread.sleep(1);
        }
    }

    /**
     * After a restart, waits until the engine has ended the outage and cancelled the orders of the
     * cancel-on-disconnect sessions the stop left open (docs/market-rules.md section 14).
     */
    void awaitRestartApplied() throws IOException, InterruptedException
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

    /** Bootstraps a fresh exchange: {@code config}'s markets and settings, and an admin account; returns its key. */
    Exchange.Key bootstrap(final List<Command> config) throws IOException, InterruptedException
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
        publishAndAwait(commands);
        directory.keyAdded(keyId, admin.id());
        log.accept("fresh exchange: " + directory.markets().size() + " markets, admin key " + keyId + " created");
        return new Exchange.Key(admin.name(), keyId, authenticator.secretHex(keyId));
    }

    private void publishAndAwait(final List<Command> commands) throws IOException, InterruptedException
    {
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
    }
}
