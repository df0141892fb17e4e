package io.gpux.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PricesMoneyTest
{
    @Test
    void pricesParseToTicks()
    {
        assertEquals(25_000, Prices.parse("2.5000"));
        assertEquals(25_000, Prices.parse("2.5"));
        assertEquals(20_000, Prices.parse("2"));
        assertEquals(1, Prices.parse("0.0001"));
        assertEquals(0, Prices.parse("0"));
        assertEquals(123_456_789, Prices.parse("12345.6789"));
        assertEquals(Long.MAX_VALUE, Prices.parse("922337203685477.5807"));
    }

    @Test
    void pricesFormatWithFourDecimals()
    {
        assertEquals("2.5000", Prices.format(25_000));
        assertEquals("0.0001", Prices.format(1));
        assertEquals("0.0000", Prices.format(0));
        assertEquals("-1.0500", Prices.format(-10_500));
        assertEquals("922337203685477.5807", Prices.format(Long.MAX_VALUE));
        assertEquals("-922337203685477.5808", Prices.format(Long.MIN_VALUE));
        assertEquals("x=3.0000", Prices.appendTo(new StringBuilder("x="), 30_000).toString());
    }

    @Test
    void moneyParsesToMicros()
    {
        assertEquals(12_345_678, Money.parse("12.345678"));
        assertEquals(1_000_000_000, Money.parse("1000"));
        assertEquals(500_000, Money.parse("0.5"));
        assertEquals(-1, Money.parse("-0.000001"));
        assertEquals(Long.MIN_VALUE + 1, Money.parse("-9223372036854.775807"));
        assertEquals(Long.MIN_VALUE, Money.parse("-9223372036854.775808"));
    }

    @Test
    void moneyFormatsWithSixDecimals()
    {
        assertEquals("12.345678", Money.format(12_345_678));
        assertEquals("0.133377", Money.format(133_377));
        assertEquals("-0.000001", Money.format(-1));
        assertEquals("1000.000000", Money.format(1_000_000_000));
        assertEquals("-9223372036854.775808", Money.format(Long.MIN_VALUE));
    }

    @Test
    void roundTripsAreExact()
    {
        final SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 10_000; i++)
        {
            final long ticks = random.nextLong(0, Long.MAX_VALUE);
            assertEquals(ticks, Prices.parse(Prices.format(ticks)));
            final long micros = random.nextLong();
            assertEquals(micros, Money.parse(Money.format(micros)));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".", "-", "2.", ".5", "2.50001", "1e3", " 2.5", "2.5 ", "+2.5", "2,5", "2.5.0",
        "-2.5", "abc", "922337203685477.5808", "99999999999999999999", "\uff12.5"})
    void badPricesAreRefused(final String text)
    {
        assertThrows(IllegalArgumentException.class, () -> Prices.parse(text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".", "-", "--1", "1.0000001", "1e6", "0x10", "1.5-", "9223372036854.775808",
        "-9223372036854.775809"})
    void badAmountsAreRefused(final String text)
    {
        assertThrows(IllegalArgumentException.class, () -> Money.parse(text));
    }

    @Test
    void nullIsRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> Prices.parse(null));
        assertThrows(IllegalArgumentException.class, () -> Money.parse(null));
    }
}
