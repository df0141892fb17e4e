package io.gpux.client;

/**
 * Prices as the wire carries them: {@code long} ticks of 0.0001 currency per GPU-hour (rulebook
 * section 1). {@code parse("2.5000") == 25000}, {@code format(25000).equals("2.5000")}; exact, no
 * floating point.
 */
public final class Prices
{
    /** Decimal places of a price. */
    public static final int DECIMALS = 4;
    /** Ticks in one currency unit per GPU-hour. */
    public static final long TICKS_PER_UNIT = 10_000L;

    private Prices()
    {
    }

    /**
     * Parses {@code digits[.digits]} with at most 4 decimal places ("2", "2.5", "2.5000") into ticks.
     * Signs, exponents, blanks, a bare "." and more than 4 decimals are refused; whether the price
     * is positive and a multiple of the market's tick is the exchange's check, not this one.
     *
     * @throws IllegalArgumentException if the text is not such a price or overflows a long.
     */
    public static long parse(final CharSequence text)
    {
        return FixedPoint.parse(text, DECIMALS, false, "price");
    }

    /** Ticks as text with exactly 4 decimals: {@code 25000 -> "2.5000"}. */
    public static String format(final long ticks)
    {
        return FixedPoint.format(ticks, DECIMALS);
    }

    /** Appends {@link #format(long)} without an intermediate String. */
    public static StringBuilder appendTo(final StringBuilder sb, final long ticks)
    {
        return FixedPoint.append(sb, ticks, DECIMALS);
    }
}
