package io.gpux.gateway;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.Quote;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.command.TimeInForce;
import io.gpux.engine.market.Market;
import io.gpux.engine.pipeline.Query;
import io.gpux.gateway.codec.HotRequest;
import io.gpux.gateway.directory.Directory;
import io.gpux.gateway.egress.Egress;
import io.gpux.gateway.egress.PortfolioView;
import io.gpux.gateway.egress.ProtoMapping;
import io.gpux.gateway.marketdata.MarketData;
import io.gpux.gateway.session.Session;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.GpuTelemetry;
import io.gpux.proto.v1.MarketInfo;
import io.gpux.proto.v1.Markets;
import io.gpux.proto.v1.QuoteFill;
import io.gpux.proto.v1.QuotePreemption;
import io.gpux.proto.v1.QuoteRequest;
import io.gpux.proto.v1.QuoteResult;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Response;

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
    private final Map<Long, List<GpuTelemetry>> telemetry;
    private Egress egress;
    /** Core thread only. */
    private final Command scratch = new Command();
    private final Quote quote = new Quote();

    Queries(final Directory directory, final MarketData marketData, final Map<Long, List<GpuTelemetry>> telemetry)
    {
        this.directory = directory;
        this.marketData = marketData;
        this.telemetry = telemetry;
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
            answer(s, Envelope.newBuilder().setRequestId(rid).setQuoteResult(r));
        };
    }

    /**
     * Copies the account's orders, leases and machines on the core thread (walking only its own lists);
     * the egress encodes the answer.
     */
    Query portfolio(final Session s, final long rid)
    {
        return engine -> egress.put(new Egress.PortfolioAnswer(s, rid,
            PortfolioView.copy(engine.account(s.accountId), directory, telemetry), engine.eventSequence()));
    }

    Query markets(final Session s, final long rid)
    {
        return engine -> answer(s, Envelope.newBuilder().setRequestId(rid).setMarkets(markets(engine)));
    }

    static Markets.Builder markets(final MatchingEngine engine)
    {
        final Markets.Builder all = Markets.newBuilder();
        final java.util.List<Market> sorted = new java.util.ArrayList<>();
        engine.markets().forEach(sorted::add);
        sorted.sort(java.util.Comparator.comparingLong(m -> m.id));
        for (final Market m : sorted)
        {
            all.addMarkets(MarketInfo.newBuilder().setSymbol(m.name).setTick(m.tick).setPreemption(m.preemption)
                .setGraceMs(m.graceMs).setMinIncrement(m.minIncrement).setFeeBps(m.feeBps).setPrepayMs(m.prepayMs)
                .setMaxGpusPerOrder(m.maxGpusPerOrder).setHalted(m.halted));
        }
        return all;
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
