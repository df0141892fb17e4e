package io.gpux.gateway.marketdata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.engine.StressTries;
import io.gpux.proto.v1.Candle;
import io.gpux.proto.v1.History;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import org.junit.jupiter.api.Test;

/**
 * The candles against a reference that keeps every trade and recomputes them: the same open, high,
 * low, close, volume and count for every interval, over the window the ring keeps, and the answer's
 * bounds and truncation.
 *
 * <p>Ten times the tries under {@code -Pstress} ({@link StressTries}).
 */
@AddLifecycleHook(StressTries.class)
class PriceHistoryProperties
{
    record T(long timeMs, long price, int gpus)
    {
    }

    /** Trades in time order, with gaps from a second to a few days (so the rings wrap). */
    @Provide
    Arbitrary<List<T>> trades()
    {
        final Arbitrary<Long> gap = Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(6, Arbitraries.longs().between(0, 90_000)),
            net.jqwik.api.Tuple.of(3, Arbitraries.longs().between(0, 4 * 3_600_000L)),
            net.jqwik.api.Tuple.of(1, Arbitraries.longs().between(0, 3 * 86_400_000L)));
        final Arbitrary<long[]> step = Combinators.combine(gap, Arbitraries.longs().between(1, 900_000),
            Arbitraries.integers().between(1, 64)).as((g, p, n) -> new long[] {g, p, n});
        return step.list().ofMinSize(1).ofMaxSize(400).map(steps ->
        {
            final List<T> out = new ArrayList<>();
            long t = 1_764_000_000_000L;
            for (final long[] s : steps)
            {
                t += s[0];
                out.add(new T(t, s[1], (int)s[2]));
            }
            return out;
        });
    }

    @Property(tries = 200)
    void candlesAreTheTradesRecomputed(@ForAll("trades") final List<T> trades)
    {
        final PriceHistory history = new PriceHistory();
        for (final T t : trades)
        {
            history.onTrade(7, t.timeMs(), t.price(), t.gpus());
        }
        for (final PriceHistory.Interval interval : PriceHistory.Interval.values())
        {
            final List<Candle> expected = reference(trades, interval.ms);
            final List<Candle> got = new ArrayList<>();
            long to = Long.MAX_VALUE;
            while (true)
            {
                final History page = history.history(7, interval, Long.MIN_VALUE, to).build();
                assertTrue(page.getCandlesCount() <= PriceHistory.MAX_CANDLES_PER_ANSWER);
                got.addAll(0, page.getCandlesList());
                if (!page.getMore())
                {
                    break;
                }
                to = page.getCandles(0).getStartMs();
            }
            assertEquals(expected, got, interval.label);
        }
    }

    @Property(tries = 100)
    void aRangeHoldsTheCandlesStartingInIt(@ForAll("trades") final List<T> trades,
        @ForAll @IntRange(min = 0, max = 3_000) final int fromMinute, @ForAll @IntRange(min = 1, max = 600) final int minutes)
    {
        final PriceHistory history = new PriceHistory();
        trades.forEach(t -> history.onTrade(1, t.timeMs(), t.price(), t.gpus()));
        final long from = trades.get(0).timeMs() + fromMinute * 60_000L;
        final long to = from + minutes * 60_000L;
        final List<Candle> expected = reference(trades, 60_000).stream()
            .filter(c -> c.getStartMs() >= from && c.getStartMs() < to).toList();
        final History answer = history.history(1, PriceHistory.Interval.ONE_MINUTE, from, to).build();
        assertEquals(expected, answer.getCandlesList());
        assertFalse(answer.getMore());
    }

    @Property(tries = 100)
    void theSummaryIsTheLast24Hours(@ForAll("trades") final List<T> trades, @ForAll @IntRange(min = 0, max = 200_000_000) final int after)
    {
        final PriceHistory history = new PriceHistory();
        trades.forEach(t -> history.onTrade(3, t.timeMs(), t.price(), t.gpus()));
        final long now = trades.get(trades.size() - 1).timeMs() + after;
        final long windowStart = Math.floorDiv(now - 86_400_000L, 60_000L) * 60_000L + 60_000L;
        long volume = 0;
        int count = 0;
        for (final T t : trades)
        {
            if (t.timeMs() >= windowStart && t.timeMs() <= now)
            {
                volume += t.gpus();
                count++;
            }
        }
        final PriceHistory.Summary s = history.summary(3, now);
        assertTrue(s.traded());
        assertEquals(trades.get(trades.size() - 1).price(), s.lastPrice());
        assertEquals(volume, s.volume24h());
        assertEquals(count, s.trades24h());
    }

    @Test
    void aMarketWithoutTradesHasNoHistory()
    {
        final PriceHistory history = new PriceHistory();
        assertFalse(history.summary(1, 1_000).traded());
        assertEquals(0, history.history(1, PriceHistory.Interval.ONE_HOUR, Long.MIN_VALUE, Long.MAX_VALUE).getCandlesCount());
    }

    @Property(tries = 20)
    void aLongRangeIsAnsweredNewestFirstInPages(@ForAll @Size(min = 501, max = 900) final List<@IntRange(min = 1, max = 5) Integer> gpus)
    {
        final PriceHistory history = new PriceHistory();
        for (int i = 0; i < gpus.size(); i++)
        {
            history.onTrade(2, i * 60_000L, 10_000 + i, gpus.get(i));
        }
        final History first = history.history(2, PriceHistory.Interval.ONE_MINUTE, Long.MIN_VALUE, Long.MAX_VALUE).build();
        assertTrue(first.getMore());
        assertEquals(PriceHistory.MAX_CANDLES_PER_ANSWER, first.getCandlesCount());
        assertEquals((gpus.size() - 1) * 60_000L, first.getCandles(first.getCandlesCount() - 1).getStartMs(), "the newest kept");
    }

    /** Every trade, candles by interval start, within the window the rings keep (SLOTS intervals back from the newest). */
    private static List<Candle> reference(final List<T> trades, final long ms)
    {
        final TreeMap<Long, List<T>> byStart = new TreeMap<>();
        for (final T t : trades)
        {
            byStart.computeIfAbsent(Math.floorDiv(t.timeMs(), ms) * ms, k -> new ArrayList<>()).add(t);
        }
        final long newest = byStart.lastKey();
        final List<Candle> out = new ArrayList<>();
        byStart.tailMap(newest - (PriceHistory.SLOTS - 1) * ms, true).forEach((start, in) ->
        {
            final Candle.Builder c = Candle.newBuilder().setStartMs(start).setOpen(in.get(0).price())
                .setClose(in.get(in.size() - 1).price()).setTrades(in.size())
                .setHigh(in.stream().mapToLong(T::price).max().orElseThrow())
                .setLow(in.stream().mapToLong(T::price).min().orElseThrow())
                .setVolume(in.stream().mapToLong(T::gpus).sum());
            out.add(c.build());
        });
        return out;
    }
}
