package io.gpux.gateway.offers;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.machine.Machine;
import io.gpux.engine.market.Market;

import java.util.Arrays;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

import org.agrona.collections.Long2LongHashMap;
import org.agrona.concurrent.NanoClock;

/**
 * The offers of every market as the exchange core last copied them: a read-side view that the core
 * keeps after its batches and that searches read on their own threads, so that a search never waits
 * in the core's input ring nor holds up a command.
 *
 * <p>The engine lists the machines whose offer may have changed (asks placed, replaced, filled or
 * cancelled, GPUs back from leases, machines on or offline, reliabilities recomputed, registrations)
 * and whether a market was halted or resumed. After a batch that touched any, at most once per
 * {@code minIntervalNs}, the core copies those machines alone into a persistent tree ({@link OfferRows})
 * and publishes it: the cost follows the changes, not the size of the exchange. The whole exchange is
 * walked once, when the engine has recovered. At least once per {@code maxAgeNs} the board is
 * published again with the engine's time, at no cost. While a change waits for its copy the board is
 * stale, and a search waits for the next copy: an answer never misses a change that the searching
 * client has seen acknowledged.
 */
public final class OfferBoard
{
    private final NanoClock clock;
    private final long minIntervalNs;
    private final long maxAgeNs;
    private final Queue<Runnable> waiting = new ConcurrentLinkedQueue<>();
    /** Machines per owner: only ever grows, so a search may read it while the core adds. */
    private final ConcurrentHashMap<Long, Long> machinesPerOwner = new ConcurrentHashMap<>();
    private volatile OfferSnapshot current;
    private volatile boolean stale = true;

    /** Core thread only. */
    private MatchingEngine engine;
    private final Long2LongHashMap slots = new Long2LongHashMap(-1);
    private int nextSlot;
    private OfferRows.Editor rows = new OfferRows.Editor(OfferRows.EMPTY);
    private long[] haltedMarkets = new long[0];
    private long copiedAtNs;

    public OfferBoard(final NanoClock clock, final long minIntervalNs, final long maxAgeNs)
    {
        this.clock = clock;
        this.minIntervalNs = minIntervalNs;
        this.maxAgeNs = maxAgeNs;
    }

    /** Core thread: the first copy, of every machine, once the engine has recovered. */
    public void onRecovered(final MatchingEngine engine)
    {
        this.engine = engine;
        for (final Machine m : engine.machines())
        {
            place(m);
        }
        while (engine.pollTouched() != null)
        {
            // all copied above
        }
        engine.pollMarketsTouched();
        haltedMarkets = halted(engine);
        publish(engine, clock.nanoTime());
    }

    /**
     * Core thread: an event of the batch being applied, or a command's completion, is about to reach
     * clients; the board is stale from then if the engine touched an offer.
     */
    public void onEvent()
    {
        if (!stale && engine != null && engine.anyTouched())
        {
            stale = true;
        }
    }

    /** Core thread, after each batch: copies the touched offers when due, or publishes an old copy again. */
    public void onBatchApplied(final MatchingEngine engine)
    {
        if (this.engine == null)
        {
            onRecovered(engine);
            return;
        }
        final long now = clock.nanoTime();
        final long age = now - copiedAtNs;
        final boolean changed = engine.anyTouched();
        stale |= changed;
        if ((changed && age >= minIntervalNs) || age >= maxAgeNs)
        {
            for (Machine m; (m = engine.pollTouched()) != null; )
            {
                place(m);
            }
            if (engine.pollMarketsTouched())
            {
                haltedMarkets = halted(engine);
            }
            publish(engine, now);
        }
    }

    private void place(final Machine m)
    {
        long slot = slots.get(m.id);
        if (slot == -1)
        {
            slot = nextSlot++;
            slots.put(m.id, slot);
            machinesPerOwner.merge(m.owner.id, 1L, Long::sum);
        }
        rows.set((int)slot, OfferSnapshot.row(m));
    }

    /** The halted markets' ids: a walk over the markets, only after a halt or a resume. */
    private static long[] halted(final MatchingEngine engine)
    {
        long[] ids = new long[0];
        for (final Market market : engine.markets())
        {
            if (market.halted)
            {
                ids = Arrays.copyOf(ids, ids.length + 1);
                ids[ids.length - 1] = market.id;
            }
        }
        return ids;
    }

    private void publish(final MatchingEngine engine, final long now)
    {
        current = new OfferSnapshot(engine.lastCommandTime(), rows.publish(), haltedMarkets,
            owner -> machinesPerOwner.getOrDefault(owner, 0L));
        copiedAtNs = now;
        stale = false;
        for (Runnable task; (task = waiting.poll()) != null; )
        {
            task.run();
        }
    }

    /**
     * Hands the board to {@code then}: at once if it holds every change the core has applied, else
     * right after the core's next copy, on the core thread (so {@code then} must only hand over).
     */
    public void read(final Consumer<OfferSnapshot> then)
    {
        if (!stale)
        {
            then.accept(current);
            return;
        }
        final Runnable task = () -> then.accept(current);
        waiting.add(task);
        // the copy may have come between the check and the add: then nobody else runs the task
        if (!stale && waiting.remove(task))
        {
            task.run();
        }
    }
}
