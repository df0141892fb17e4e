package io.gpux.engine;

import io.gpux.engine.book.Order;
import io.gpux.engine.funds.Account;
import io.gpux.common.Money;
import io.gpux.engine.lease.Lease;
import io.gpux.engine.market.Market;

/**
 * Holds, settlement and fees (rulebook sections 1, 9 and 13.25-27). A renter's held funds always
 * cover every future charge, so its balance never goes below zero.
 */
final class Funds
{
    private final MatchingEngine engine;

    Funds(final MatchingEngine engine)
    {
        this.engine = engine;
    }

    /** The period a bid or a new lease holds funds for: prepay + grace, or the maximum duration if shorter. */
    static long holdMs(final Market market, final long maxDurationMs)
    {
        final long ms = market.prepayMs + market.graceMs;
        return maxDurationMs > 0 && maxDurationMs < ms ? maxDurationMs : ms;
    }

    static long bidHold(final Market market, final int gpus, final long price, final long maxDurationMs)
    {
        return Money.cost(gpus, price, holdMs(market, maxDurationMs));
    }

    /** Re-sizes a bid's hold to its unfilled GPUs. */
    void resizeBidHold(final Order bid)
    {
        final long hold = bidHold(bid.market, bid.openGpus, bid.price, bid.maxDurationMs);
        bid.account.held += hold - bid.hold;
        bid.hold = hold;
    }

    void freeBidHold(final Order bid)
    {
        bid.account.held -= bid.hold;
        bid.hold = 0;
    }

    /** A new lease holds its first period plus grace at its own price. */
    void takeLeaseHold(final Lease lease)
    {
        lease.hold = Money.cost(lease.gpus, lease.price, holdMs(lease.market, lease.maxDurationMs));
        lease.renter.held += lease.hold;
    }

    void freeLeaseHold(final Lease lease)
    {
        lease.renter.held -= lease.hold;
        lease.hold = 0;
    }

    /**
     * Bills the lease up to elapsedMs of its life: renter debited, owner credited, fee to the exchange;
     * prints SETTLED when at least 1 ms is billed.
     */
    void settle(final Lease lease, final long elapsedMs)
    {
        final long ms = elapsedMs - lease.settledMs;
        if (ms < 1)
        {
            return;
        }
        final long charge = Money.costBetween(lease.gpus, lease.price, lease.settledMs, elapsedMs);
        final int period = (int)(lease.settledMs / lease.market.prepayMs) + 1;
        final long fee = Money.fee(charge, lease.market.feeBps);
        final Account renter = lease.renter;
        final long fromHold = Math.min(charge, lease.hold);
        lease.hold -= fromHold;
        renter.held -= fromHold;
        renter.balance -= charge;
        lease.owner.balance += charge - fee;
        engine.exchangeFees += fee;
        lease.totalCost += charge;
        lease.totalFee += fee;
        lease.settledMs = elapsedMs;
        engine.out.settled(lease, charge, fee, period, ms);
    }

    /**
     * At the end of a period (settled up to periodEndMs of the lease's life): raises the hold to cover the
     * next period and the grace after it, capped at the lease's maximum duration.
     *
     * @return false if the renter's available funds cannot cover the increase.
     */
    boolean raiseLeaseHold(final Lease lease)
    {
        final Market market = lease.market;
        final long settled = lease.settledMs;
        long horizon = settled + market.prepayMs + market.graceMs;
        if (lease.maxDurationMs > 0 && lease.maxDurationMs < horizon)
        {
            horizon = lease.maxDurationMs;
        }
        final long target = Money.costBetween(lease.gpus, lease.price, settled, horizon);
        final long increase = target - lease.hold;
        if (increase <= 0)
        {
            return true;
        }
        if (increase > lease.renter.available())
        {
            return false;
        }
        lease.hold += increase;
        lease.renter.held += increase;
        return true;
    }
}
