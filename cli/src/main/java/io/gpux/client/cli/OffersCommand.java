package io.gpux.client.cli;

import io.gpux.client.GpuxClient;
import io.gpux.proto.v1.Offer;
import io.gpux.proto.v1.OfferSort;
import io.gpux.proto.v1.Offers;
import io.gpux.proto.v1.OffersRequest;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gpux offers}: the machines with GPUs for rent now, filtered and sorted, one line per machine. */
@Command(name = "offers", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Searches the machines with GPUs for rent now: per machine its free GPUs, lowest ask price, "
        + "measured reliability, region, interconnect, GPU model (the market) and memory, the age of its telemetry "
        + "and how many machines its owner has. Owners stay anonymous. Every filter is optional.",
        "Example: gpux offers --market H100-SXM-80G --min-gpus 4 --min-reliability 0.99 --region eu --sort price",
        "Exit status: 0 done (also when nothing matches), 1 refused (an unknown market), 2 bad usage, "
            + "3 connection or login failure."})
public final class OffersCommand extends ClientCommand
{
    /** The orders an answer can come in. */
    enum SortKey
    {
        price(OfferSort.OFFER_SORT_PRICE),
        reliability(OfferSort.OFFER_SORT_RELIABILITY),
        gpus(OfferSort.OFFER_SORT_GPUS);

        final OfferSort wire;

        SortKey(final OfferSort wire)
        {
            this.wire = wire;
        }
    }

    @Option(names = "--market", paramLabel = "SYMBOL", defaultValue = "",
        description = "only this market (any case); default: every market")
    String market;

    @Option(names = "--min-gpus", paramLabel = "N", description = "at least N free GPUs on the machine")
    int minGpus;

    @Option(names = "--min-reliability", paramLabel = "R", converter = Converters.Reliability.class,
        description = "at least this reliable, 0 to 1 (e.g. 0.99)")
    long minReliabilityPpm;

    @Option(names = "--region", paramLabel = "REGION", defaultValue = "", description = "only machines of this region")
    String region;

    @Option(names = "--interconnect", paramLabel = "NAME", defaultValue = "",
        description = "only machines with this interconnect (e.g. nvlink)")
    String interconnect;

    @Option(names = "--min-vram", paramLabel = "GB", description = "at least this much memory per GPU, in GB")
    int minVramGb;

    @Option(names = "--max-price", paramLabel = "PRICE", converter = Converters.Price.class,
        description = "a lowest ask of at most this per GPU-hour")
    long maxPrice;

    @Option(names = {"--sort", "-o"}, paramLabel = "KEY", defaultValue = "price",
        description = "price (cheapest first), reliability (most reliable first) or gpus (most free GPUs first); "
            + "default ${DEFAULT-VALUE}")
    SortKey sort;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "100", description = "at most N machines, 1 to 1000 "
        + "(default ${DEFAULT-VALUE})")
    int limit;

    @Override
    int execute() throws Exception
    {
        if (minGpus < 0 || minVramGb < 0)
        {
            throw CliException.usage("--min-gpus and --min-vram must not be negative");
        }
        if (limit < 1 || limit > 1000)
        {
            throw CliException.usage("--limit must be 1 to 1000, got " + limit);
        }
        try (GpuxClient client = connect(null))
        {
            if (!market.isEmpty())
            {
                final MarketDirectory markets = MarketDirectory.fetch(client, timeout());
                if (markets.find(market) == null)
                {
                    throw new CliException(CliException.REJECTED, markets.unknownMarket(market));
                }
                market = markets.resolve(market);
            }
            final Offers offers = client.offers(OffersRequest.newBuilder().setMarket(market).setMinGpus(minGpus)
                .setMinReliabilityPpm(minReliabilityPpm).setRegion(region).setInterconnect(interconnect)
                .setMinVramGb(minVramGb).setMaxPrice(maxPrice).setSort(sort.wire).setLimit(limit).build(), timeout());
            if (json)
            {
                printJson(offers);
            }
            else
            {
                printText(offers);
            }
            return 0;
        }
    }

    private void printJson(final Offers offers)
    {
        out().println(new Json().put("type", "offers").putText("market", market).put("matched", offers.getMatched())
            .put("shown", offers.getOffersCount()).putTime("time", offers.getTimeMs()));
        for (final Offer o : offers.getOffersList())
        {
            out().println(new Json().put("type", "offer").put("machine_id", o.getMachineId()).put("market", o.getMarket())
                .put("gpus", o.getGpus()).put("free_gpus", o.getFreeGpus()).put("price", Format.price(o.getPrice()))
                .put("reliability", Format.ppm(o.getReliabilityPpm())).putText("region", o.getRegion())
                .putText("interconnect", o.getInterconnect()).putPositive("vram_gb", o.getVramGb())
                .putSpan("telemetry_age_ms", o.getTelemetryAgeMs()).put("owner_machines", o.getOwnerMachines()));
        }
    }

    private void printText(final Offers offers)
    {
        if (offers.getOffersCount() == 0)
        {
            out().println("no offers match" + (market.isEmpty() ? "" : " in " + market));
            return;
        }
        final Table table = new Table("MACHINE", "MODEL", "FREE", "GPUS", "PRICE", "RELIABILITY", "REGION", "INTERCONNECT",
            "VRAM_GB", "TELEMETRY_AGE", "OWNER_MACHINES");
        for (final Offer o : offers.getOffersList())
        {
            table.row(o.getMachineId(), o.getMarket(), o.getFreeGpus(), o.getGpus(), Format.price(o.getPrice()),
                Format.ppm(o.getReliabilityPpm()), dash(o.getRegion()), dash(o.getInterconnect()),
                o.getVramGb() == 0 ? "-" : Integer.toString(o.getVramGb()), Format.span(o.getTelemetryAgeMs()),
                o.getOwnerMachines());
        }
        table.print(out());
        if (offers.getMatched() > offers.getOffersCount())
        {
            out().println(offers.getOffersCount() + " of " + offers.getMatched() + " matching machines shown (--limit)");
        }
    }

    private static String dash(final String text)
    {
        return text.isEmpty() ? "-" : text;
    }

    public static void main(final String[] args)
    {
        GpuxCli.main("offers", args);
    }
}
