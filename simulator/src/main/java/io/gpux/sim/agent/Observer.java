package io.gpux.sim.agent;

import io.gpux.client.BookView;
import io.gpux.proto.v1.BookSnapshot;
import io.gpux.proto.v1.BookUpdate;
import io.gpux.sim.report.DepthSample;
import io.gpux.sim.report.LiveCounters;
import java.util.LinkedHashMap;
import java.util.Map;

/** Watches every market's book (no trading) and samples its depth every {@link #SAMPLE_MS} of market time. */
public final class Observer extends Agent
{
    public static final long SAMPLE_MS = 15 * AgentParameters.MINUTE;

    private final Map<String, BookView> books = new LinkedHashMap<>();

    public Observer(final String name, final long seed, final AgentParameters params, final LiveCounters live)
    {
        super(name, "observer", seed, params, live);
        for (final GpuClass c : Catalogue.CLASSES)
        {
            books.put(c.symbol(), new BookView(c.symbol()));
        }
    }

    @Override
    protected void onStart()
    {
        for (final String market : books.keySet())
        {
            access.subscribe(market);
        }
        access.schedule(SAMPLE_MS, this::sample);
    }

    @Override
    protected void onStop()
    {
    }

    @Override
    public void onBookSnapshot(final BookSnapshot snapshot)
    {
        final BookView book = books.get(snapshot.getMarket());
        if (book != null)
        {
            book.onSnapshot(snapshot);
        }
    }

    @Override
    public void onBookUpdate(final BookUpdate update)
    {
        final BookView book = books.get(update.getMarket());
        if (book != null && book.onUpdate(update) == BookView.Result.GAP)
        {
            access.subscribe(update.getMarket());
        }
    }

    private void sample()
    {
        if (stopped)
        {
            return;
        }
        final long now = access.now();
        for (final BookView book : books.values())
        {
            if (!book.isValid())
            {
                continue;
            }
            long bids = 0;
            long asks = 0;
            for (int i = 0; i < book.bidLevels(); i++)
            {
                bids += book.bidGpus(i);
            }
            for (int i = 0; i < book.askLevels(); i++)
            {
                asks += book.askGpus(i);
            }
            records.depth.add(new DepthSample(now, book.market(), bids, asks, book.bestBid(), book.bestAsk()));
        }
        access.schedule(SAMPLE_MS, this::sample);
    }
}
