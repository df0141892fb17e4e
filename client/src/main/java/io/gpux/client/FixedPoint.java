package io.gpux.client;

/**
 * Exact decimal text to and from scaled {@code long}s, no {@code double} and no {@code BigDecimal}:
 * the shared code of {@link Prices} (4 decimals) and {@link Money} (6 decimals).
 */
final class FixedPoint
{
    private static final long[] POWERS_OF_TEN = {
        1L, 10L, 100L, 1_000L, 10_000L, 100_000L, 1_000_000L, 10_000_000L, 100_000_000L, 1_000_000_000L};

    private FixedPoint()
    {
    }

    /**
     * Parses {@code [-]digits[.digits]} with at most {@code decimals} fraction digits into
     * {@code value * 10^decimals}.
     *
     * @throws IllegalArgumentException if the text is not such a number or does not fit a long.
     */
    static long parse(final CharSequence text, final int decimals, final boolean allowNegative, final String what)
    {
        if (text == null)
        {
            throw new IllegalArgumentException(what + " is missing");
        }
        final int length = text.length();
        int i = 0;
        final boolean negative = length > 0 && text.charAt(0) == '-';
        if (negative)
        {
            if (!allowNegative)
            {
                throw new IllegalArgumentException(what + " must not be negative: '" + text + "'");
            }
            i = 1;
        }
        final long scale = POWERS_OF_TEN[decimals];
        // accumulated as a negative number so that Long.MIN_VALUE parses too
        long whole = 0;
        int wholeDigits = 0;
        try
        {
            for (; i < length && text.charAt(i) != '.'; i++, wholeDigits++)
            {
                whole = Math.subtractExact(Math.multiplyExact(whole, 10), digit(text, i, what));
            }
            long fraction = 0;
            int fractionDigits = 0;
            if (i < length)
            {
                for (i++; i < length; i++, fractionDigits++)
                {
                    fraction = fraction * 10 + digit(text, i, what);
                    if (fractionDigits == decimals)
                    {
                        throw new IllegalArgumentException(
                            what + " has more than " + decimals + " decimal places: '" + text + "'");
                    }
                }
                if (fractionDigits == 0)
                {
                    throw notANumber(text, what);
                }
            }
            if (wholeDigits == 0)
            {
                throw notANumber(text, what);
            }
            final long negativeValue = Math.subtractExact(
                Math.multiplyExact(whole, scale), fraction * POWERS_OF_TEN[decimals - fractionDigits]);
            return negative ? negativeValue : Math.negateExact(negativeValue);
        }
        catch (final ArithmeticException ex)
        {
            throw new IllegalArgumentException(what + " is out of range: '" + text + "'", ex);
        }
    }

    /** Appends {@code value / 10^decimals} with exactly {@code decimals} fraction digits. */
    static StringBuilder append(final StringBuilder sb, final long value, final int decimals)
    {
        final long scale = POWERS_OF_TEN[decimals];
        // work on the negative magnitude so that Long.MIN_VALUE needs no special case
        final long negativeMagnitude = value < 0 ? value : -value;
        if (value < 0)
        {
            sb.append('-');
        }
        sb.append(-(negativeMagnitude / scale));
        if (decimals > 0)
        {
            sb.append('.');
            final long fraction = -(negativeMagnitude % scale);
            for (long div = scale / 10; div > 0; div /= 10)
            {
                sb.append((char)('0' + (fraction / div) % 10));
            }
        }
        return sb;
    }

    static String format(final long value, final int decimals)
    {
        return append(new StringBuilder(24), value, decimals).toString();
    }

    private static int digit(final CharSequence text, final int index, final String what)
    {
        final char c = text.charAt(index);
        if (c < '0' || c > '9')
        {
            throw notANumber(text, what);
        }
        return c - '0';
    }

    private static IllegalArgumentException notANumber(final CharSequence text, final String what)
    {
        return new IllegalArgumentException(what + " is not a decimal number: '" + text + "'");
    }
}
