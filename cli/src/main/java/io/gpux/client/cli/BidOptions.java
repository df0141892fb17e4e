package io.gpux.client.cli;

import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.QuoteRequest;
import io.gpux.proto.v1.TimeInForce;
import picocli.CommandLine.Option;

/** What a bid asks for: shared by {@code bid} and {@code quote}. */
final class BidOptions
{
    @Option(names = "--market", required = true, paramLabel = "SYMBOL", description = "the market, e.g. H100-SXM-80G (any case); an unknown one lists the markets")
    String market;

    @Option(names = "--gpus", required = true, paramLabel = "N", description = "how many GPUs")
    int gpus;

    @Option(names = "--price", required = true, paramLabel = "PRICE", converter = Converters.Price.class,
        description = "the most to pay per GPU-hour, e.g. 2.5")
    long price;

    @Option(names = "--tif", paramLabel = "GTC|IOC|FOK", defaultValue = "GTC", converter = Converters.Tif.class,
        description = "time in force (default ${DEFAULT-VALUE})")
    TimeInForce tif;

    @Option(names = "--gang", description = "all GPUs from one machine, in one lease")
    boolean gang;

    @Option(names = "--min-reliability", paramLabel = "R", converter = Converters.Reliability.class,
        description = "only machines at least this reliable, 0 to 1 (e.g. 0.99)")
    long minReliabilityPpm;

    @Option(names = "--region", paramLabel = "REGION", defaultValue = "", description = "only machines of this region")
    String region;

    @Option(names = "--max-duration", paramLabel = "DURATION", converter = Converters.DurationMs.class,
        description = "the lease ends by itself after this long: 2h, 90m, 30s or milliseconds")
    long maxDurationMs;

    void check() throws CliException
    {
        if (gpus < 1)
        {
            throw CliException.usage("--gpus must be at least 1, got " + gpus);
        }
    }

    PlaceBid.Builder toBid(final long orderId)
    {
        return PlaceBid.newBuilder().setOrderId(orderId).setMarket(market).setGpus(gpus).setPrice(price).setTif(tif)
            .setGang(gang).setMinReliabilityPpm(minReliabilityPpm).setRegion(region).setMaxDurationMs(maxDurationMs);
    }

    QuoteRequest toQuote()
    {
        return QuoteRequest.newBuilder().setMarket(market).setGpus(gpus).setPrice(price).setTif(tif).setGang(gang)
            .setMinReliabilityPpm(minReliabilityPpm).setRegion(region).setMaxDurationMs(maxDurationMs).build();
    }
}
