package io.gpux.client.cli;

import io.gpux.client.GpuxClient;
import io.gpux.proto.v1.MarketInfo;
import io.gpux.proto.v1.Markets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;

/** {@code gpux markets}: every market with its last price, best bid and ask, and the last 24 hours' trading. */
@Command(name = "markets", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Lists every market: the GPU it trades, the last trade's price, the best bid and ask, and the GPUs"
        + " and trades of the last 24 hours.",
        "Needs no key: without --key-file or GPUX_KEY_ID it logs in as a market-data session."})
public final class MarketsCommand extends ClientCommand
{
    /** A symbol that ends in its memory size: {@code H100-SXM-80G}. */
    private static final Pattern GPU_SYMBOL = Pattern.compile("(.+)-([0-9]+)G");

    @Override
    int execute() throws Exception
    {
        try (GpuxClient client = connectForMarketData(null))
        {
            final Markets markets = client.markets(timeout());
            if (json)
            {
                for (final MarketInfo m : markets.getMarketsList())
                {
                    out().println(json(m));
                }
                return 0;
            }
            if (markets.getMarketsCount() == 0)
            {
                out().println("the exchange has no markets");
                return 0;
            }
            final Table table = new Table("SYMBOL", "GPU", "LAST", "BID", "ASK", "VOLUME_24H", "TRADES_24H", "STATE");
            for (final MarketInfo m : markets.getMarketsList())
            {
                final String gpu = gpu(m.getSymbol());
                table.row(m.getSymbol(), gpu == null ? "-" : gpu,
                    m.hasLastPrice() ? Format.price(m.getLastPrice()) : "-",
                    m.hasBestBid() ? Format.price(m.getBestBid()) : "-",
                    m.hasBestAsk() ? Format.price(m.getBestAsk()) : "-",
                    m.getVolume24H(), m.getTrades24H(), m.getHalted() ? "HALTED" : "open");
            }
            table.print(out());
            return 0;
        }
    }

    private static Json json(final MarketInfo m)
    {
        final Json j = new Json().put("type", "market").put("symbol", m.getSymbol());
        final String gpu = gpu(m.getSymbol());
        if (gpu != null)
        {
            j.put("gpu", gpu);
        }
        if (m.hasLastPrice())
        {
            j.put("last_price", Format.price(m.getLastPrice()));
        }
        if (m.hasBestBid())
        {
            j.put("best_bid", Format.price(m.getBestBid()));
        }
        if (m.hasBestAsk())
        {
            j.put("best_ask", Format.price(m.getBestAsk()));
        }
        return j.put("volume_24h", m.getVolume24H()).put("trades_24h", m.getTrades24H()).put("halted", m.getHalted());
    }

    /**
     * The GPU a market trades, as its symbol names it: {@code H100-SXM-80G} is {@code H100 SXM 80GB}; null
     * when the symbol does not end in a memory size.
     */
    static String gpu(final String symbol)
    {
        final Matcher m = GPU_SYMBOL.matcher(symbol);
        return m.matches() ? m.group(1).replace('-', ' ') + " " + m.group(2) + "GB" : null;
    }

    public static void main(final String[] args)
    {
        GpuxCli.main("markets", args);
    }
}
