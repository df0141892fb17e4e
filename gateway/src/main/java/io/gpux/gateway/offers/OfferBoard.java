package io.gpux.gateway.offers;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.event.EventType;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

import org.agrona.concurrent.NanoClock;

/**
 * The offers of every market as the exchange core last copied them: a read-side view that the core
 * keeps after its batches and that searches read on their own threads, so that a search never waits
 * in the core's input ring nor holds up a command.
 *
 * <p>The core copies again after a batch whose events touched offers (asks accepted, filled or
 * cancelled, leases started or ended, machines on or offline, the book), at most once per
 * {@code minIntervalNs}, and at least once per {@code maxAgeNs} (reliabilities change with time
 * alone; registrations and halts have no event of their own). While a change waits for its copy the
 * board is stale, and a search waits for the next copy: an answer never misses a change that the
 * searching client has seen acknowledged.
 */
public final class OfferBoard
{
    private final NanoClock clock;
    private final long minIntervalNs;
    private final long maxAgeNs;
    private final Queue<Runnable> waiting = new ConcurrentLinkedQueue<>();
    private volatile OfferSnapshot current;
    private volatile boolean stale = true;

    /** Core thread only. */
    private boolean changed = true;
    private long copiedAtNs;

    public OfferBoard(final NanoClock clock, final long minIntervalNs, final long maxAgeNs)
    {
        this.clock = clock;
        this.minIntervalNs = minIntervalNs;
        this.maxAgeNs = maxAgeNs;
    }

    /** Core thread: the first copy, once the engine has recovered. */
    public void onRecovered(final MatchingEngine engine)
    {
        copy(engine, clock.nanoTime());
    }

    /** Core thread: an event of the batch being applied. */
    public void onEvent(final EventType type)
    {
        if (!changed && type != EventType.BALANCE && type != EventType.REJECTED && type != EventType.TRADE)
        {
            changed = true;
            stale = true;
        }
    }

    /** Core thread, after each batch: copies the offers when a change is due or the copy is old. */
    public void onBatchApplied(final MatchingEngine engine)
    {
        final long now = clock.nanoTime();
        final long age = now - copiedAtNs;
        if ((changed && age >= minIntervalNs) || age >= maxAgeNs || current == null)
        {
            copy(engine, now);
        }
    }

    private void copy(final MatchingEngine engine, final long now)
    {
        current = OfferSnapshot.capture(engine, 0);
        copiedAtNs = now;
        changed = false;
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
