package io.gpux.gateway.offers;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.book.Order;
import io.gpux.engine.command.Command;
import io.gpux.engine.machine.Machine;

import java.util.ArrayList;
import java.util.List;

import org.agrona.collections.Long2LongHashMap;

/**
 * The machines of the exchange that have GPUs for rent, copied out of the engine in one pass after a
 * batch (for the {@link OfferBoard}), so that searches, sorts and encodings run on other threads. Only online
 * machines of markets that are not halted, with at least one open ask holding free GPUs, are rows;
 * every machine counts towards its owner's machine count.
 */
public final class OfferSnapshot
{
    private final long timeMs;
    private final List<OfferRow> rows;
    private final Long2LongHashMap machinesPerOwner;

    OfferSnapshot(final long timeMs, final List<OfferRow> rows, final Long2LongHashMap machinesPerOwner)
    {
        this.timeMs = timeMs;
        this.rows = rows;
        this.machinesPerOwner = machinesPerOwner;
    }

    /**
     * Copies the offers of one market (or of every market, for {@code marketId} 0). Call on the core
     * thread: it reads the engine's state.
     */
    public static OfferSnapshot capture(final MatchingEngine engine, final long marketId)
    {
        final List<OfferRow> rows = new ArrayList<>();
        final Long2LongHashMap perOwner = new Long2LongHashMap(0);
        for (final Machine m : engine.machines())
        {
            perOwner.put(m.owner.id, perOwner.get(m.owner.id) + 1);
            if ((marketId != 0 && m.market.id != marketId) || !m.online || m.market.halted || m.offered <= 0)
            {
                continue;
            }
            long best = Long.MAX_VALUE;
            for (Order ask = m.firstAsk; ask != null; ask = ask.machineNext)
            {
                if (ask.openGpus > 0 && ask.price < best)
                {
                    best = ask.price;
                }
            }
            if (best == Long.MAX_VALUE)
            {
                continue;
            }
            rows.add(new OfferRow(m.id, m.market.id, m.owner.id, m.gpus, m.offered, best, reliabilityPpm(m),
                m.regionId, m.interconnectId, m.vramGb == Command.ABSENT ? 0 : m.vramGb));
        }
        return new OfferSnapshot(engine.lastCommandTime(), rows, perOwner);
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

    /** The offers, in the engine's machine order. */
    public List<OfferRow> rows()
    {
        return rows;
    }

    /** How many machines, in every market, this owner has registered. */
    public long machinesOf(final long ownerId)
    {
        return machinesPerOwner.get(ownerId);
    }
}
