package io.gpux.bench;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/** The quartiles {@link PairedBooks} reports (nearest ranks; the run itself is exercised by the suite's smoke test). */
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
}
