package io.gpux.common;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Charges between two points of a lease's life: exact, and safe however long the lease has run. */
class MoneyCostBetweenTest
{
    @Test
    void equalsTheDifferenceOfCostsWhereBothFit()
    {
        final SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 200_000; i++)
        {
            final int gpus = 1 + random.nextInt(1 << random.nextInt(1, 21));
            final long price = 1 + random.nextLong(1L << random.nextInt(1, 30));
            final long from = random.nextLong(1L << random.nextInt(1, 36));
            final long to = from + random.nextLong(1L << random.nextInt(1, 33));
            final long a = Money.cost(gpus, price, from);
            final long b = Money.cost(gpus, price, to);
            if (a != Long.MAX_VALUE && b != Long.MAX_VALUE)
            {
                assertEquals(b - a, Money.costBetween(gpus, price, from, to), gpus + " " + price + " " + from + " " + to);
            }
        }
    }

    @Test
    void aVeryLongLeaseAtAHighRateStillBillsItsPeriodsExactly()
    {
        // a lease whose whole-life cost is far beyond a long: each hour still costs exactly the rate
        final int gpus = 1_000_000;
        final long price = Money.MAX_PRICE_TICKS / 1000;
        final long hour = Money.MS_PER_HOUR;
        final long from = 400_000L * hour;
        assertTrue(Money.cost(gpus, price, from) == Long.MAX_VALUE, "the whole life does not fit a long");
        assertEquals(gpus * price * Money.MICROS_PER_TICK, Money.costBetween(gpus, price, from, from + hour));
        assertEquals(Long.MAX_VALUE, Money.costBetween(Integer.MAX_VALUE, Money.MAX_PRICE_TICKS, 0, hour),
            "a charge that cannot fit saturates (the hold check refuses it first)");
    }
}
