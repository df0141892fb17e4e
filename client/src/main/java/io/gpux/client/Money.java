package io.gpux.client;

/**
 * Money as the wire carries it: {@code long} micro-units of 0.000001 currency (rulebook section 1).
 * {@code parse("12.345678") == 12345678}, {@code format(12345678).equals("12.345678")}; exact, no
 * floating point. Amounts may be negative (deltas, corrections); balances never are.
 */
public final class Money
{
    /** Decimal places of an amount. */
    public static final int DECIMALS = 6;
    /** Micro-units in one currency unit. */
    public static final long MICROS_PER_UNIT = 1_000_000L;

    private Money()
    {
    }

    /**
     * Parses {@code [-]digits[.digits]} with at most 6 decimal places ("1000", "12.5", "-0.000001")
     * into micro-units.
     *
     * @throws IllegalArgumentException if the text is not such an amount or overflows a long.
     */
    public static long parse(final CharSequence text)
    {
        return FixedPoint.parse(text, DECIMALS, true, "amount");
    }

    /** Micro-units as text with exactly 6 decimals: {@code 12345678 -> "12.345678"}. */
    public static String format(final long micros)
    {
        return FixedPoint.format(micros, DECIMALS);
    }

    /** Appends {@link #format(long)} without an intermediate String. */
    public static StringBuilder appendTo(final StringBuilder sb, final long micros)
    {
        return FixedPoint.append(sb, micros, DECIMALS);
    }
}
