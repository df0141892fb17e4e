package io.gpux.client;

import io.gpux.common.Money;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.proto.v1.BookSnapshot;
import io.gpux.proto.v1.BookUpdate;
import io.gpux.proto.v1.Level;
import io.gpux.proto.v1.Side;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class BookViewTest
{
    private static final String MARKET = "H100-SXM-80G";

    private static Level level(final String price, final long gpus)
    {
        return Level.newBuilder().setPrice(Money.parsePrice(price)).setGpus(gpus).build();
    }

    private static BookSnapshot snapshot(final long seq)
    {
        return BookSnapshot.newBuilder().setMarket(MARKET).setUpdateSeq(seq)
            .addBids(level("2.5000", 8)).addBids(level("2.4000", 4)).addBids(level("2.0000", 1))
            .addAsks(level("2.6000", 2)).addAsks(level("3.0000", 16))
            .build();
    }

    private static BookUpdate.Builder update(final long seq)
    {
        return BookUpdate.newBuilder().setMarket(MARKET).setUpdateSeq(seq);
    }

    @Test
    void snapshotIsSortedBestFirst()
    {
        final BookView view = new BookView(MARKET);
        // deliberately out of order: the view sorts
        assertEquals(BookView.Result.APPLIED, view.onSnapshot(BookSnapshot.newBuilder().setMarket(MARKET).setUpdateSeq(5)
            .addBids(level("2.0000", 1)).addBids(level("2.5000", 8))
            .addAsks(level("3.0000", 16)).addAsks(level("2.6000", 2)).build()));
        assertTrue(view.isValid());
        assertEquals(5, view.updateSeq());
        assertEquals(Money.parsePrice("2.5000"), view.bestBid());
        assertEquals(Money.parsePrice("2.6000"), view.bestAsk());
        assertEquals(Money.parsePrice("2.0000"), view.bidPrice(1));
        assertEquals(16, view.askGpus(1));
        assertEquals("H100-SXM-80G bids=2.5000:8,2.0000:1 asks=2.6000:2,3.0000:16", view.toString());
    }

    @Test
    void updatesChangeAddAndRemoveLevels()
    {
        final BookView view = new BookView(MARKET);
        view.onSnapshot(snapshot(10));
        assertEquals(BookView.Result.APPLIED, view.onUpdate(update(11)
            .addBids(level("2.4000", 0))        // removed
            .addBids(level("2.7000", 3))        // new best bid
            .addBids(level("2.5000", 6))        // changed
            .addAsks(level("2.6000", 0))        // best ask removed
            .addAsks(level("2.8000", 5))        // new level between
            .addAsks(level("9.9999", 0))        // removing an unknown level is a no-op
            .build()));
        assertEquals(11, view.updateSeq());
        assertEquals("H100-SXM-80G bids=2.7000:3,2.5000:6,2.0000:1 asks=2.8000:5,3.0000:16", view.toString());
        assertEquals(6, view.gpusAt(Side.BID, Money.parsePrice("2.5000")));
        assertEquals(0, view.gpusAt(Side.BID, Money.parsePrice("2.4000")));
        assertEquals(0, view.gpusAt(Side.ASK, Money.parsePrice("2.6000")));
        assertThrows(IllegalArgumentException.class, () -> view.gpusAt(Side.SIDE_UNSPECIFIED, 1));
        assertThrows(IndexOutOfBoundsException.class, () -> view.askPrice(2));
    }

    @Test
    void aGapInvalidatesTheViewUntilTheNextSnapshot()
    {
        final BookView view = new BookView(MARKET);
        view.onSnapshot(snapshot(10));
        assertEquals(BookView.Result.APPLIED, view.onUpdate(update(11).addBids(level("2.5000", 7)).build()));
        assertEquals(BookView.Result.GAP, view.onUpdate(update(13).addBids(level("2.5000", 1)).build()));
        assertFalse(view.isValid());
        assertEquals(0, view.bidLevels());
        assertEquals(0, view.bestBid());
        assertEquals(BookView.Result.NO_SNAPSHOT, view.onUpdate(update(14).build()));

        assertEquals(BookView.Result.APPLIED, view.onSnapshot(snapshot(20)));
        assertEquals(BookView.Result.APPLIED, view.onUpdate(update(21).addAsks(level("2.6000", 0)).build()));
        assertEquals(Money.parsePrice("3.0000"), view.bestAsk());
    }

    @Test
    void staleAndForeignUpdatesAreIgnored()
    {
        final BookView view = new BookView(MARKET);
        assertEquals(BookView.Result.NO_SNAPSHOT, view.onUpdate(update(1).build()));
        view.onSnapshot(snapshot(10));
        assertEquals(BookView.Result.STALE, view.onUpdate(update(10).addBids(level("2.5000", 0)).build()));
        assertEquals(BookView.Result.STALE, view.onUpdate(update(3).build()));
        assertEquals(BookView.Result.OTHER_MARKET,
            view.onUpdate(BookUpdate.newBuilder().setMarket("RTX4090-24G").setUpdateSeq(11).build()));
        assertEquals(BookView.Result.OTHER_MARKET,
            view.onSnapshot(BookSnapshot.newBuilder().setMarket("RTX4090-24G").build()));
        assertEquals(8, view.bidGpus(0));
        assertTrue(view.isValid());
    }

    @Test
    void matchesAReferenceMapUnderRandomUpdates()
    {
        final BookView view = new BookView(MARKET);
        final TreeMap<Long, Long> bids = new TreeMap<>();
        final TreeMap<Long, Long> asks = new TreeMap<>();
        view.onSnapshot(BookSnapshot.newBuilder().setMarket(MARKET).setUpdateSeq(0).build());
        final SplittableRandom random = new SplittableRandom(42);
        for (long seq = 1; seq <= 2_000; seq++)
        {
            final BookUpdate.Builder update = update(seq);
            for (int i = random.nextInt(4); i >= 0; i--)
            {
                final long price = 1 + random.nextInt(100);
                final long gpus = random.nextInt(3) == 0 ? 0 : 1 + random.nextInt(64);
                final boolean bid = random.nextBoolean();
                (bid ? bids : asks).remove(price);
                if (gpus > 0)
                {
                    (bid ? bids : asks).put(price, gpus);
                }
                final Level level = Level.newBuilder().setPrice(price).setGpus(gpus).build();
                if (bid)
                {
                    update.addBids(level);
                }
                else
                {
                    update.addAsks(level);
                }
            }
            assertEquals(BookView.Result.APPLIED, view.onUpdate(update.build()));
            assertEquals(bids.size(), view.bidLevels());
            assertEquals(asks.size(), view.askLevels());
            int i = 0;
            for (final var entry : bids.descendingMap().entrySet())
            {
                assertEquals(entry.getKey(), view.bidPrice(i));
                assertEquals(entry.getValue(), view.bidGpus(i++));
            }
            i = 0;
            for (final var entry : asks.entrySet())
            {
                assertEquals(entry.getKey(), view.askPrice(i));
                assertEquals(entry.getValue(), view.askGpus(i++));
            }
        }
    }
}
