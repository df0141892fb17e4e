package io.gpux.gateway;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.Quote;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.command.TimeInForce;
import io.gpux.common.Money;
import io.gpux.engine.market.Market;
import io.gpux.core.pipeline.Query;
import io.gpux.gateway.codec.HotRequest;
import io.gpux.gateway.directory.Directory;
import io.gpux.gateway.directory.MachineTelemetry;
import io.gpux.gateway.egress.Egress;
import io.gpux.gateway.egress.PortfolioView;
import io.gpux.gateway.egress.ProtoMapping;
import io.gpux.gateway.egress.WorkProbe;
import io.gpux.gateway.marketdata.MarketData;
import io.gpux.gateway.marketdata.PriceHistory;
import io.gpux.gateway.session.Session;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.HistoryRequest;
import io.gpux.proto.v1.MarketInfo;
import io.gpux.proto.v1.Markets;
import io.gpux.proto.v1.QuoteFill;
import io.gpux.proto.v1.QuotePreemption;
import io.gpux.proto.v1.QuoteRequest;
import io.gpux.proto.v1.QuoteResult;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Response;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The read-only requests, as queries run on the core thread between commands: each reads the
 * engine's state exactly as the commands before it left it, and hands its answer to the egress.
 */
final class Queries
{
    private final Directory directory;
    private final MarketData marketData;
    private final Map<Long, MachineTelemetry> telemetry;
    private Egress egress;
    /** Core thread only. */
    private final Command scratch = new Command();
    private final Quote quote = new Quote();
    /** Times each portfolio copy for a benchmark's probe; null: not timed. Used on the core thread only. */
    private volatile WorkProbe.Timer portfolioCopy;

    Queries(final Directory directory, final MarketData marketData, final Map<Long, MachineTelemetry> telemetry)
    {
        PortfolioView.load();
        this.directory = directory;
        this.marketData = marketData;
        this.telemetry = telemetry;
    }

    void workProbe(final WorkProbe probe)
    {
        portfolioCopy = WorkProbe.Timer.of(probe, WorkProbe.Work.PORTFOLIO_COPY);
    }

    void egress(final Egress egress)
    {
        this.egress = egress;
    }

    private void answer(final Session s, final Envelope.Builder env)
    {
        egress.put(new Egress.Direct(s.id, env.build()));
    }

    Query quote(final Session s, final long rid, final QuoteRequest q)
    {
        final Directory.MarketEntry m = directory.market(q.getMarket());
        return engine ->
        {
            final QuoteResult.Builder r = QuoteResult.newBuilder();
            if (m == null || q.getGpus() < 0 || q.getMinReliabilityPpm() > 1_000_000 || q.getMaxDurationMs() < 0
                || !HotRequest.isTimeInForce(q.getTifValue()))
            {
                r.setReject(m == null ? Reason.UNKNOWN_MARKET : Reason.INVALID_PARAMETER);
                answer(s, Envelope.newBuilder().setRequestId(rid).setQuoteResult(r));
                return;
            }
            final Command c = scratch.reset(CommandType.BID, engine.lastCommandTime());
            c.accountId = s.accountId;
            c.marketId = m.id();
            c.gpus = q.getGpus();
            c.price = q.getPrice();
            c.tif = switch (q.getTifValue())
            {
                case 1 -> TimeInForce.IOC;
                case 2 -> TimeInForce.FOK;
                default -> TimeInForce.GTC;
            };
            c.gang = q.getGang();
            c.minReliabilityPpb = q.getMinReliabilityPpm() == 0 ? Command.ABSENT : q.getMinReliabilityPpm() * 1000;
            c.regionId = Directory.nameId(q.getRegion());
            c.maxDurationMs = q.getMaxDurationMs() == 0 ? Command.ABSENT : q.getMaxDurationMs();
            engine.quote(c, quote);
            r.setReject(ProtoMapping.reason(quote.reject))
                .setFilledGpus(quote.filledGpus)
                .setPreemptedGpus(quote.preemptedGpus)
                .setRestingGpus(quote.restingGpus)
                .setHold(quote.hold)
                .setEffectiveMs(quote.effectiveMs);
            for (int i = 0; i < quote.fillCount; i++)
            {
                r.addFills(QuoteFill.newBuilder().setMachineId(quote.fillMachine[i]).setGpus(quote.fillGpus[i])
                    .setPrice(quote.fillPrice[i]));
            }
            for (int i = 0; i < quote.preemptionCount; i++)
            {
                r.addPreemptions(QuotePreemption.newBuilder().setLeaseId(quote.preemptLease[i])
                    .setMachineId(quote.preemptMachine[i]).setGpus(quote.preemptGpus[i])
                    .setLeasePrice(quote.preemptLeasePrice[i]));
            }
            if (q.getDurationMs() > 0)
            {
                r.setTotal(total(quote, q.getGpus(), q.getPrice(), q.getDurationMs()));
            }
            reach(engine, m, c.regionId, q, r);
            answer(s, Envelope.newBuilder().setRequestId(rid).setQuoteResult(r));
        };
    }

    /** What the bid's GPUs would cost for {@code durationMs}: the fills at their prices, the rest at the bid's. */
    static long total(final Quote quote, final int gpus, final long price, final long durationMs)
    {
        long total = 0;
        int rest = gpus;
        for (int i = 0; i < quote.fillCount; i++)
        {
            total = saturatedAdd(total, Money.cost(quote.fillGpus[i], quote.fillPrice[i], durationMs));
            rest -= quote.fillGpus[i];
        }
        return saturatedAdd(total, Money.cost(Math.max(0, rest), price, durationMs));
    }

    private static long saturatedAdd(final long a, final long b)
    {
        final long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    /**
     * The market's machines the bid's region admits, their largest and their total GPUs (kept by the
     * market as machines register, so the quote walks no machines), and the warning when they can never
     * fill the bid whole.
     */
    private static void reach(final MatchingEngine engine, final Directory.MarketEntry m, final long regionId,
        final QuoteRequest q, final QuoteResult.Builder r)
    {
        final Market market = engine.market(m.id());
        final long largest = market == null ? 0 : market.largestMachineGpus(regionId);
        final long all = market == null ? 0 : market.machineGpus(regionId);
        r.setLargestMachineGpus((int)Math.min(largest, Integer.MAX_VALUE)).setMarketGpus((int)Math.min(all, Integer.MAX_VALUE));
        final String where = m.symbol() + (q.getRegion().isEmpty() ? "" : " in region " + q.getRegion());
        if (all == 0 && q.getGpus() > 0)
        {
            r.setWarning("no machine of " + where + " is registered: the bid cannot fill until one is");
        }
        else if (q.getGang() && q.getGpus() > largest)
        {
            r.setWarning("a gang of " + q.getGpus() + " GPUs is larger than any machine of " + where + " (the largest has "
                + largest + "): it can never fill whole");
        }
        else if (q.getGpus() > all)
        {
            r.setWarning(q.getGpus() + " GPUs are more than all the machines of " + where + " have together (" + all
                + "): it can never fill whole");
        }
    }

    /**
     * Copies the account's orders, leases and machines on the core thread (walking only its own lists);
     * the egress encodes the answer.
     */
    Query portfolio(final Session s, final long rid)
    {
        return engine ->
        {
            final WorkProbe.Timer timer = portfolioCopy;
            if (timer != null)
            {
                timer.start();
            }
            final io.gpux.engine.funds.Account account = engine.account(s.accountId);
            final PortfolioView view = PortfolioView.copy(account, engine.lastCommandTime(), directory, telemetry);
            if (timer != null)
            {
                timer.stop();
            }
            egress.put(new Egress.PortfolioAnswer(s, rid, view, engine.eventSequence(), account == null ? 0 : account.lastSeq));
        };
    }

    /**
     * Every market, its parameters and its book's best prices now; the egress adds the last price and
     * the last 24 hours' trading from its price history once it has sent the events up to this point.
     */
    Query markets(final Session s, final long rid)
    {
        return engine ->
        {
            final Markets.Builder all = Markets.newBuilder();
            final List<Market> sorted = new ArrayList<>();
            engine.markets().forEach(sorted::add);
            sorted.sort(Comparator.comparingLong(m -> m.id));
            final long[] ids = new long[sorted.size()];
            for (int i = 0; i < ids.length; i++)
            {
                final Market m = sorted.get(i);
                ids[i] = m.id;
                final MarketInfo.Builder info = MarketInfo.newBuilder().setSymbol(m.name).setTick(m.tick)
                    .setPreemption(m.preemption).setGraceMs(m.graceMs).setMinIncrement(m.minIncrement).setFeeBps(m.feeBps)
                    .setPrepayMs(m.prepayMs).setMaxGpusPerOrder(m.maxGpusPerOrder).setHalted(m.halted)
                    .setPreemptIncrementBps(m.preemptIncrementBps).setFragmentFirst(m.fragmentFirst);
                if (m.bids.levelCount() > 0)
                {
                    info.setBestBid(m.bids.level(0).price());
                }
                if (m.asks.levelCount() > 0)
                {
                    info.setBestAsk(m.asks.level(0).price());
                }
                all.addMarkets(info);
            }
            final long now = Math.max(0, engine.lastCommandTime());
            egress.put(new Egress.HistoryRead(s, engine.eventSequence(), history ->
            {
                for (int i = 0; i < ids.length; i++)
                {
                    final PriceHistory.Summary traded = history.summary(ids[i], now);
                    if (traded.traded())
                    {
                        all.getMarketsBuilder(i).setLastPrice(traded.lastPrice()).setVolume24H(traded.volume24h())
                            .setTrades24H(traded.trades24h());
                    }
                }
                return Envelope.newBuilder().setRequestId(rid).setMarkets(all).build();
            }));
        };
    }

    /** A market's candles, answered by the egress from its price history (not a query of the core). */
    void history(final Session s, final long rid, final HistoryRequest request)
    {
        final Directory.MarketEntry m = directory.market(request.getMarket());
        final PriceHistory.Interval interval = PriceHistory.Interval.of(request.getInterval());
        final long from = request.hasFromMs() ? request.getFromMs() : Long.MIN_VALUE;
        final long to = request.hasToMs() ? request.getToMs() : Long.MAX_VALUE;
        final String problem = m == null ? request.getMarket()
            : interval == null ? "interval must be one of 1m, 5m, 1h, 1d (INTERVAL_1M ... INTERVAL_1D)"
            : from >= to ? "from_ms must be before to_ms" : null;
        if (problem != null)
        {
            answer(s, Envelope.newBuilder().setRequestId(rid).setResponse(Response.newBuilder()
                .setReason(m == null ? Reason.UNKNOWN_MARKET : Reason.INVALID_REQUEST).setMessage(problem)));
            return;
        }
        egress.put(new Egress.HistoryRead(s, 0, history -> Envelope.newBuilder().setRequestId(rid)
            .setHistory(history.history(m.id(), interval, from, to).setMarket(m.symbol())).build()));
    }

    Query subscribe(final Session s, final long rid, final long marketId)
    {
        return engine ->
        {
            final Envelope snapshot = marketData.snapshot(engine, marketId);
            if (snapshot == null)
            {
                answer(s, Envelope.newBuilder().setRequestId(rid).setResponse(
                    Response.newBuilder().setReason(Reason.UNKNOWN_MARKET)));
                return;
            }
            egress.put(new Egress.Subscribed(s, marketId, snapshot.toBuilder().setRequestId(rid).build()));
        };
    }
}
