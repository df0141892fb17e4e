package io.gpux.gateway.marketdata;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.book.BookSide;
import io.gpux.engine.market.Market;
import io.gpux.proto.v1.BookSnapshot;
import io.gpux.proto.v1.BookUpdate;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Level;
import org.agrona.collections.Long2ObjectHashMap;


/**
 * Book levels for market data, on the core thread. A market is tracked from its first subscription:
 * after every batch of commands its best {@link #DEPTH} levels per side are compared with the last
 * ones sent, and the changes go out as one BookUpdate with the next update sequence. A subscription
 * is a query on the core thread, so its snapshot is exact at a point in the stream, and the updates
 * after it follow it in the egress queue.
 */
public final class MarketData
{
    public static final int DEPTH = 20;

    private static final class Tracked
    {
        final String symbol;
        final long[] bidPrices = new long[DEPTH];
        final long[] bidGpus = new long[DEPTH];
        final long[] askPrices = new long[DEPTH];
        final long[] askGpus = new long[DEPTH];
        int bids;
        int asks;
        long updateSeq;

        Tracked(final String symbol)
        {
            this.symbol = symbol;
        }
    }

    /** Where book updates go. */
    @FunctionalInterface
    public interface UpdateSink
    {
        void onUpdate(long marketId, Envelope update);
    }

    private final Long2ObjectHashMap<Tracked> tracked = new Long2ObjectHashMap<>();
    private final UpdateSink updates;
    private final long[] scratchPrices = new long[DEPTH];
    private final long[] scratchGpus = new long[DEPTH];

    public MarketData(final UpdateSink updates)
    {
        this.updates = updates;
    }

    /** Core thread: starts tracking the market if needed and returns its snapshot, or null if there is no such market. */
    public Envelope snapshot(final MatchingEngine engine, final long marketId)
    {
        final Market market = engine.market(marketId);
        if (market == null)
        {
            return null;
        }
        Tracked t = tracked.get(marketId);
        if (t == null)
        {
            t = new Tracked(market.name);
            t.bids = copy(market.bids, t.bidPrices, t.bidGpus);
            t.asks = copy(market.asks, t.askPrices, t.askGpus);
            tracked.put(marketId, t);
        }
        final BookSnapshot.Builder b = BookSnapshot.newBuilder().setMarket(t.symbol).setUpdateSeq(t.updateSeq);
        for (int i = 0; i < t.bids; i++)
        {
            b.addBids(Level.newBuilder().setPrice(t.bidPrices[i]).setGpus(t.bidGpus[i]));
        }
        for (int i = 0; i < t.asks; i++)
        {
            b.addAsks(Level.newBuilder().setPrice(t.askPrices[i]).setGpus(t.askGpus[i]));
        }
        return Envelope.newBuilder().setBookSnapshot(b).build();
    }

    /** Core thread, after each batch: the changes of every tracked market. */
    public void onBatchApplied(final MatchingEngine engine)
    {
        if (tracked.isEmpty())
        {
            return;
        }
        final Long2ObjectHashMap<Tracked>.EntryIterator it = tracked.entrySet().iterator();
        while (it.hasNext())
        {
            it.next();
            final long marketId = it.getLongKey();
            final Tracked t = it.getValue();
            final Market market = engine.market(marketId);
            BookUpdate.Builder update = null;
            int n = copy(market.bids, scratchPrices, scratchGpus);
            if (differs(t.bidPrices, t.bidGpus, t.bids, n))
            {
                update = BookUpdate.newBuilder();
                diff(t.bidPrices, t.bidGpus, t.bids, n, update, true);
                System.arraycopy(scratchPrices, 0, t.bidPrices, 0, n);
                System.arraycopy(scratchGpus, 0, t.bidGpus, 0, n);
                t.bids = n;
            }
            n = copy(market.asks, scratchPrices, scratchGpus);
            if (differs(t.askPrices, t.askGpus, t.asks, n))
            {
                if (update == null)
                {
                    update = BookUpdate.newBuilder();
                }
                diff(t.askPrices, t.askGpus, t.asks, n, update, false);
                System.arraycopy(scratchPrices, 0, t.askPrices, 0, n);
                System.arraycopy(scratchGpus, 0, t.askGpus, 0, n);
                t.asks = n;
            }
            if (update != null)
            {
                update.setMarket(t.symbol).setUpdateSeq(++t.updateSeq);
                updates.onUpdate(marketId, Envelope.newBuilder().setBookUpdate(update).build());
            }
        }
    }

    private static int copy(final BookSide side, final long[] prices, final long[] gpus)
    {
        final int n = Math.min(DEPTH, side.levelCount());
        for (int i = 0; i < n; i++)
        {
            prices[i] = side.level(i).price();
            gpus[i] = side.level(i).gpus();
        }
        return n;
    }

    private boolean differs(final long[] prices, final long[] gpus, final int old, final int n)
    {
        if (old != n)
        {
            return true;
        }
        for (int i = 0; i < n; i++)
        {
            if (prices[i] != scratchPrices[i] || gpus[i] != scratchGpus[i])
            {
                return true;
            }
        }
        return false;
    }

    /** Levels gone (gpus 0) or changed, between the old view and the one in scratch. */
    private void diff(
        final long[] prices, final long[] gpus, final int old, final int n, final BookUpdate.Builder update, final boolean bids)
    {
        for (int i = 0; i < old; i++)
        {
            if (indexOf(scratchPrices, n, prices[i]) < 0)
            {
                add(update, bids, prices[i], 0);
            }
        }
        for (int i = 0; i < n; i++)
        {
            final int j = indexOf(prices, old, scratchPrices[i]);
            if (j < 0 || gpus[j] != scratchGpus[i])
            {
                add(update, bids, scratchPrices[i], scratchGpus[i]);
            }
        }
    }

    private static void add(final BookUpdate.Builder update, final boolean bids, final long price, final long gpus)
    {
        final Level level = Level.newBuilder().setPrice(price).setGpus(gpus).build();
        if (bids)
        {
            update.addBids(level);
        }
        else
        {
            update.addAsks(level);
        }
    }

    private static int indexOf(final long[] prices, final int n, final long price)
    {
        for (int i = 0; i < n; i++)
        {
            if (prices[i] == price)
            {
                return i;
            }
        }
        return -1;
    }
}
