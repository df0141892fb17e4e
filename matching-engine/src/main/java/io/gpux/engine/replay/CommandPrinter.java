package io.gpux.engine.replay;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.Roles;
import io.gpux.engine.command.TimeInForce;
import io.gpux.engine.funds.Money;

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
            case MARKET ->
            {
                kv(sb, "id", symbols.markets.name(c.marketId));
                price(sb, "tick", c.tick);
                if (c.preemption != Command.ABSENT_INT)
                {
                    kv(sb, "preemption", c.preemption == 0 ? "off" : "on");
                }
                num(sb, "graceMs", c.graceMs);
                price(sb, "minIncrement", c.minIncrement);
                num(sb, "feeBps", c.feeBps);
                num(sb, "prepayMs", c.prepayMs);
                num(sb, "maxGpusPerOrder", c.maxGpusPerOrder);
            }
            case CONFIG ->
            {
                num(sb, "heartbeatIntervalMs", c.heartbeatIntervalMs);
                num(sb, "heartbeatTimeoutMs", c.heartbeatTimeoutMs);
                num(sb, "restartWindowMs", c.restartWindowMs);
            }
            case ACCOUNT ->
            {
                kv(sb, "id", symbols.accounts.name(c.accountId));
                kv(sb, "roles", Roles.format(c.roles));
            }
            case DEPOSIT ->
            {
                kv(sb, "account", symbols.accounts.name(c.accountId));
                if (c.amount != Command.ABSENT)
                {
                    sb.append(" amount=");
                    Money.appendFixed(sb, c.amount, 6);
                }
            }
            case MACHINE ->
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
            case HEARTBEAT -> kv(sb, "machine", symbols.machines.name(c.machineId));
            case ASK, BID ->
            {
                kv(sb, "id", symbols.orders.name(c.orderId));
                kv(sb, "account", symbols.accounts.name(c.accountId));
                if (c.type == io.gpux.engine.command.CommandType.ASK)
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
            case CANCEL ->
            {
                kv(sb, "id", symbols.orders.name(c.orderId));
                kv(sb, "account", symbols.accounts.name(c.accountId));
                flag(sb, "reclaim", c.reclaim);
            }
            case REPLACE ->
            {
                kv(sb, "id", symbols.orders.name(c.orderId));
                kv(sb, "account", symbols.accounts.name(c.accountId));
                price(sb, "price", c.price);
                gpus(sb, c);
            }
            case MASS_CANCEL ->
            {
                kv(sb, "account", symbols.accounts.name(c.accountId));
                if (c.hasMarket)
                {
                    kv(sb, "market", symbols.markets.name(c.marketId));
                }
            }
            case RELEASE ->
            {
                kv(sb, "lease", symbols.leaseName(c.leaseId));
                kv(sb, "account", symbols.accounts.name(c.accountId));
            }
            case HALT, RESUME -> kv(sb, "market", symbols.markets.name(c.marketId));
            case BOOK ->
            {
                kv(sb, "market", symbols.markets.name(c.marketId));
                num(sb, "depth", c.depth);
            }
            case TICK, RESTART ->
            {
            }
            case COD_SESSION ->
            {
                kv(sb, "account", symbols.accounts.name(c.accountId));
                flag(sb, "closed", c.sessionClosed);
            }
            case KEY ->
            {
                kv(sb, "account", symbols.accounts.name(c.accountId));
                sb.append(" key=").append(c.keyId);
                flag(sb, "revoke", c.revoke);
            }
            default -> throw new IllegalStateException("command " + c.type);
        }
        return sb.toString();
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
