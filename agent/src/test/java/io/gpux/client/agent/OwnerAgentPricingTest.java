package io.gpux.client.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Undercutting one tick below the best competing ask, leaving the account's own asks out. */
class OwnerAgentPricingTest
{
    private static final long TICK = 1;
    private static final long[] NONE = new long[0];

    private final OwnerAgentPricing pricing = new OwnerAgentPricing(20_000, 30_000, true);

    @Test
    void goesOneTickBelowTheBestAskOfAnotherAccountNeverBelowTheReserve()
    {
        assertEquals(24_999, pricing.target(new long[] {25_000}, new long[] {1}, 1, 0, 0, NONE, NONE, 0, TICK));
        assertEquals(20_000, pricing.target(new long[] {15_000}, new long[] {1}, 1, 0, 0, NONE, NONE, 0, TICK));
        assertEquals(30_000, pricing.target(NONE, NONE, 0, 0, 0, NONE, NONE, 0, TICK), "alone: its price");
        assertEquals(30_000, new OwnerAgentPricing(20_000, 30_000, false)
            .target(new long[] {25_000}, new long[] {1}, 1, 0, 0, NONE, NONE, 0, TICK), "not undercutting: its price");
    }

    @Test
    void leavesOutItsOwnAskAndTheAccountsOtherAsks()
    {
        // the book: 2 GPUs at 2.4 (the agent's), 3 at 2.45 (the owner's other machine), 1 at 2.5 (a rival)
        final long[] prices = {24_000, 24_500, 25_000};
        final long[] gpus = {2, 3, 1};
        assertEquals(24_999, pricing.target(prices, gpus, 3, 24_000, 2, new long[] {24_500}, new long[] {3}, 1, TICK),
            "the rival's ask is the best competing one");
        assertEquals(24_499, pricing.target(prices, gpus, 3, 24_000, 2, NONE, NONE, 0, TICK),
            "without the account's asks it would undercut the owner's other machine");
        assertEquals(24_499, pricing.target(prices, new long[] {2, 4, 1}, 3, 24_000, 2, new long[] {24_500},
            new long[] {3}, 1, TICK), "a rival's GPU at the other machine's price is still undercut");
        assertEquals(30_000, pricing.target(new long[] {24_000, 24_500}, new long[] {2, 3}, 2, 24_000, 2,
            new long[] {24_500}, new long[] {3}, 1, TICK), "only the owner's asks on the book: its price");
    }
}
