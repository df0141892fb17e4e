package io.gpux.sim.agent;

import io.gpux.client.BookView;
import io.gpux.proto.v1.BookSnapshot;
import io.gpux.proto.v1.BookUpdate;
import io.gpux.sim.market.MarketAccess;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/** An agent's books of some markets, kept from market data (a gap subscribes the market again). */
final class MarketBooks
{
    private final Map<String, BookView> books = new LinkedHashMap<>();

    /** Adds a market; whether it is new. */
    boolean add(final String market)
    {
        return books.putIfAbsent(market, new BookView(market)) == null;
    }

    /** Subscribes every market it keeps. */
    void subscribe(final MarketAccess access)
    {
        for (final String market : books.keySet())
        {
            access.subscribe(market);
        }
    }

    Collection<BookView> all()
    {
        return books.values();
    }

    /** The best bid of a market's book, 0 when it has none or is not known. */
    long bestBid(final String market)
    {
        final BookView book = books.get(market);
        return book == null || !book.isValid() || book.bidLevels() == 0 ? 0 : book.bestBid();
    }

    void onSnapshot(final BookSnapshot snapshot)
    {
        final BookView book = books.get(snapshot.getMarket());
        if (book != null)
        {
            book.onSnapshot(snapshot);
        }
    }

    void onUpdate(final BookUpdate update, final MarketAccess access)
    {
        final BookView book = books.get(update.getMarket());
        if (book != null && book.onUpdate(update) == BookView.Result.GAP)
        {
            access.subscribe(update.getMarket());
        }
    }
}
