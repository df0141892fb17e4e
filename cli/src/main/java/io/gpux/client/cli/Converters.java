package io.gpux.client.cli;

import io.gpux.common.Money;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.TimeInForce;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Exact parsing of what users type: prices and amounts as decimals (never through {@code double}),
 * durations with units, reliabilities, enums without their protobuf placeholders. A bad value becomes
 * a picocli {@link TypeConversionException}, which picocli reports as a usage error (exit status 2).
 */
final class Converters
{
    private static final Pattern DURATION_PART = Pattern.compile("([0-9]+)(ms|d|h|m|s)");
    private static final long PPM_MAX = 1_000_000;

    private Converters()
    {
    }

    /** A price per GPU-hour, {@code 2.5} or {@code 2.5000}: ticks of 0.0001. */
    static final class Price implements ITypeConverter<Long>
    {
        @Override
        public Long convert(final String value)
        {
            return price(value);
        }
    }

    /** An amount of money, {@code 1000} or {@code 12.345678}: micro-units. */
    static final class Amount implements ITypeConverter<Long>
    {
        @Override
        public Long convert(final String value)
        {
            try
            {
                final long micros = Money.parseMoney(value);
                if (micros <= 0)
                {
                    throw new TypeConversionException("an amount must be positive: '" + value + "'");
                }
                return micros;
            }
            catch (final IllegalArgumentException ex)
            {
                throw new TypeConversionException(ex.getMessage());
            }
        }
    }

    /** A duration: {@code 2h}, {@code 90m}, {@code 30s}, {@code 500ms}, {@code 1d}, {@code 1h30m}, or bare milliseconds. */
    static final class DurationMs implements ITypeConverter<Long>
    {
        @Override
        public Long convert(final String value)
        {
            return durationMs(value);
        }
    }

    /** A duration as {@link DurationMs}, or 0. */
    static final class DurationOrZeroMs implements ITypeConverter<Long>
    {
        @Override
        public Long convert(final String value)
        {
            return value.trim().matches("0+(ms|s|m|h|d)?") ? 0L : durationMs(value);
        }
    }

    /** A reliability from 0 to 1 with at most 6 decimals ({@code 0.99}): parts per million. */
    static final class Reliability implements ITypeConverter<Long>
    {
        @Override
        public Long convert(final String value)
        {
            final long ppm;
            try
            {
                // a reliability has six decimals, as money does: the same exact parser gives parts per million
                ppm = Money.parseMoney(value);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new TypeConversionException("a reliability is a decimal from 0 to 1: '" + value + "'");
            }
            if (ppm < 0 || ppm > PPM_MAX)
            {
                throw new TypeConversionException("a reliability is a decimal from 0 to 1: '" + value + "'");
            }
            return ppm;
        }
    }

    /** GTC, IOC or FOK, any case. */
    static final class Tif implements ITypeConverter<TimeInForce>
    {
        @Override
        public TimeInForce convert(final String value)
        {
            return switch (value.toUpperCase(Locale.ROOT))
            {
                case "GTC" -> TimeInForce.GTC;
                case "IOC" -> TimeInForce.IOC;
                case "FOK" -> TimeInForce.FOK;
                default -> throw new TypeConversionException("time in force is GTC, IOC or FOK, not '" + value + "'");
            };
        }
    }

    /** RENTER, OWNER, MARKET_MAKER or ADMIN, any case. */
    static final class AccountRole implements ITypeConverter<Role>
    {
        @Override
        public Role convert(final String value)
        {
            return switch (value.toUpperCase(Locale.ROOT).replace('-', '_'))
            {
                case "RENTER" -> Role.RENTER;
                case "OWNER" -> Role.OWNER;
                case "MARKET_MAKER" -> Role.MARKET_MAKER;
                case "ADMIN" -> Role.ADMIN;
                default -> throw new TypeConversionException(
                    "a role is RENTER, OWNER, MARKET_MAKER or ADMIN, not '" + value + "'");
            };
        }
    }

    static long price(final String value)
    {
        try
        {
            final long ticks = Money.parsePrice(value);
            if (ticks <= 0)
            {
                throw new TypeConversionException("a price must be positive: '" + value + "'");
            }
            return ticks;
        }
        catch (final IllegalArgumentException ex)
        {
            throw new TypeConversionException(ex.getMessage());
        }
    }

    static long durationMs(final String value)
    {
        final String text = value.trim().toLowerCase(Locale.ROOT);
        try
        {
            if (!text.isEmpty() && text.chars().allMatch(Character::isDigit))
            {
                return positive(Long.parseLong(text), value);
            }
            final Matcher m = DURATION_PART.matcher(text);
            long total = 0;
            int end = 0;
            while (m.find() && m.start() == end)
            {
                final long n = Long.parseLong(m.group(1));
                final long unit = switch (m.group(2))
                {
                    case "ms" -> 1L;
                    case "s" -> 1_000L;
                    case "m" -> 60_000L;
                    case "h" -> 3_600_000L;
                    default -> 86_400_000L;
                };
                total = Math.addExact(total, Math.multiplyExact(n, unit));
                end = m.end();
            }
            if (end == 0 || end != text.length())
            {
                throw new TypeConversionException(
                    "a duration is like 2h, 90m, 30s, 500ms, 1d, 1h30m or plain milliseconds, not '" + value + "'");
            }
            return positive(total, value);
        }
        catch (final NumberFormatException | ArithmeticException ex)
        {
            throw new TypeConversionException("duration out of range: '" + value + "'");
        }
    }

    private static long positive(final long ms, final String value)
    {
        if (ms <= 0)
        {
            throw new TypeConversionException("a duration must be positive: '" + value + "'");
        }
        return ms;
    }
}
