package io.gpux.sim.agent;

import io.gpux.client.BookView;
import io.gpux.sim.report.DepthSample;
import io.gpux.sim.report.LiveCounters;

/** Watches every market's book (no trading) and samples its depth every {@link #SAMPLE_MS} of market time. */
public final class Observer extends Agent
{
    public static final long SAMPLE_MS = 15 * AgentParameters.MINUTE;

    private final MarketBooks books = new MarketBooks();

    public Observer(final String name, final long seed, final AgentParameters params, final LiveCounters live)
    {
        super(name, "observer", seed, params, live);
        for (final GpuClass c : Catalogue.CLASSES)
        {
            books.add(c.symbol());
        }
    }

    @Override
    protected void onStart()
    {
        books.subscribe(access);
        access.schedule(SAMPLE_MS, this::sample);
    }

    @Override
    protected void onStop()
    {
    }

    @Override
    protected MarketBooks books()
    {
        return books;
    }

    private void sample()
    {
        if (stopped)
        {
            return;
        }
        final long now = access.now();
        for (final BookView book : books.all())
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
