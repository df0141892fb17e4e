package io.gpux.common;

/**
 * Exact fixed-point arithmetic of the rulebook, section 1: prices in ticks of 0.0001 per GPU-hour,
 * money in micro-units of 0.000001, time in milliseconds. Never overflows silently: products are
 * taken in 128 bits. Also the one text form of prices and money, for the engine's tools and the
 * client alike: {@code parsePrice("2.5") == 25000}, {@code formatPrice(25000).equals("2.5000")},
 * {@code parseMoney("12.345678") == 12345678}; exact, no {@code double} and no {@code BigDecimal}.
 */
public final class Money
{
    /** Ticks in one currency unit per GPU-hour. */
    public static final long PRICE_SCALE = 10_000L;
    /** Micro-units in one currency unit. */
    public static final long MONEY_SCALE = 1_000_000L;
    /** Decimal places of a price. */
    public static final int PRICE_DECIMALS = 4;
    /** Decimal places of an amount of money. */
    public static final int MONEY_DECIMALS = 6;
    public static final long MS_PER_HOUR = 3_600_000L;
    /** micro-units per price tick per GPU-hour: 0.0001 currency = 100 micro-units. */
    public static final long MICROS_PER_TICK = MONEY_SCALE / PRICE_SCALE;
    /** The highest price an order may have: 100,000,000.0000 per GPU-hour (market-rules.md, section 13, "Limits on amounts"). */
    public static final long MAX_PRICE_TICKS = 1_000_000_000_000L;
    /**
     * The most money the exchange holds in all (2^61 micro-units, about 2.3 trillion): deposits beyond it
     * are refused, so that no balance, hold or lease cost can overflow a long (market-rules.md, section 13, "Limits on amounts").
     */
    public static final long MAX_TOTAL_MONEY = 1L << 61;

    private static final long[] POWERS_OF_TEN = {
        1L, 10L, 100L, 1_000L, 10_000L, 100_000L, 1_000_000L, 10_000_000L, 100_000_000L, 1_000_000_000L};

    private Money()
    {
    }

    /**
     * {@code floor(gpus * priceTicks * 100 * elapsedMs / 3_600_000)} micro-units, or Long.MAX_VALUE if
     * that does not fit a long.
     */
    public static long cost(final int gpus, final long priceTicks, final long elapsedMs)
    {
        if (elapsedMs <= 0 || gpus <= 0 || priceTicks <= 0)
        {
            return 0;
        }
        try
        {
            final long rate = Math.multiplyExact(Math.multiplyExact((long)gpus, priceTicks), MICROS_PER_TICK);
            return mulDivFloor(rate, elapsedMs, MS_PER_HOUR);
        }
        catch (final ArithmeticException ex)
        {
            // only a hold no account could cover: it saturates and the order is refused for funds. Costs
            // actually charged are bounded by the money in the exchange (MAX_TOTAL_MONEY) and never get here.
            return Long.MAX_VALUE;
        }
    }

    /**
     * {@code cost(toMs) - cost(fromMs)} for {@code 0 <= fromMs <= toMs}: what a lease owes for its life
     * between the two, exact however long it has run (both costs are taken in 128 bits; only their
     * difference, at most one period's cost, needs to fit a long). Long.MAX_VALUE if even that does not.
     */
    public static long costBetween(final int gpus, final long priceTicks, final long fromMs, final long toMs)
    {
        if (toMs <= 0 || gpus <= 0 || priceTicks <= 0 || toMs <= fromMs)
        {
            return 0;
        }
        final long rate;
        try
        {
            rate = Math.multiplyExact(Math.multiplyExact((long)gpus, priceTicks), MICROS_PER_TICK);
        }
        catch (final ArithmeticException ex)
        {
            return Long.MAX_VALUE;
        }
        // cost(to) - cost(from) = floor((R*from + R*d) / H) - floor(R*from / H) = floor((r + R*d) / H),
        // with r = (R*from) mod H and d = to - from: no 128-bit quotient of the whole life is needed.
        final long from = Math.max(0, fromMs);
        if (Math.multiplyHigh(rate, toMs) == 0 && rate * toMs >= 0)
        {
            // both products fit a long (the common case): the same difference, by two divisions by a constant
            return rate * toMs / MS_PER_HOUR - rate * from / MS_PER_HOUR;
        }
        final long r = remainder128(Math.multiplyHigh(rate, from), rate * from, MS_PER_HOUR);
        final long d = toMs - from;
        final long bLo = rate * d;
        final long lo = bLo + r;
        final long hi = Math.multiplyHigh(rate, d) + (Long.compareUnsigned(lo, bLo) < 0 ? 1 : 0);
        try
        {
            return divide128(hi, lo, MS_PER_HOUR);
        }
        catch (final ArithmeticException ex)
        {
            return Long.MAX_VALUE;
        }
    }

    /** The unsigned 128-bit (hi, lo) modulo 0 < c < 2^32. */
    private static long remainder128(final long hi, final long lo, final long c)
    {
        long rem = 0;
        for (int i = 0; i < 4; i++)
        {
            rem = Long.remainderUnsigned((rem << 32) | word(hi, lo, i), c);
        }
        return rem;
    }

    /** The unsigned 128-bit (hi, lo) divided by 0 < c < 2^32, rounded down; throws if it does not fit a long. */
    private static long divide128(final long hi, final long lo, final long c)
    {
        long rem = 0;
        long q = 0;
        for (int i = 0; i < 4; i++)
        {
            final long cur = (rem << 32) | word(hi, lo, i);
            final long d = Long.divideUnsigned(cur, c);
            rem = Long.remainderUnsigned(cur, c);
            if (i < 2 && d != 0)
            {
                throw new ArithmeticException("money overflow");
            }
            q = (q << 32) | d;
        }
        if (q < 0)
        {
            throw new ArithmeticException("money overflow");
        }
        return q;
    }

    /** The i-th 32-bit word of (hi, lo), most significant first. */
    private static long word(final long hi, final long lo, final int i)
    {
        return switch (i)
        {
            case 0 -> hi >>> 32;
            case 1 -> hi & 0xFFFF_FFFFL;
            case 2 -> lo >>> 32;
            default -> lo & 0xFFFF_FFFFL;
        };
    }

    /** The exchange fee on a charge: {@code floor(charge * feeBps / 10_000)}. */
    public static long fee(final long charge, final int feeBps)
    {
        return mulDivFloor(charge, feeBps, 10_000L);
    }

    /**
     * {@code floor(a * b / c)} for non-negative a, b and 0 < c < 2^32, exact in 128 bits.
     *
     * @throws ArithmeticException if the result does not fit a long.
     */
    public static long mulDivFloor(final long a, final long b, final long c)
    {
        final long hi = Math.multiplyHigh(a, b);
        final long lo = a * b;
        if (hi == 0 && lo >= 0)
        {
            return lo / c;
        }
        // schoolbook division of the 128-bit (hi, lo) by c, 32 bits at a time: remainder < c < 2^32
        long rem = 0;
        long q = 0;
        for (int i = 0; i < 4; i++)
        {
            final long digit = switch (i)
            {
                case 0 -> hi >>> 32;
                case 1 -> hi & 0xFFFF_FFFFL;
                case 2 -> lo >>> 32;
                default -> lo & 0xFFFF_FFFFL;
            };
            final long cur = (rem << 32) | digit;
            final long d = Long.divideUnsigned(cur, c);
            rem = Long.remainderUnsigned(cur, c);
            if (i < 2 && d != 0)
            {
                throw new ArithmeticException("money overflow");
            }
            q = (q << 32) | d;
        }
        if (q < 0)
        {
            throw new ArithmeticException("money overflow");
        }
        return q;
    }

    /** True when {@code a * b >= c * d} for non-negative operands, exactly. */
    public static boolean productAtLeast(final long a, final long b, final long c, final long d)
    {
        final long h1 = Math.multiplyHigh(a, b);
        final long h2 = Math.multiplyHigh(c, d);
        if (h1 != h2)
        {
            return h1 > h2;
        }
        return Long.compareUnsigned(a * b, c * d) >= 0;
    }

    /**
     * Parses {@code digits[.digits]} with at most 4 decimal places ("2", "2.5", "2.5000") into ticks.
     * Signs, exponents, blanks, a bare "." and more than 4 decimals are refused; whether the price
     * is positive and a multiple of the market's tick is the exchange's check, not this one.
     *
     * @throws IllegalArgumentException if the text is not such a price or overflows a long.
     */
    public static long parsePrice(final CharSequence text)
    {
        return parseFixed(text, PRICE_DECIMALS, false, "price");
    }

    /**
     * Parses {@code [-]digits[.digits]} with at most 6 decimal places ("1000", "12.5", "-0.000001")
     * into micro-units. Amounts may be negative (deltas, corrections); balances never are.
     *
     * @throws IllegalArgumentException if the text is not such an amount or overflows a long.
     */
    public static long parseMoney(final CharSequence text)
    {
        return parseFixed(text, MONEY_DECIMALS, true, "amount");
    }

    /** Ticks as text with exactly 4 decimals: {@code 25000 -> "2.5000"}. */
    public static String formatPrice(final long ticks)
    {
        return formatFixed(ticks, PRICE_DECIMALS);
    }

    /** Micro-units as text with exactly 6 decimals: {@code 12345678 -> "12.345678"}. */
    public static String formatMoney(final long micros)
    {
        return formatFixed(micros, MONEY_DECIMALS);
    }

    /** Appends {@link #formatPrice(long)} without an intermediate String. */
    public static StringBuilder appendPrice(final StringBuilder sb, final long ticks)
    {
        return appendFixed(sb, ticks, PRICE_DECIMALS);
    }

    /** Appends {@link #formatMoney(long)} without an intermediate String. */
    public static StringBuilder appendMoney(final StringBuilder sb, final long micros)
    {
        return appendFixed(sb, micros, MONEY_DECIMALS);
    }

    /**
     * Parses {@code [-]digits[.digits]} with at most {@code decimals} places into a {@code long} scaled by
     * 10^decimals; {@code what} names the value in the message of the IllegalArgumentException that
     * refuses anything else (a sign where {@code allowNegative} is false, an exponent, a blank, a bare
     * ".", too many places, an overflow).
     */
    public static long parseFixed(
        final CharSequence text, final int decimals, final boolean allowNegative, final String what)
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

    /** Appends {@code value / 10^decimals} with exactly {@code decimals} places (none and no point for 0). */
    public static StringBuilder appendFixed(final StringBuilder sb, final long value, final int decimals)
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

    /** {@link #appendFixed} as a String. */
    public static String formatFixed(final long value, final int decimals)
    {
        return appendFixed(new StringBuilder(24), value, decimals).toString();
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
