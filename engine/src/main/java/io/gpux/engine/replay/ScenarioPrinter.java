package io.gpux.engine.replay;

import io.gpux.engine.command.CommandType;
import io.gpux.engine.event.Event;
import io.gpux.engine.event.EventSink;
import io.gpux.common.Money;

import java.io.IOException;
import java.io.UncheckedIOException;

/** Prints engine events as scenario output lines (docs/market-rules.md, section 15). */
public final class ScenarioPrinter implements EventSink
{
    private final Symbols symbols;
    private final Appendable out;
    private final StringBuilder sb = new StringBuilder(256);

    public ScenarioPrinter(final Symbols symbols, final Appendable out)
    {
        this.symbols = symbols;
        this.out = out;
    }

    @Override
    public void onEvent(final Event e)
    {
        sb.setLength(0);
        format(e, sb);
        sb.append('\n');
        try
        {
            out.append(sb);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /** Appends one event line, without the newline. */
    public void format(final Event e, final StringBuilder sb)
    {
        sb.append(e.timeMs).append(' ').append(e.type.name());
        switch (e.type)
        {
            case ACCEPTED -> order(sb, e).account(sb, "account", e.accountId);
            case REJECTED -> rejected(sb, e);
            case CANCELLED ->
            {
                order(sb, e).account(sb, "account", e.accountId);
                sb.append(" reason=").append(e.cancelReason.name()).append(" remaining=").append(e.remaining);
            }
            case FILL ->
            {
                order(sb, e).account(sb, "account", e.accountId);
                sb.append(" counter=").append(symbols.orders.name(e.counterOrderId));
                lease(sb, "lease", e.leaseId);
                sb.append(" gpus=").append(e.gpus);
                price(sb, "price", e.price);
                if (e.preemptsLeaseId != 0)
                {
                    lease(sb, "preempts", e.preemptsLeaseId);
                }
            }
            case TRADE ->
            {
                sb.append(" market=").append(symbols.markets.name(e.marketId)).append(" gpus=").append(e.gpus);
                price(sb, "price", e.price);
            }
            case LEASE_STARTED ->
            {
                lease(sb, "lease", e.leaseId);
                account(sb, "renter", e.renterId).account(sb, "owner", e.ownerId);
                sb.append(" machine=").append(symbols.machines.name(e.machineId));
                sb.append(" market=").append(symbols.markets.name(e.marketId)).append(" gpus=").append(e.gpus);
                price(sb, "price", e.price);
            }
            case PREEMPT_NOTICE ->
            {
                lease(sb, "lease", e.leaseId);
                sb.append(" reason=").append(e.noticeReason.name()).append(" effective=").append(e.effectiveMs);
            }
            case LEASE_ENDED ->
            {
                lease(sb, "lease", e.leaseId);
                sb.append(" reason=").append(e.endReason.name());
                money(sb, "cost", e.cost);
                money(sb, "fee", e.fee);
            }
            case SETTLED ->
            {
                lease(sb, "lease", e.leaseId);
                money(sb, "charge", e.charge);
                money(sb, "fee", e.fee);
                sb.append(" period=").append(e.period).append(" ms=").append(e.ms);
            }
            case BALANCE ->
            {
                account(sb, "account", e.accountId);
                money(sb, "balance", e.balance);
                money(sb, "available", e.available);
            }
            case MACHINE_ONLINE, MACHINE_OFFLINE -> sb.append(" machine=").append(symbols.machines.name(e.machineId));
            case BOOK ->
            {
                sb.append(" market=").append(symbols.markets.name(e.marketId));
                levels(sb, " bids=", e.bidLevels, e.bidPrices, e.bidGpus);
                levels(sb, " asks=", e.askLevels, e.askPrices, e.askGpus);
            }
            default -> throw new IllegalStateException("event " + e.type);
        }
    }

    private void rejected(final StringBuilder sb, final Event e)
    {
        final CommandType c = e.command;
        switch (c)
        {
            case ASK, BID, CANCEL, REPLACE -> order(sb, e).account(sb, "account", e.accountId);
            case MARKET, HALT, RESUME, BOOK -> market(sb, e.marketId);
            case ACCOUNT, DEPOSIT, KEY, COD_SESSION -> account(sb, "account", e.accountId);
            case MACHINE ->
            {
                sb.append(" machine=").append(symbols.machines.name(e.machineId));
                account(sb, "account", e.accountId);
                market(sb, e.marketId);
            }
            case HEARTBEAT -> sb.append(" machine=").append(symbols.machines.name(e.machineId));
            case MASS_CANCEL ->
            {
                account(sb, "account", e.accountId);
                if (e.namesMarket)
                {
                    market(sb, e.marketId);
                }
            }
            case RELEASE ->
            {
                lease(sb, "lease", e.leaseId);
                account(sb, "account", e.accountId);
            }
            case CONFIG, TICK, RESTART ->
            {
            }
            default -> throw new IllegalStateException("command " + c);
        }
        sb.append(" reason=").append(e.rejectReason.name());
        if (!c.isOrderEntry())
        {
            sb.append(" command=").append(c.name());
        }
    }

    private ScenarioPrinter order(final StringBuilder sb, final Event e)
    {
        sb.append(" order=").append(symbols.orders.name(e.orderId));
        return this;
    }

    private ScenarioPrinter account(final StringBuilder sb, final String key, final long id)
    {
        sb.append(' ').append(key).append('=').append(symbols.accounts.name(id));
        return this;
    }

    private void market(final StringBuilder sb, final long id)
    {
        sb.append(" market=").append(symbols.markets.name(id));
    }

    private void lease(final StringBuilder sb, final String key, final long id)
    {
        sb.append(' ').append(key).append('=').append(symbols.leaseName(id));
    }

    private static void price(final StringBuilder sb, final String key, final long ticks)
    {
        sb.append(' ').append(key).append('=');
        Money.appendFixed(sb, ticks, 4);
    }

    private static void money(final StringBuilder sb, final String key, final long micros)
    {
        sb.append(' ').append(key).append('=');
        Money.appendFixed(sb, micros, 6);
    }

    private static void levels(final StringBuilder sb, final String key, final int n, final long[] prices, final long[] gpus)
    {
        sb.append(key);
        if (n == 0)
        {
            sb.append('-');
            return;
        }
        for (int i = 0; i < n; i++)
        {
            if (i > 0)
            {
                sb.append(',');
            }
            Money.appendFixed(sb, prices[i], 4);
            sb.append(':').append(gpus[i]);
        }
    }
}
