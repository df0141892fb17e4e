package io.gpux.gateway.offers;

import io.gpux.engine.pipeline.Query;
import io.gpux.gateway.directory.Directory;
import io.gpux.gateway.directory.MachineTelemetry;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Offer;
import io.gpux.proto.v1.Offers;

import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * Answers offer searches. The core thread only copies the offers out of the engine
 * ({@link OfferSnapshot}); the filters, the sort, the names, the telemetry ages and the encoding run on
 * the executor the caller names (the connection's event loop), so a search holds up the exchange for
 * one pass over its machines and no longer.
 */
public final class OfferQueries
{
    private final Directory directory;
    private final Map<Long, MachineTelemetry> telemetry;

    public OfferQueries(final Directory directory, final Map<Long, MachineTelemetry> telemetry)
    {
        this.directory = directory;
        this.telemetry = telemetry;
    }

    /**
     * The query that copies the offers a search needs, then hands the answer (an {@link Offers} with
     * the request id) to {@code answer}, on {@code executor}.
     */
    public Query search(final OfferSearch search, final long requestId, final Executor executor,
        final Consumer<Envelope> answer)
    {
        return engine ->
        {
            final OfferSnapshot snapshot = OfferSnapshot.capture(engine, search.marketId());
            executor.execute(() -> answer.accept(
                Envelope.newBuilder().setRequestId(requestId).setOffers(encode(snapshot, search)).build()));
        };
    }

    /** The answer to a search over a snapshot. */
    public Offers.Builder encode(final OfferSnapshot snapshot, final OfferSearch search)
    {
        final OfferSearch.Result result = search.apply(snapshot.rows());
        final Offers.Builder offers = Offers.newBuilder().setMatched(result.matched()).setTimeMs(snapshot.timeMs());
        for (final OfferRow row : result.rows())
        {
            final MachineTelemetry t = telemetry.get(row.machineId());
            offers.addOffers(Offer.newBuilder()
                .setMachineId(row.machineId())
                .setMarket(directory.marketSymbol(row.marketId()))
                .setGpus(row.gpus())
                .setFreeGpus(row.freeGpus())
                .setPrice(row.price())
                .setReliabilityPpm(row.reliabilityPpm())
                .setRegion(directory.nameOf(row.regionId()))
                .setInterconnect(directory.nameOf(row.interconnectId()))
                .setVramGb((int)Math.min(row.vramGb(), Integer.MAX_VALUE))
                .setTelemetryAgeMs(t == null ? -1 : Math.max(0, snapshot.timeMs() - t.receivedMs()))
                .setOwnerMachines((int)snapshot.machinesOf(row.ownerId())));
        }
        return offers;
    }
}
