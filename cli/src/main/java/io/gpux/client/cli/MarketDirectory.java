package io.gpux.client.cli;

import io.gpux.client.GpuxClient;
import io.gpux.proto.v1.MarketInfo;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeoutException;

/**
 * The exchange's markets as the CLI sees them: a symbol typed in any case resolves to the exchange's
 * spelling, and an unknown one gets the closest symbols by edit distance.
 */
final class MarketDirectory
{
    private final List<MarketInfo> markets;

    MarketDirectory(final List<MarketInfo> markets)
    {
        this.markets = List.copyOf(markets);
    }

    static MarketDirectory fetch(final GpuxClient client, final Duration timeout)
        throws IOException, InterruptedException, TimeoutException
    {
        return new MarketDirectory(client.markets(timeout).getMarketsList());
    }

    /** The market of this symbol, compared without case; null if the exchange has none. */
    MarketInfo find(final String symbol)
    {
        MarketInfo caseless = null;
        for (final MarketInfo m : markets)
        {
            if (m.getSymbol().equals(symbol))
            {
                return m;
            }
            if (caseless == null && m.getSymbol().equalsIgnoreCase(symbol))
            {
                caseless = m;
            }
        }
        return caseless;
    }

    /** The exchange's spelling of the symbol, or the symbol as typed when no market has it (the exchange refuses it). */
    String resolve(final String symbol)
    {
        final MarketInfo m = find(symbol);
        return m == null ? symbol : m.getSymbol();
    }

    /** {@code unknown market "H100"; did you mean H100-SXM-80G? markets: A100-80G, H100-SXM-80G}. */
    String unknownMarket(final String symbol)
    {
        final StringBuilder sb = new StringBuilder("unknown market \"").append(symbol).append('"');
        final List<String> near = suggestions(symbol);
        if (!near.isEmpty())
        {
            sb.append("; did you mean ").append(String.join(" or ", near)).append('?');
        }
        if (markets.isEmpty())
        {
            return sb.append("; the exchange has no markets").toString();
        }
        final List<String> all = new ArrayList<>();
        markets.forEach(m -> all.add(m.getSymbol()));
        all.sort(null);
        return sb.append("; markets: ").append(String.join(", ", all)).toString();
    }

    /**
     * The symbols nearest to a typo, case ignored: those at the smallest edit distance, if it is at most
     * a third of the typed length (at least 1, at most 3); failing that, those the typed text is a part of.
     */
    List<String> suggestions(final String typed)
    {
        final String t = typed.toUpperCase(Locale.ROOT);
        final int limit = Math.max(1, Math.min(3, t.length() / 3));
        int best = Integer.MAX_VALUE;
        final List<String> nearest = new ArrayList<>();
        final List<String> containing = new ArrayList<>();
        for (final MarketInfo m : markets)
        {
            final String symbol = m.getSymbol();
            final int d = editDistance(t, symbol.toUpperCase(Locale.ROOT));
            if (d < best)
            {
                best = d;
                nearest.clear();
            }
            if (d == best)
            {
                nearest.add(symbol);
            }
            if (!t.isEmpty() && symbol.toUpperCase(Locale.ROOT).contains(t))
            {
                containing.add(symbol);
            }
        }
        final List<String> chosen = best <= limit ? nearest : containing;
        chosen.sort(null);
        return chosen;
    }

    /** Levenshtein distance: insertions, deletions and substitutions, each 1. */
    static int editDistance(final String a, final String b)
    {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++)
        {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++)
        {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++)
            {
                final int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            final int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
