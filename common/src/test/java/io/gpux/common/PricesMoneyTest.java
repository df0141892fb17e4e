package io.gpux.common;

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
        assertEquals(25_000, Money.parsePrice("2.5000"));
        assertEquals(25_000, Money.parsePrice("2.5"));
        assertEquals(20_000, Money.parsePrice("2"));
        assertEquals(1, Money.parsePrice("0.0001"));
        assertEquals(0, Money.parsePrice("0"));
        assertEquals(123_456_789, Money.parsePrice("12345.6789"));
        assertEquals(Long.MAX_VALUE, Money.parsePrice("922337203685477.5807"));
    }

    @Test
    void pricesFormatWithFourDecimals()
    {
        assertEquals("2.5000", Money.formatPrice(25_000));
        assertEquals("0.0001", Money.formatPrice(1));
        assertEquals("0.0000", Money.formatPrice(0));
        assertEquals("-1.0500", Money.formatPrice(-10_500));
        assertEquals("922337203685477.5807", Money.formatPrice(Long.MAX_VALUE));
        assertEquals("-922337203685477.5808", Money.formatPrice(Long.MIN_VALUE));
        assertEquals("x=3.0000", Money.appendPrice(new StringBuilder("x="), 30_000).toString());
    }

    @Test
    void moneyParsesToMicros()
    {
        assertEquals(12_345_678, Money.parseMoney("12.345678"));
        assertEquals(1_000_000_000, Money.parseMoney("1000"));
        assertEquals(500_000, Money.parseMoney("0.5"));
        assertEquals(-1, Money.parseMoney("-0.000001"));
        assertEquals(Long.MIN_VALUE + 1, Money.parseMoney("-9223372036854.775807"));
        assertEquals(Long.MIN_VALUE, Money.parseMoney("-9223372036854.775808"));
    }

    @Test
    void moneyFormatsWithSixDecimals()
    {
        assertEquals("12.345678", Money.formatMoney(12_345_678));
        assertEquals("0.133377", Money.formatMoney(133_377));
        assertEquals("-0.000001", Money.formatMoney(-1));
        assertEquals("1000.000000", Money.formatMoney(1_000_000_000));
        assertEquals("-9223372036854.775808", Money.formatMoney(Long.MIN_VALUE));
    }

    @Test
    void roundTripsAreExact()
    {
        final SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 10_000; i++)
        {
            final long ticks = random.nextLong(0, Long.MAX_VALUE);
            assertEquals(ticks, Money.parsePrice(Money.formatPrice(ticks)));
            final long micros = random.nextLong();
            assertEquals(micros, Money.parseMoney(Money.formatMoney(micros)));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".", "-", "2.", ".5", "2.50001", "1e3", " 2.5", "2.5 ", "+2.5", "2,5", "2.5.0",
        "-2.5", "abc", "922337203685477.5808", "99999999999999999999", "\uff12.5"})
    void badPricesAreRefused(final String text)
    {
        assertThrows(IllegalArgumentException.class, () -> Money.parsePrice(text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".", "-", "--1", "1.0000001", "1e6", "0x10", "1.5-", "9223372036854.775808",
        "-9223372036854.775809"})
    void badAmountsAreRefused(final String text)
    {
        assertThrows(IllegalArgumentException.class, () -> Money.parseMoney(text));
    }

    @Test
    void nullIsRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> Money.parsePrice(null));
        assertThrows(IllegalArgumentException.class, () -> Money.parseMoney(null));
    }
}
