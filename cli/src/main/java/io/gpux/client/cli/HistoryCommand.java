package io.gpux.client.cli;

import io.gpux.client.GpuxClient;
import io.gpux.client.RequestFailedException;
import io.gpux.proto.v1.Candle;
import io.gpux.proto.v1.CandleInterval;
import io.gpux.proto.v1.History;
import io.gpux.proto.v1.HistoryRequest;
import io.gpux.proto.v1.Reason;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/** {@code gpux history}: a market's OHLC candles of one interval, as the exchange keeps them from its trades. */
@Command(name = "history", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Prints a market's price history: one OHLC candle per interval that had a trade, oldest first,"
        + " with the GPUs and trades of the interval. Times are UTC.",
        "The exchange keeps 1440 candles per interval: a day of 1m, five days of 5m, sixty days of 1h, about four years of 1d.",
        "Needs no key: without --key-file or GPUX_KEY_ID it logs in as a market-data session."})
public final class HistoryCommand extends ClientCommand
{
    @Option(names = "--market", required = true, paramLabel = "SYMBOL", description = "the market (any case)")
    String market;

    @Option(names = "--interval", required = true, paramLabel = "1m|5m|1h|1d", converter = IntervalConverter.class,
        description = "the candles' length")
    CandleInterval interval;

    @Option(names = "--from", paramLabel = "TIME", converter = TimeConverter.class,
        description = "candles starting at or after TIME (UTC: 2026-12-01, 2026-12-01T10:00, or epoch milliseconds); default: the oldest kept")
    Long fromMs;

    @Option(names = "--to", paramLabel = "TIME", converter = TimeConverter.class,
        description = "candles starting before TIME; default: up to the newest")
    Long toMs;

    @Override
    int execute() throws Exception
    {
        if (fromMs != null && toMs != null && fromMs >= toMs)
        {
            throw CliException.usage("--from must be before --to");
        }
        try (GpuxClient client = connectForMarketData(null))
        {
            final MarketDirectory markets = MarketDirectory.fetch(client, timeout());
            final String symbol = markets.resolve(market);
            final List<Candle> candles = new ArrayList<>();
            Long to = toMs;
            while (true)
            {
                final HistoryRequest.Builder request = HistoryRequest.newBuilder().setMarket(symbol).setInterval(interval);
                if (fromMs != null)
                {
                    request.setFromMs(fromMs);
                }
                if (to != null)
                {
                    request.setToMs(to);
                }
                final History page;
                try
                {
                    page = client.history(request.build(), timeout());
                }
                catch (final RequestFailedException ex)
                {
                    final Reason reason = ex.response().getReason();
                    return printResult(ex.response(), new Json().put("market", market),
                        reason == Reason.UNKNOWN_MARKET ? markets.unknownMarket(market) : null);
                }
                candles.addAll(0, page.getCandlesList());
                if (!page.getMore() || page.getCandlesCount() == 0)
                {
                    break;
                }
                to = page.getCandles(0).getStartMs();
            }
            print(symbol, candles);
            return 0;
        }
    }

    private void print(final String symbol, final List<Candle> candles)
    {
        final String label = label(interval);
        if (json)
        {
            for (final Candle c : candles)
            {
                out().println(new Json().put("type", "candle").put("market", symbol).put("interval", label)
                    .putTime("start", c.getStartMs()).put("open", Format.price(c.getOpen())).put("high", Format.price(c.getHigh()))
                    .put("low", Format.price(c.getLow())).put("close", Format.price(c.getClose()))
                    .put("volume", c.getVolume()).put("trades", c.getTrades()));
            }
            return;
        }
        out().println(symbol + "  " + label + " candles (UTC)");
        if (candles.isEmpty())
        {
            out().println("no trades in the range");
            return;
        }
        final Table table = new Table("START", "OPEN", "HIGH", "LOW", "CLOSE", "VOLUME", "TRADES");
        for (final Candle c : candles)
        {
            table.row(Format.time(c.getStartMs()), Format.price(c.getOpen()), Format.price(c.getHigh()),
                Format.price(c.getLow()), Format.price(c.getClose()), c.getVolume(), c.getTrades());
        }
        table.print(out());
    }

    static String label(final CandleInterval interval)
    {
        return switch (interval)
        {
            case INTERVAL_1M -> "1m";
            case INTERVAL_5M -> "5m";
            case INTERVAL_1H -> "1h";
            case INTERVAL_1D -> "1d";
            default -> interval.name();
        };
    }

    /** {@code 1m}, {@code 5m}, {@code 1h} or {@code 1d}. */
    static final class IntervalConverter implements ITypeConverter<CandleInterval>
    {
        @Override
        public CandleInterval convert(final String value)
        {
            return switch (value.trim().toLowerCase(Locale.ROOT))
            {
                case "1m" -> CandleInterval.INTERVAL_1M;
                case "5m" -> CandleInterval.INTERVAL_5M;
                case "1h" -> CandleInterval.INTERVAL_1H;
                case "1d" -> CandleInterval.INTERVAL_1D;
                default -> throw new TypeConversionException("an interval is 1m, 5m, 1h or 1d, not '" + value + "'");
            };
        }
    }

    /** A UTC time: {@code 2026-12-01}, {@code 2026-12-01T10:00[:00]}, {@code 2026-12-01T10:00:00Z}, or epoch milliseconds. */
    static final class TimeConverter implements ITypeConverter<Long>
    {
        @Override
        public Long convert(final String value)
        {
            final String v = value.trim();
            try
            {
                if (v.matches("[0-9]+"))
                {
                    return Long.parseLong(v);
                }
                if (v.matches("[0-9]{4}-[0-9]{2}-[0-9]{2}"))
                {
                    return LocalDate.parse(v).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
                }
                if (v.endsWith("Z"))
                {
                    return Instant.parse(v).toEpochMilli();
                }
                return LocalDateTime.parse(v.replace(' ', 'T')).toInstant(ZoneOffset.UTC).toEpochMilli();
            }
            catch (final DateTimeException | NumberFormatException ex)
            {
                throw new TypeConversionException("a time is 2026-12-01, 2026-12-01T10:00 (UTC) or epoch milliseconds, not '"
                    + value + "'");
            }
        }
    }

    public static void main(final String[] args)
    {
        GpuxCli.main("history", args);
    }
}
