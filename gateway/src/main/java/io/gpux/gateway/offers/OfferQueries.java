package io.gpux.gateway.offers;

import io.gpux.gateway.directory.Directory;
import io.gpux.gateway.directory.MachineTelemetry;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Offer;
import io.gpux.proto.v1.Offers;

import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

import org.agrona.concurrent.EpochClock;

/**
 * Answers offer searches from the {@link OfferBoard}, the offers the core last copied: the filters, the
 * sort, the names, the telemetry ages and the encoding run on the executor the caller names (the
 * connection's event loop), never on the core and never queued behind commands.
 */
public final class OfferQueries
{
    private final Directory directory;
    private final Map<Long, MachineTelemetry> telemetry;
    private final OfferBoard board;
    private final EpochClock clock;

    /** @param clock the exchange's clock, that telemetry times are stamped with: ages are against it. */
    public OfferQueries(final Directory directory, final Map<Long, MachineTelemetry> telemetry, final OfferBoard board,
        final EpochClock clock)
    {
        this.directory = directory;
        this.telemetry = telemetry;
        this.board = board;
        this.clock = clock;
    }

    /**
     * Answers a search from the board: the filters, the sort and the encoding run on {@code executor},
     * which hands the answer (an {@link Offers} with the request id) to {@code answer}.
     */
    public void search(final OfferSearch search, final long requestId, final Executor executor,
        final Consumer<Envelope> answer)
    {
        board.read(snapshot -> executor.execute(() -> answer.accept(
            Envelope.newBuilder().setRequestId(requestId).setOffers(encode(snapshot, search)).build())));
    }

    /** The answer to a search over a snapshot. */
    public Offers.Builder encode(final OfferSnapshot snapshot, final OfferSearch search)
    {
        final OfferSearch.Result result = search.apply(snapshot.rows());
        final Offers.Builder offers = Offers.newBuilder().setMatched(result.matched()).setTimeMs(snapshot.timeMs());
        final long now = clock.time();
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
                .setTelemetryAgeMs(t == null ? -1 : Math.max(0, now - t.receivedMs()))
                .setOwnerMachines((int)snapshot.machinesOf(row.ownerId())));
        }
        return offers;
    }
}
