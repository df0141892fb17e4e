package io.gpux.client.cli;

import io.gpux.common.Money;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** How the CLI writes numbers and times for people: prices with 4 decimals, money with 6, UTC times. */
final class Format
{
    private static final DateTimeFormatter TIME =
        DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private static final DateTimeFormatter ISO =
        DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private Format()
    {
    }

    static String price(final long ticks)
    {
        return Money.formatPrice(ticks);
    }

    static String money(final long micros)
    {
        return Money.formatMoney(micros);
    }

    /** Epoch milliseconds as UTC date and time; 0 as "-". */
    static String time(final long epochMs)
    {
        return epochMs == 0 ? "-" : TIME.format(Instant.ofEpochMilli(epochMs));
    }

    /** Epoch milliseconds as ISO-8601 UTC with milliseconds, for {@code --json}: {@code 2025-11-30T05:14:00.000Z}. */
    static String iso(final long epochMs)
    {
        return ISO.format(Instant.ofEpochMilli(epochMs));
    }

    /** Parts per million as a decimal from 0 to 1 with 6 places: 990000 is "0.990000". */
    static String ppm(final long ppm)
    {
        final StringBuilder sb = new StringBuilder().append(ppm / 1_000_000).append('.');
        final String fraction = Long.toString(ppm % 1_000_000);
        return sb.append("0".repeat(6 - fraction.length())).append(fraction).toString();
    }

    /** A span of milliseconds for people, largest units first: {@code 1d2h}, {@code 59m30s}, {@code 4s}, {@code 0s}; negative as {@code -}. */
    static String span(final long ms)
    {
        if (ms < 0)
        {
            return "-";
        }
        final long s = ms / 1000;
        if (s < 60)
        {
            return s + "s";
        }
        if (s < 3600)
        {
            return s / 60 + "m" + (s % 60 == 0 ? "" : s % 60 + "s");
        }
        if (s < 86_400)
        {
            return s / 3600 + "h" + (s % 3600 / 60 == 0 ? "" : s % 3600 / 60 + "m");
        }
        return s / 86_400 + "d" + (s % 86_400 / 3600 == 0 ? "" : s % 86_400 / 3600 + "h");
    }
}
