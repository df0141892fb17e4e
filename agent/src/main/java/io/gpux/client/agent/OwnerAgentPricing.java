package io.gpux.client.agent;

/**
 * The owner agent's asking price: a fixed price, or, when undercutting, one tick below the best ask of
 * another account on the book; never below the reserve.
 *
 * <p>The book shows levels aggregated over every ask and never says whose they are: the agent's own
 * ask and the account's other asks in the market (those of the owner's other machines, as the account's
 * portfolio and events tell) are taken out of their levels before looking for the best competing ask,
 * so an owner's machines never undercut one another.
 *
 * @param reserve  the least the owner takes per GPU-hour, in ticks.
 * @param price    the price when not undercutting, or while no other ask is on the book.
 * @param undercut whether to follow the best other ask down, one tick below it.
 */
public record OwnerAgentPricing(long reserve, long price, boolean undercut)
{
    /**
     * @throws IllegalArgumentException if the reserve is not positive or the price is below it.
     */
    public OwnerAgentPricing
    {
        if (reserve < 1)
        {
            throw new IllegalArgumentException("the reserve price must be positive");
        }
        if (price < reserve)
        {
            throw new IllegalArgumentException("the asking price must not be below the reserve");
        }
    }

    /**
     * The price to ask now.
     *
     * @param askPrices    the book's ask levels, best (lowest) first.
     * @param askGpus      the GPUs of each level.
     * @param levels       how many levels the arrays hold.
     * @param ownPrice     the agent's ask's price, 0 if it has none on the book.
     * @param ownOpenGpus  the agent's ask's open (unleased) GPUs.
     * @param accountPrices the prices of the account's other asks in the market.
     * @param accountGpus   the open GPUs of each of them.
     * @param accountAsks   how many of them the arrays hold.
     * @param tick         the market's price increment.
     * @return the asking price: a multiple of the tick when the book's prices and the reserve are.
     */
    public long target(final long[] askPrices, final long[] askGpus, final int levels, final long ownPrice,
        final long ownOpenGpus, final long[] accountPrices, final long[] accountGpus, final int accountAsks, final long tick)
    {
        if (!undercut)
        {
            return price;
        }
        final long floor = roundUp(reserve, tick);
        for (int i = 0; i < levels; i++)
        {
            long others = askGpus[i] - (askPrices[i] == ownPrice ? ownOpenGpus : 0);
            for (int j = 0; j < accountAsks && others > 0; j++)
            {
                if (accountPrices[j] == askPrices[i])
                {
                    others -= accountGpus[j];
                }
            }
            if (others > 0)
            {
                return Math.max(floor, askPrices[i] - tick);
            }
        }
        return price;
    }

    /** The smallest multiple of the tick at or above the price. */
    static long roundUp(final long price, final long tick)
    {
        if (tick <= 1)
        {
            return price;
        }
        final long remainder = price % tick;
        return remainder == 0 ? price : price - remainder + tick;
    }
}
