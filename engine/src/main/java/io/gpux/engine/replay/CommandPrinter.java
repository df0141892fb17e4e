package io.gpux.engine.replay;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.command.Roles;
import io.gpux.engine.command.TimeInForce;
import io.gpux.common.Money;

/**
 * Commands as scenario lines that {@code gpux replay} accepts (the inverse of {@link ScenarioParser}):
 * names come from the symbols; an id never named prints as its number (orders) or a prefixed number.
 */
public final class CommandPrinter
{
    private final Symbols symbols;

    public CommandPrinter(final Symbols symbols)
    {
        this.symbols = symbols;
    }

    /** Learns the names a registration command carries. */
    public void learn(final Command c)
    {
        if (c.name == null)
        {
            return;
        }
        switch (c.type)
        {
            case MARKET -> symbols.markets.define(c.marketId, c.name);
            case ACCOUNT -> symbols.accounts.define(c.accountId, c.name);
            case MACHINE -> symbols.machines.define(c.machineId, c.name);
            default ->
            {
            }
        }
    }

    public String format(final Command c)
    {
        final StringBuilder sb = new StringBuilder(96).append(c.timeMs).append(' ').append(c.type.name());
        switch (c.type)
        {
            case MARKET -> market(sb, c);
            case CONFIG -> config(sb, c);
            case ACCOUNT -> account(sb, c);
            case DEPOSIT -> deposit(sb, c);
            case MACHINE -> machine(sb, c);
            case HEARTBEAT -> kv(sb, "machine", symbols.machines.name(c.machineId));
            case ASK, BID -> order(sb, c);
            case CANCEL -> cancel(sb, c);
            case REPLACE -> replace(sb, c);
            case MASS_CANCEL -> massCancel(sb, c);
            case RELEASE -> release(sb, c);
            case HALT, RESUME -> kv(sb, "market", symbols.markets.name(c.marketId));
            case BOOK -> book(sb, c);
            case TICK, RESTART ->
            {
            }
            case COD_SESSION -> codSession(sb, c);
            case KEY -> key(sb, c);
            default -> throw new IllegalStateException("command " + c.type);
        }
        return sb.toString();
    }

    private void market(final StringBuilder sb, final Command c)
    {
        kv(sb, "id", symbols.markets.name(c.marketId));
        price(sb, "tick", c.tick);
        if (c.preemption != Command.ABSENT_INT)
        {
            kv(sb, "preemption", c.preemption == 0 ? "off" : "on");
        }
        num(sb, "graceMs", c.graceMs);
        price(sb, "minIncrement", c.minIncrement);
        num(sb, "preemptIncrementBps", c.preemptIncrementBps);
        flag(sb, "fragmentFirst", c.fragmentFirst);
        num(sb, "feeBps", c.feeBps);
        num(sb, "prepayMs", c.prepayMs);
        num(sb, "maxGpusPerOrder", c.maxGpusPerOrder);
    }

    private void config(final StringBuilder sb, final Command c)
    {
        num(sb, "heartbeatIntervalMs", c.heartbeatIntervalMs);
        num(sb, "heartbeatTimeoutMs", c.heartbeatTimeoutMs);
        num(sb, "restartWindowMs", c.restartWindowMs);
    }

    private void account(final StringBuilder sb, final Command c)
    {
        kv(sb, "id", symbols.accounts.name(c.accountId));
        kv(sb, "roles", Roles.format(c.roles));
    }

    private void deposit(final StringBuilder sb, final Command c)
    {
        kv(sb, "account", symbols.accounts.name(c.accountId));
        if (c.amount != Command.ABSENT)
        {
            sb.append(" amount=");
            Money.appendFixed(sb, c.amount, 6);
        }
    }

    private void machine(final StringBuilder sb, final Command c)
    {
        kv(sb, "id", symbols.machines.name(c.machineId));
        kv(sb, "owner", symbols.accounts.name(c.accountId));
        kv(sb, "market", symbols.markets.name(c.marketId));
        gpus(sb, c);
        if (c.regionId != Command.NONE)
        {
            kv(sb, "region", symbols.regions.name(c.regionId));
        }
        num(sb, "vramGb", c.vramGb);
        if (c.interconnectId != Command.NONE)
        {
            kv(sb, "interconnect", symbols.interconnects.name(c.interconnectId));
        }
    }

    private void order(final StringBuilder sb, final Command c)
    {
        kv(sb, "id", symbols.orders.name(c.orderId));
        kv(sb, "account", symbols.accounts.name(c.accountId));
        if (c.type == CommandType.ASK)
        {
            kv(sb, "machine", symbols.machines.name(c.machineId));
        }
        else
        {
            kv(sb, "market", symbols.markets.name(c.marketId));
        }
        gpus(sb, c);
        price(sb, "price", c.price);
        if (c.tif != TimeInForce.GTC)
        {
            kv(sb, "tif", c.tif.name());
        }
        flag(sb, "postOnly", c.postOnly);
        flag(sb, "gang", c.gang);
        flag(sb, "noPreempt", c.noPreempt);
        if (c.minReliabilityPpb != Command.ABSENT)
        {
            sb.append(" minReliability=");
            Money.appendFixed(sb, c.minReliabilityPpb, 9);
        }
        if (c.regionId != Command.NONE)
        {
            kv(sb, "region", symbols.regions.name(c.regionId));
        }
        num(sb, "maxDurationMs", c.maxDurationMs);
    }

    private void cancel(final StringBuilder sb, final Command c)
    {
        kv(sb, "id", symbols.orders.name(c.orderId));
        kv(sb, "account", symbols.accounts.name(c.accountId));
        flag(sb, "reclaim", c.reclaim);
    }

    private void replace(final StringBuilder sb, final Command c)
    {
        kv(sb, "id", symbols.orders.name(c.orderId));
        kv(sb, "account", symbols.accounts.name(c.accountId));
        price(sb, "price", c.price);
        gpus(sb, c);
    }

    private void massCancel(final StringBuilder sb, final Command c)
    {
        kv(sb, "account", symbols.accounts.name(c.accountId));
        if (c.hasMarket)
        {
            kv(sb, "market", symbols.markets.name(c.marketId));
        }
    }

    private void release(final StringBuilder sb, final Command c)
    {
        kv(sb, "lease", symbols.leaseName(c.leaseId));
        kv(sb, "account", symbols.accounts.name(c.accountId));
    }

    private void book(final StringBuilder sb, final Command c)
    {
        kv(sb, "market", symbols.markets.name(c.marketId));
        num(sb, "depth", c.depth);
    }

    private void codSession(final StringBuilder sb, final Command c)
    {
        kv(sb, "account", symbols.accounts.name(c.accountId));
        flag(sb, "closed", c.sessionClosed);
    }

    private void key(final StringBuilder sb, final Command c)
    {
        kv(sb, "account", symbols.accounts.name(c.accountId));
        sb.append(" key=").append(c.keyId);
        flag(sb, "revoke", c.revoke);
    }

    private static void kv(final StringBuilder sb, final String key, final String value)
    {
        sb.append(' ').append(key).append('=').append(value);
    }

    private static void num(final StringBuilder sb, final String key, final long value)
    {
        if (value != Command.ABSENT)
        {
            sb.append(' ').append(key).append('=').append(value);
        }
    }

    private static void price(final StringBuilder sb, final String key, final long value)
    {
        if (value != Command.ABSENT)
        {
            sb.append(' ').append(key).append('=');
            Money.appendFixed(sb, value, 4);
        }
    }

    private static void gpus(final StringBuilder sb, final Command c)
    {
        if (c.gpus != Command.ABSENT_INT)
        {
            sb.append(" gpus=").append(c.gpus);
        }
    }

    private static void flag(final StringBuilder sb, final String key, final boolean value)
    {
        if (value)
        {
            sb.append(' ').append(key).append("=true");
        }
    }
}
