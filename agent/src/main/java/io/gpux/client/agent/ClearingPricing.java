package io.gpux.client.agent;

/**
 * An owner's asking price that clears idle capacity from the book, never below the owner's floor (its
 * cost): reviewed every interval, an ask with idle GPUs meets the best bid when that bid is at or above
 * the floor, and otherwise steps down by {@code stepDownBps}; an ask with every GPU leased steps up by
 * {@code stepUpBps}, at most to the ceiling. An ask therefore never sits above what waiting renters bid
 * for longer than one interval, and a machine in demand finds its price again.
 *
 * <p>The same rule prices the owner agent ({@code gpux agent --clear}) and the simulator's owners.
 *
 * @param floor       the least the owner takes per GPU-hour, in ticks (its cost).
 * @param ceiling     the most it asks, in ticks.
 * @param stepDownBps how far an idle ask comes down each interval, in basis points of its price.
 * @param stepUpBps   how far a fully leased ask goes up each interval, in basis points of its price.
 */
public record ClearingPricing(long floor, long ceiling, int stepDownBps, int stepUpBps)
{
    /**
     * Default steps: 20 % down each interval while idle, 1 % up while fully leased. Down fast, because an idle
     * GPU earns nothing and a bid the best one on the book could not take (a gang too big for the machine, a
     * region) may be waiting below it; up slowly, because a leased GPU's ask matters only once a GPU comes
     * free, and an ask that climbed while the machine was full then keeps it idle while it comes down.
     */
    public static final int DEFAULT_STEP_DOWN_BPS = 2_000;
    public static final int DEFAULT_STEP_UP_BPS = 100;
    private static final long BPS = 10_000;

    /**
     * @throws IllegalArgumentException if the floor is not positive, the ceiling is below it, or a step is
     *                                  not 0 to 10000.
     */
    public ClearingPricing
    {
        if (floor < 1)
        {
            throw new IllegalArgumentException("the floor price must be positive");
        }
        if (ceiling < floor)
        {
            throw new IllegalArgumentException("the ceiling must not be below the floor");
        }
        if (stepDownBps < 0 || stepDownBps > BPS || stepUpBps < 0 || stepUpBps > BPS)
        {
            throw new IllegalArgumentException("the steps must be 0 to 10000 basis points");
        }
    }

    /** Between the floor and the ceiling, with the default steps. */
    public ClearingPricing(final long floor, final long ceiling)
    {
        this(floor, ceiling, DEFAULT_STEP_DOWN_BPS, DEFAULT_STEP_UP_BPS);
    }

    /**
     * The price to ask for the next interval.
     *
     * @param current  the ask's price now.
     * @param idleGpus its GPUs on offer and not leased.
     * @param bestBid  the best bid on the book, 0 when there is none or the book is not known.
     * @param tick     the market's price increment.
     * @return a price from the floor to the ceiling (both rounded to the tick: the floor up, the ceiling down).
     */
    public long next(final long current, final int idleGpus, final long bestBid, final long tick)
    {
        final long low = OwnerAgentPricing.roundUp(floor, tick);
        final long high = Math.max(low, ceiling - ceiling % Math.max(1, tick));
        final long price;
        if (idleGpus > 0)
        {
            if (bestBid >= low && bestBid < current)
            {
                price = bestBid;
            }
            else
            {
                price = current - Math.max(tick, current * stepDownBps / BPS / tick * tick);
            }
        }
        else
        {
            price = current + current * stepUpBps / BPS / tick * tick;
        }
        return Math.max(low, Math.min(high, price));
    }
}
