package io.gpux.client.cli;

import io.gpux.client.GpuxClient;
import io.gpux.common.Money;
import io.gpux.proto.v1.MarketInfo;
import io.gpux.proto.v1.OpenOrder;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.Reason;
import java.io.IOException;
import java.math.BigInteger;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * The numbers behind an order's refusal and what to do about it, in one line: the exchange answers
 * only a reason, so the CLI reads the market's parameters and the account's funds and works out the
 * rest the way the engine does (rulebook section 9).
 */
final class RejectHints
{
    private static final long MS_PER_HOUR = 3_600_000L;
    private static final long MICROS_PER_TICK = Money.MONEY_SCALE / Money.PRICE_SCALE;

    private final GpuxClient client;
    private final Duration timeout;

    RejectHints(final GpuxClient client, final Duration timeout)
    {
        this.client = client;
        this.timeout = timeout;
    }

    /**
     * The line for a refused bid, or null when the reason says it all.
     *
     * @param market the symbol the bid was sent with.
     */
    String bid(final Reason reason, final String market, final int gpus, final long price, final long maxDurationMs)
        throws IOException, InterruptedException, TimeoutException
    {
        return switch (reason)
        {
            case UNKNOWN_MARKET -> MarketDirectory.fetch(client, timeout).unknownMarket(market);
            case INSUFFICIENT_FUNDS -> funds(market, gpus, price, maxDurationMs);
            case INVALID_QUANTITY -> quantity(market, gpus);
            case NOT_AUTHORIZED -> "needs the RENTER role: use the key of a renter account "
                + "(an admin creates one with: gpux admin account create NAME --roles renter)";
            case MARKET_HALTED -> "the market " + market + " is halted: no orders until an admin resumes it";
            default -> null;
        };
    }

    /**
     * The line for a refused replace.
     *
     * @param order the order as it was before the replace (null if the account has no such open order).
     * @param gpus the new size, or 0 to keep the order's.
     * @param price the new price, or -1 to keep the order's.
     */
    String replace(final Reason reason, final long orderId, final OpenOrder order, final int gpus, final long price)
        throws IOException, InterruptedException, TimeoutException
    {
        if (reason == Reason.UNKNOWN_ORDER || order == null)
        {
            return "no open order " + orderId + " in this account: see the open orders with: gpux leases";
        }
        final int newGpus = gpus > 0 ? gpus : order.getOpenGpus();
        final long newPrice = price >= 0 ? price : order.getPrice();
        return switch (reason)
        {
            case INSUFFICIENT_FUNDS -> funds(order.getMarket(), newGpus, newPrice, 0, true,
                order.getOpenGpus(), order.getPrice());
            case INVALID_QUANTITY -> quantity(order.getMarket(), newGpus);
            case MARKET_HALTED -> "the market " + order.getMarket() + " is halted: no changes until an admin resumes it";
            default -> null;
        };
    }

    /** The line for a refused release. */
    static String release(final Reason reason, final long leaseId)
    {
        return reason == Reason.UNKNOWN_LEASE
            ? "no running lease " + leaseId + " rented by this account: see the leases with: gpux leases"
            : null;
    }

    private String funds(final String symbol, final int gpus, final long price, final long maxDurationMs)
        throws IOException, InterruptedException, TimeoutException
    {
        return funds(symbol, gpus, price, maxDurationMs, false, 0, 0);
    }

    /** The hold against the funds available; for a replace, the extra over the order's current hold. */
    private String funds(final String symbol, final int gpus, final long price, final long maxDurationMs,
        final boolean replacing, final int oldGpus, final long oldPrice)
        throws IOException, InterruptedException, TimeoutException
    {
        final MarketInfo market = MarketDirectory.fetch(client, timeout).find(symbol);
        final Portfolio portfolio = client.portfolio(timeout);
        if (market == null)
        {
            return null;
        }
        final long ms = holdMs(market, maxDurationMs);
        final String period = " x " + hours(ms) + " h of prepay and grace";
        final long newHold = hold(gpus, price, ms);
        if (!replacing)
        {
            return "needs " + Money.formatMoney(newHold) + ", available " + Money.formatMoney(portfolio.getAvailable())
                + " (the client's estimate of the hold: " + gpus + " GPUs x " + Money.formatPrice(price) + period
                + "); deposit more, or bid fewer GPUs, a lower price or a shorter --max-duration";
        }
        final long oldHold = hold(oldGpus, oldPrice, ms);
        return "needs " + Money.formatMoney(newHold - oldHold) + " more, available " + Money.formatMoney(portfolio.getAvailable())
            + " (the client's estimate: " + gpus + " GPUs x " + Money.formatPrice(price) + period + " = "
            + Money.formatMoney(newHold) + ", less the " + Money.formatMoney(oldHold) + " the order holds); deposit more, "
            + "or ask for fewer GPUs or a lower price";
    }

    private String quantity(final String symbol, final int gpus) throws IOException, InterruptedException, TimeoutException
    {
        final MarketInfo market = MarketDirectory.fetch(client, timeout).find(symbol);
        if (market == null || market.getMaxGpusPerOrder() <= 0 || gpus <= market.getMaxGpusPerOrder())
        {
            return null;
        }
        return "at most " + market.getMaxGpusPerOrder() + " GPUs per order in " + market.getSymbol() + ", asked " + gpus
            + ": split it into several orders";
    }

    /** The period a bid holds funds for: prepay + grace, or the maximum duration if shorter. */
    static long holdMs(final MarketInfo market, final long maxDurationMs)
    {
        final long ms = market.getPrepayMs() + market.getGraceMs();
        return maxDurationMs > 0 && maxDurationMs < ms ? maxDurationMs : ms;
    }

    /** GPUs x price x ms, in money micro-units, rounded down as the engine rounds it. */
    static long hold(final int gpus, final long priceTicks, final long ms)
    {
        final BigInteger micros = BigInteger.valueOf(gpus).multiply(BigInteger.valueOf(priceTicks))
            .multiply(BigInteger.valueOf(MICROS_PER_TICK)).multiply(BigInteger.valueOf(ms))
            .divide(BigInteger.valueOf(MS_PER_HOUR));
        return micros.bitLength() < 64 ? micros.longValueExact() : Long.MAX_VALUE;
    }

    private static String hours(final long ms)
    {
        return ms % MS_PER_HOUR == 0 ? Long.toString(ms / MS_PER_HOUR)
            : Money.formatMoney(hold(1, Money.PRICE_SCALE, ms)).replaceAll("\\.?0+$", "");
    }
}
