package io.gpux.engine;

import java.util.HashMap;
import java.util.Map;

/**
 * The money the events account for (rulebook sections 1, 9 and 12.3), shared by the rule families that
 * move it ({@code BALANCE} in {@link AccountInvariants}, {@code SETTLED} in {@link LeaseInvariants}) and
 * the one that compares it with the engine's balances ({@link AccountInvariants}).
 */
final class EventLedger
{
    /** Per account: deposits, less charges as renter, plus (charge - fee) as owner. */
    private final Map<Long, Long> balances = new HashMap<>();
    private long fees;

    /** Adds a confirmed deposit; returns the account's balance after it. */
    long deposit(final long accountId, final long amount)
    {
        return balances.merge(accountId, amount, Long::sum);
    }

    /** Moves one settlement's charge from the renter to the owner, less the fee the exchange takes. */
    void settle(final long renterId, final long ownerId, final long charge, final long fee)
    {
        balances.merge(renterId, -charge, Long::sum);
        balances.merge(ownerId, charge - fee, Long::sum);
        fees += fee;
    }

    /** The account's balance as the events give it. */
    long balance(final long accountId)
    {
        return balances.getOrDefault(accountId, 0L);
    }

    /** The fees of every SETTLED event so far. */
    long fees()
    {
        return fees;
    }
}
