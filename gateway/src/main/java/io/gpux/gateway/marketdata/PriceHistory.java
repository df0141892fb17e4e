package io.gpux.gateway.marketdata;

import io.gpux.proto.v1.Candle;
import io.gpux.proto.v1.CandleInterval;
import io.gpux.proto.v1.History;
import org.agrona.collections.Long2ObjectHashMap;

import java.util.ArrayList;
import java.util.Arrays;

/**
 * The exchange's price history: per market, OHLC candles of each {@link Interval} and the last trade,
 * built from the trades of the event journal. One thread owns it (the egress's, which loads every
 * trade of the journal from its start after the gateway starts, a bounded slice per duty cycle, so the
 * history survives a restart without a file of its own), and feeding it a trade allocates nothing once
 * the market has traded.
 *
 * <p>Memory is bounded: per market and interval a ring of {@link #SLOTS} candles indexed by the
 * candle's start, so a candle is kept for {@code SLOTS} intervals (1m: a day, 5m: five days, 1h: sixty
 * days, 1d: about four years) and then overwritten. A trade older than the candle in its slot (the
 * exchange's clock went back) is left out of that interval's history.
 */
public final class PriceHistory
{
    /** Candles kept per market and interval: a day of one-minute candles. */
    public static final int SLOTS = 1440;
    /** Candles in one answer at most (the newest of the range), so an answer fits one frame. */
    public static final int MAX_CANDLES_PER_ANSWER = 500;
    private static final long DAY_MS = 86_400_000L;

    /** The intervals kept, in the order of {@link CandleInterval}'s values. */
    public enum Interval
    {
        ONE_MINUTE(60_000L, CandleInterval.INTERVAL_1M, "1m"),
        FIVE_MINUTES(300_000L, CandleInterval.INTERVAL_5M, "5m"),
        ONE_HOUR(3_600_000L, CandleInterval.INTERVAL_1H, "1h"),
        ONE_DAY(DAY_MS, CandleInterval.INTERVAL_1D, "1d");

        private static final Interval[] ALL = values();
        public final long ms;
        public final CandleInterval wire;
        public final String label;

        Interval(final long ms, final CandleInterval wire, final String label)
        {
            this.ms = ms;
            this.wire = wire;
            this.label = label;
        }

        /** The interval of a wire value, or null for none or an unknown one. */
        public static Interval of(final CandleInterval wire)
        {
            for (final Interval i : ALL)
            {
                if (i.wire == wire)
                {
                    return i;
                }
            }
            return null;
        }
    }

    /** One interval's ring of candles; a slot whose start is {@link Long#MIN_VALUE} is empty. */
    private static final class Ring
    {
        final long ms;
        final long[] start = new long[SLOTS];
        final long[] open = new long[SLOTS];
        final long[] high = new long[SLOTS];
        final long[] low = new long[SLOTS];
        final long[] close = new long[SLOTS];
        final long[] volume = new long[SLOTS];
        final int[] trades = new int[SLOTS];
        long newest = Long.MIN_VALUE;

        Ring(final long ms)
        {
            this.ms = ms;
            Arrays.fill(start, Long.MIN_VALUE);
        }

        void add(final long timeMs, final long price, final int gpus)
        {
            final long begins = Math.floorDiv(timeMs, ms) * ms;
            final int i = slot(begins);
            if (start[i] > begins)
            {
                return;
            }
            if (start[i] != begins)
            {
                start[i] = begins;
                open[i] = price;
                high[i] = price;
                low[i] = price;
                volume[i] = 0;
                trades[i] = 0;
            }
            high[i] = Math.max(high[i], price);
            low[i] = Math.min(low[i], price);
            close[i] = price;
            volume[i] += gpus;
            trades[i]++;
            newest = Math.max(newest, begins);
        }

        int slot(final long begins)
        {
            return (int)Math.floorMod(Math.floorDiv(begins, ms), (long)SLOTS);
        }
    }

    private static final class Market
    {
        final Ring[] rings = new Ring[Interval.ALL.length];
        long lastPrice;
        long lastTimeMs;

        Market()
        {
            for (int i = 0; i < rings.length; i++)
            {
                rings[i] = new Ring(Interval.ALL[i].ms);
            }
        }
    }

    /** A market's trading over the last 24 hours (the figures of {@code gpux markets}). */
    public record Summary(boolean traded, long lastPrice, long volume24h, int trades24h)
    {
        static final Summary NONE = new Summary(false, 0, 0, 0);
    }

    private final Long2ObjectHashMap<Market> markets = new Long2ObjectHashMap<>();

    /** A trade of the market (the journal's TRADE event). */
    public void onTrade(final long marketId, final long timeMs, final long price, final int gpus)
    {
        Market m = markets.get(marketId);
        if (m == null)
        {
            m = new Market();
            markets.put(marketId, m);
        }
        for (final Ring ring : m.rings)
        {
            ring.add(timeMs, price, gpus);
        }
        if (timeMs >= m.lastTimeMs)
        {
            m.lastTimeMs = timeMs;
            m.lastPrice = price;
        }
    }

    /**
     * The market's last price and what traded in the 24 hours before {@code nowMs}, in whole minutes:
     * the one-minute candles starting after {@code nowMs - 24h}, the current minute's included.
     */
    public Summary summary(final long marketId, final long nowMs)
    {
        final Market m = markets.get(marketId);
        if (m == null)
        {
            return Summary.NONE;
        }
        final Ring minutes = m.rings[Interval.ONE_MINUTE.ordinal()];
        final long after = nowMs - DAY_MS;
        long volume = 0;
        int trades = 0;
        for (int i = 0; i < SLOTS; i++)
        {
            final long begins = minutes.start[i];
            if (begins != Long.MIN_VALUE && begins > after && begins <= nowMs)
            {
                volume += minutes.volume[i];
                trades += minutes.trades[i];
            }
        }
        return new Summary(true, m.lastPrice, volume, trades);
    }

    /**
     * The candles of one market and interval that start in {@code [fromMs, toMs)}, oldest first, the
     * newest {@link #MAX_CANDLES_PER_ANSWER} of them at most ({@code more} says whether older ones were
     * left out).
     */
    public History.Builder history(final long marketId, final Interval interval, final long fromMs, final long toMs)
    {
        final History.Builder answer = History.newBuilder().setInterval(interval.wire);
        final Market m = markets.get(marketId);
        if (m == null)
        {
            return answer;
        }
        final Ring ring = m.rings[interval.ordinal()];
        if (ring.newest == Long.MIN_VALUE)
        {
            return answer;
        }
        final long last = Math.min(ring.newest, toMs == Long.MAX_VALUE ? Long.MAX_VALUE : toMs - 1);
        final long oldestKept = ring.newest - (SLOTS - 1) * ring.ms;
        final long first = Math.max(oldestKept, fromMs);
        if (first > last)
        {
            return answer;
        }
        // the newest first, then reversed: the answer keeps the newest candles of a range too long for it
        final long lastBegins = Math.floorDiv(last, ring.ms) * ring.ms;
        final ArrayList<Candle> newestFirst = new ArrayList<>();
        for (long begins = lastBegins; begins >= first && begins >= oldestKept; begins -= ring.ms)
        {
            final int i = ring.slot(begins);
            if (ring.start[i] != begins)
            {
                continue;
            }
            if (newestFirst.size() == MAX_CANDLES_PER_ANSWER)
            {
                answer.setMore(true);
                break;
            }
            newestFirst.add(Candle.newBuilder().setStartMs(begins).setOpen(ring.open[i]).setHigh(ring.high[i])
                .setLow(ring.low[i]).setClose(ring.close[i]).setVolume(ring.volume[i]).setTrades(ring.trades[i]).build());
        }
        for (int k = newestFirst.size() - 1; k >= 0; k--)
        {
            answer.addCandles(newestFirst.get(k));
        }
        return answer;
    }
}
