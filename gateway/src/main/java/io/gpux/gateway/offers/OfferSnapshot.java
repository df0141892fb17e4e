package io.gpux.gateway.offers;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.book.Order;
import io.gpux.engine.command.Command;
import io.gpux.engine.machine.Machine;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongUnaryOperator;

import org.agrona.collections.Long2LongHashMap;

/**
 * The machines of the exchange that have GPUs for rent, as the {@link OfferBoard} last copied them out
 * of the engine, so that searches, sorts and encodings run on other threads. Only online machines of
 * markets that are not halted, with at least one open ask holding free GPUs, are rows; every machine
 * counts towards its owner's machine count.
 */
public final class OfferSnapshot
{
    private static final long[] NONE = new long[0];

    private final long timeMs;
    private final OfferRows rows;
    private final long[] haltedMarkets;
    private final LongUnaryOperator machinesPerOwner;

    OfferSnapshot(final long timeMs, final OfferRows rows, final long[] haltedMarkets,
        final LongUnaryOperator machinesPerOwner)
    {
        this.timeMs = timeMs;
        this.rows = rows;
        this.haltedMarkets = haltedMarkets;
        this.machinesPerOwner = machinesPerOwner;
    }

    /**
     * Copies the offers of one market (or of every market, for {@code marketId} 0) in one walk over every
     * machine: the reference that the board's changes are checked against. Call on the core thread: it
     * reads the engine's state.
     */
    public static OfferSnapshot capture(final MatchingEngine engine, final long marketId)
    {
        final OfferRows.Editor rows = new OfferRows.Editor(OfferRows.EMPTY);
        final Long2LongHashMap perOwner = new Long2LongHashMap(0);
        int slot = 0;
        for (final Machine m : engine.machines())
        {
            perOwner.put(m.owner.id, perOwner.get(m.owner.id) + 1);
            if ((marketId != 0 && m.market.id != marketId) || m.market.halted)
            {
                continue;
            }
            final OfferRow row = row(m);
            if (row != null)
            {
                rows.set(slot++, row);
            }
        }
        return new OfferSnapshot(engine.lastCommandTime(), rows.publish(), NONE, perOwner::get);
    }

    /**
     * A machine's offer, whatever its market's halt: null when it is offline or has no open ask with free
     * GPUs. Core thread.
     */
    static OfferRow row(final Machine m)
    {
        if (!m.online || m.offered <= 0)
        {
            return null;
        }
        long best = Long.MAX_VALUE;
        for (Order ask = m.firstAsk; ask != null; ask = ask.machineNext)
        {
            if (ask.openGpus > 0 && ask.price < best)
            {
                best = ask.price;
            }
        }
        return best == Long.MAX_VALUE ? null : new OfferRow(m.id, m.market.id, m.owner.id, m.gpus, m.offered, best,
            reliabilityPpm(m), m.regionId, m.interconnectId, m.vramGb == Command.ABSENT ? 0 : m.vramGb);
    }

    /** A machine's reliability as a client sees it: parts per million, rounded down. */
    public static long reliabilityPpm(final Machine m)
    {
        return m.relDen == 0 ? 0 : m.relNum * 1_000_000 / m.relDen;
    }

    /** The engine's time when the copy was made. */
    public long timeMs()
    {
        return timeMs;
    }

    /** The offers of the markets that are not halted, in the order the board first saw their machines. */
    public List<OfferRow> rows()
    {
        final List<OfferRow> all = new ArrayList<>();
        rows.forEach(row ->
        {
            if (!halted(row.marketId()))
            {
                all.add(row);
            }
        });
        return all;
    }

    private boolean halted(final long marketId)
    {
        for (final long id : haltedMarkets)
        {
            if (id == marketId)
            {
                return true;
            }
        }
        return false;
    }

    /** How many machines, in every market, this owner has registered. */
    public long machinesOf(final long ownerId)
    {
        return machinesPerOwner.applyAsLong(ownerId);
    }
}
