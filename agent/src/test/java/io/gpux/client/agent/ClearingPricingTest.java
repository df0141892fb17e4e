package io.gpux.client.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ClearingPricingTest
{
    private final ClearingPricing pricing = new ClearingPricing(20_000, 40_000);

    @Test
    void anIdleAskMeetsTheBestBidAtOrAboveTheFloor()
    {
        assertEquals(26_000, pricing.next(30_000, 2, 26_000, 100));
    }

    @Test
    void anIdleAskStepsDownWhenNoBidIsWorthMeeting()
    {
        assertEquals(24_000, pricing.next(30_000, 2, 0, 100), "20 % down without a bid");
        assertEquals(24_000, pricing.next(30_000, 2, 15_000, 100), "a bid below the floor is not met");
        assertEquals(24_000, pricing.next(30_000, 2, 31_000, 100), "a bid above the ask it could not take");
    }

    @Test
    void neverBelowTheFloorNorAboveTheCeiling()
    {
        assertEquals(20_000, pricing.next(21_000, 4, 0, 100));
        assertEquals(20_000, pricing.next(24_000, 4, 0, 100), "20 % down stops at the floor");
        assertEquals(20_000, pricing.next(20_000, 4, 0, 100));
        assertEquals(40_000, pricing.next(39_800, 0, 0, 100));
    }

    @Test
    void aFullyLeasedAskStepsUp()
    {
        assertEquals(30_300, pricing.next(30_000, 0, 0, 100), "1 % up while fully leased");
    }

    @Test
    void pricesStayOnTheTick()
    {
        final ClearingPricing odd = new ClearingPricing(20_050, 40_050);
        assertEquals(20_100, odd.next(20_100, 1, 0, 100), "the floor rounds up to the tick");
        assertEquals(40_000, odd.next(40_000, 0, 0, 100), "the ceiling rounds down to the tick");
        assertEquals(29_900, new ClearingPricing(20_000, 40_000, 10, 0).next(30_000, 1, 0, 100), "a step of at least one tick");
    }

    @Test
    void rejectsAFloorAboveTheCeiling()
    {
        assertThrows(IllegalArgumentException.class, () -> new ClearingPricing(30_000, 20_000));
        assertThrows(IllegalArgumentException.class, () -> new ClearingPricing(0, 20_000));
    }
}
