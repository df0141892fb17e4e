package io.gpux.bench;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The quartiles {@link PairedBooks} reports (nearest ranks) and what it says of several JVMs' ratios together; the run
 * itself is exercised by the suite's smoke test and, in several JVMs, by exchange-core's module's tests.
 */
class PairedBooksTest
{
    @Test
    void quartilesAreTheNearestRanksOfTheSortedValues()
    {
        assertArrayEquals(new double[] {2, 3, 4}, PairedBooks.quartiles(new double[] {5, 1, 4, 2, 3}));
        assertArrayEquals(new double[] {7, 7, 7}, PairedBooks.quartiles(new double[] {7}));
        // 8 values: ranks 0.25 * 7 = 1.75 -> 2, 3.5 -> 4 (half up), 5.25 -> 5
        assertArrayEquals(new double[] {30, 50, 60}, PairedBooks.quartiles(new double[] {80, 10, 70, 20, 60, 30, 50, 40}));
    }

    @Test
    void severalJvmsRatiosGiveTheirMedianRangeAndHowManyAreAboveOne()
    {
        final PairedBooks.Spread s = PairedBooks.Spread.of(new double[] {1.2, 0.935, 1.0, 1.07, 1.43});
        assertEquals(1.07, s.median());
        assertEquals(0.935, s.min());
        assertEquals(1.43, s.max());
        assertEquals(3, s.above(), "1.0 is level, not ahead");
        assertEquals("1.200, 0.935, 1.000, 1.070, 1.430", s.list(), "in the order the JVMs ran");

        final PairedBooks.Spread one = PairedBooks.Spread.of(new double[] {0.99});
        assertEquals(0.99, one.median());
        assertEquals(0.99, one.min());
        assertEquals(0.99, one.max());
        assertEquals(0, one.above());
    }
}
