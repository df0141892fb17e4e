package io.gpux.gateway.offers;

import io.gpux.gateway.directory.Directory;
import io.gpux.proto.v1.OfferSort;
import io.gpux.proto.v1.OffersRequest;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The filters and the order of an offer search, applied to a snapshot. A pure function of the rows:
 * it runs on whichever thread asks.
 *
 * @param marketId          0: every market
 * @param minGpus           free GPUs at least
 * @param minReliabilityPpm reliability at least, in parts per million
 * @param regionId          the region's name id; 0: any
 * @param interconnectId    the interconnect's name id; 0: any
 * @param minVramGb         GPU memory per GPU at least
 * @param maxPrice          the lowest ask price at most, in ticks; 0: any
 * @param sort              the order of the answer
 * @param limit             the most rows answered
 */
public record OfferSearch(
    long marketId,
    int minGpus,
    long minReliabilityPpm,
    long regionId,
    long interconnectId,
    long minVramGb,
    long maxPrice,
    OfferSort sort,
    int limit)
{
    public static final int DEFAULT_LIMIT = 100;
    public static final int MAX_LIMIT = 1000;

    private static final Comparator<OfferRow> BY_MACHINE = Comparator.comparingLong(OfferRow::machineId);
    private static final Comparator<OfferRow> CHEAPEST = Comparator.comparingLong(OfferRow::price);
    private static final Comparator<OfferRow> MOST_RELIABLE =
        Comparator.comparingLong(OfferRow::reliabilityPpm).reversed();
    private static final Comparator<OfferRow> MOST_GPUS = Comparator.comparingInt(OfferRow::freeGpus).reversed();

    /** The answer: at most {@code limit} rows in order, and how many passed the filters. */
    public record Result(List<OfferRow> rows, int matched)
    {
    }

    /**
     * A search from a request whose market, if any, is {@code marketId}, or null when a field is out of
     * range (the reason is then in {@code problem[0]}).
     */
    public static OfferSearch of(final OffersRequest r, final long marketId, final String[] problem)
    {
        if (r.getMinReliabilityPpm() > 1_000_000)
        {
            problem[0] = "min_reliability_ppm is 0 to 1000000, got " + r.getMinReliabilityPpm();
            return null;
        }
        if (r.getMaxPrice() < 0)
        {
            problem[0] = "max_price must not be negative";
            return null;
        }
        if (Integer.toUnsignedLong(r.getMinGpus()) > Integer.MAX_VALUE || r.getLimit() > MAX_LIMIT)
        {
            problem[0] = r.getLimit() > MAX_LIMIT ? "limit is 1 to " + MAX_LIMIT + ", got " + Integer.toUnsignedString(r.getLimit())
                : "min_gpus out of range";
            return null;
        }
        if (r.getSort() == OfferSort.UNRECOGNIZED)
        {
            problem[0] = "unknown sort " + r.getSortValue();
            return null;
        }
        return new OfferSearch(marketId, r.getMinGpus(), r.getMinReliabilityPpm(), Directory.nameId(r.getRegion()),
            Directory.nameId(r.getInterconnect()), Integer.toUnsignedLong(r.getMinVramGb()), r.getMaxPrice(), r.getSort(),
            r.getLimit() == 0 ? DEFAULT_LIMIT : r.getLimit());
    }

    /** Whether a row passes every filter. */
    public boolean admits(final OfferRow row)
    {
        return (marketId == 0 || row.marketId() == marketId)
            && row.freeGpus() >= minGpus
            && row.reliabilityPpm() >= minReliabilityPpm
            && (regionId == 0 || row.regionId() == regionId)
            && (interconnectId == 0 || row.interconnectId() == interconnectId)
            && row.vramGb() >= minVramGb
            && (maxPrice == 0 || row.price() <= maxPrice);
    }

    /** The order of the answer: the chosen key, then the next most useful one, then the machine id. */
    public Comparator<OfferRow> order()
    {
        return switch (sort)
        {
            case OFFER_SORT_RELIABILITY -> MOST_RELIABLE.thenComparing(CHEAPEST).thenComparing(BY_MACHINE);
            case OFFER_SORT_GPUS -> MOST_GPUS.thenComparing(CHEAPEST).thenComparing(BY_MACHINE);
            default -> CHEAPEST.thenComparing(MOST_RELIABLE).thenComparing(BY_MACHINE);
        };
    }

    /** Filters, sorts and cuts the snapshot's rows. */
    public Result apply(final List<OfferRow> rows)
    {
        final List<OfferRow> matched = new ArrayList<>();
        for (final OfferRow row : rows)
        {
            if (admits(row))
            {
                matched.add(row);
            }
        }
        matched.sort(order());
        return new Result(matched.size() > limit ? List.copyOf(matched.subList(0, limit)) : matched, matched.size());
    }
}
