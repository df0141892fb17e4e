package io.gpux.client;

import io.gpux.common.Money;
import io.gpux.proto.v1.BookSnapshot;
import io.gpux.proto.v1.BookUpdate;
import io.gpux.proto.v1.Level;
import io.gpux.proto.v1.Side;
import java.util.Arrays;

/**
 * The top of one market's book, as the gateway publishes it: a {@link BookSnapshot}, then
 * {@link BookUpdate}s whose {@code update_seq} follow the snapshot's one by one, each naming the
 * levels that changed ({@code gpus 0}: the level is gone).
 *
 * <p>Each side is kept sorted best first (bids highest price first, asks lowest first) in primitive
 * arrays: level {@code 0} is the best. An update that skips a sequence number means updates were
 * lost: the view marks itself {@link #isValid() invalid}, clears, answers {@link Result#GAP}, and
 * ignores updates until the next snapshot; the owner should then unsubscribe and subscribe again
 * to get one. Updates at or below the current sequence (already applied) are ignored.
 *
 * <p>Not thread-safe: feed it from the client's callbacks ({@code onBookSnapshot},
 * {@code onBookUpdate}) and read it there, or copy what you need out.
 */
public final class BookView
{
    /** What an update did. */
    public enum Result
    {
        /** The snapshot or update was applied. */
        APPLIED,
        /** Another market's message: ignored. */
        OTHER_MARKET,
        /** An update at or below the current sequence: already applied, ignored. */
        STALE,
        /** An update skipped a sequence number: the view is cleared until a new snapshot. */
        GAP,
        /** An update while there is no valid snapshot: ignored. */
        NO_SNAPSHOT
    }

    private final String market;
    private final Ladder bids = new Ladder(true);
    private final Ladder asks = new Ladder(false);
    private boolean valid;
    private long updateSeq;

    public BookView(final String market)
    {
        this.market = market;
    }

    public String market()
    {
        return market;
    }

    /** Replaces the whole view. */
    public Result onSnapshot(final BookSnapshot snapshot)
    {
        if (!market.equals(snapshot.getMarket()))
        {
            return Result.OTHER_MARKET;
        }
        bids.clear();
        asks.clear();
        for (int i = 0, n = snapshot.getBidsCount(); i < n; i++)
        {
            final Level level = snapshot.getBids(i);
            bids.set(level.getPrice(), level.getGpus());
        }
        for (int i = 0, n = snapshot.getAsksCount(); i < n; i++)
        {
            final Level level = snapshot.getAsks(i);
            asks.set(level.getPrice(), level.getGpus());
        }
        updateSeq = snapshot.getUpdateSeq();
        valid = true;
        return Result.APPLIED;
    }

    /** Applies the changed levels if the update is the next one. */
    public Result onUpdate(final BookUpdate update)
    {
        if (!market.equals(update.getMarket()))
        {
            return Result.OTHER_MARKET;
        }
        if (!valid)
        {
            return Result.NO_SNAPSHOT;
        }
        final long seq = update.getUpdateSeq();
        if (seq <= updateSeq)
        {
            return Result.STALE;
        }
        if (seq != updateSeq + 1)
        {
            clear();
            return Result.GAP;
        }
        for (int i = 0, n = update.getBidsCount(); i < n; i++)
        {
            final Level level = update.getBids(i);
            bids.set(level.getPrice(), level.getGpus());
        }
        for (int i = 0, n = update.getAsksCount(); i < n; i++)
        {
            final Level level = update.getAsks(i);
            asks.set(level.getPrice(), level.getGpus());
        }
        updateSeq = seq;
        return Result.APPLIED;
    }

    /** Forgets everything; updates are ignored until the next snapshot. */
    public void clear()
    {
        bids.clear();
        asks.clear();
        valid = false;
    }

    /** True between a snapshot and a gap. */
    public boolean isValid()
    {
        return valid;
    }

    /** The sequence of the last snapshot or update applied. */
    public long updateSeq()
    {
        return updateSeq;
    }

    public int bidLevels()
    {
        return bids.size;
    }

    public int askLevels()
    {
        return asks.size;
    }

    /** The price of the i-th best bid level (0 = best). */
    public long bidPrice(final int level)
    {
        return bids.price(level);
    }

    public long bidGpus(final int level)
    {
        return bids.gpus(level);
    }

    public long askPrice(final int level)
    {
        return asks.price(level);
    }

    public long askGpus(final int level)
    {
        return asks.gpus(level);
    }

    /** The best bid's price, 0 if there is none. */
    public long bestBid()
    {
        return bids.size == 0 ? 0 : bids.prices[0];
    }

    /** The best ask's price, 0 if there is none. */
    public long bestAsk()
    {
        return asks.size == 0 ? 0 : asks.prices[0];
    }

    /** The GPUs at a price on a side, 0 if there is no such level. */
    public long gpusAt(final Side side, final long price)
    {
        final Ladder ladder = side == Side.BID ? bids : side == Side.ASK ? asks : null;
        if (ladder == null)
        {
            throw new IllegalArgumentException("side must be BID or ASK");
        }
        final int index = ladder.find(price);
        return index >= 0 ? ladder.gpus[index] : 0;
    }

    @Override
    public String toString()
    {
        final StringBuilder sb = new StringBuilder(market).append(" bids=");
        bids.appendTo(sb);
        sb.append(" asks=");
        asks.appendTo(sb);
        return sb.toString();
    }

    /** One side: parallel arrays of price and GPUs, best first. */
    private static final class Ladder
    {
        private final boolean descending;
        private long[] prices = new long[32];
        private long[] gpus = new long[32];
        private int size;

        Ladder(final boolean descending)
        {
            this.descending = descending;
        }

        void clear()
        {
            size = 0;
        }

        long price(final int level)
        {
            checkLevel(level);
            return prices[level];
        }

        long gpus(final int level)
        {
            checkLevel(level);
            return gpus[level];
        }

        /** Sets a level's GPUs; 0 removes it. */
        void set(final long price, final long levelGpus)
        {
            final int index = find(price);
            if (index >= 0)
            {
                if (levelGpus == 0)
                {
                    System.arraycopy(prices, index + 1, prices, index, size - index - 1);
                    System.arraycopy(gpus, index + 1, gpus, index, size - index - 1);
                    size--;
                }
                else
                {
                    gpus[index] = levelGpus;
                }
                return;
            }
            if (levelGpus == 0)
            {
                return;
            }
            final int insertAt = -index - 1;
            if (size == prices.length)
            {
                prices = Arrays.copyOf(prices, size * 2);
                gpus = Arrays.copyOf(gpus, size * 2);
            }
            System.arraycopy(prices, insertAt, prices, insertAt + 1, size - insertAt);
            System.arraycopy(gpus, insertAt, gpus, insertAt + 1, size - insertAt);
            prices[insertAt] = price;
            gpus[insertAt] = levelGpus;
            size++;
        }

        /** The index of the price, or {@code -(insertion point) - 1}, in best-first order. */
        int find(final long price)
        {
            int low = 0;
            int high = size - 1;
            while (low <= high)
            {
                final int mid = (low + high) >>> 1;
                final long p = prices[mid];
                if (p == price)
                {
                    return mid;
                }
                final boolean before = descending ? p > price : p < price;
                if (before)
                {
                    low = mid + 1;
                }
                else
                {
                    high = mid - 1;
                }
            }
            return -low - 1;
        }

        void appendTo(final StringBuilder sb)
        {
            if (size == 0)
            {
                sb.append('-');
            }
            for (int i = 0; i < size; i++)
            {
                if (i > 0)
                {
                    sb.append(',');
                }
                Money.appendPrice(sb, prices[i]).append(':').append(gpus[i]);
            }
        }

        private void checkLevel(final int level)
        {
            if (level < 0 || level >= size)
            {
                throw new IndexOutOfBoundsException("level " + level + " of " + size);
            }
        }
    }
}
