package io.gpux.engine.pipeline;

import io.gpux.engine.journal.SnapshotStore;
import org.agrona.concurrent.NanoClock;

import java.io.IOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Puts captured snapshots on disk on a thread of its own ({@code gpux-snapshot}), so the core pays for
 * serializing the engine but never for the write, the force or the rename. One write at a time: while one
 * is in flight the core captures nothing ({@link #idle()} is false) and tries again at a later batch.
 */
final class SnapshotWriter
{
    private final SnapshotStore store;
    private final CoreCounters counters;
    private final NanoClock nanoClock;
    private final Consumer<String> log;
    private final ThreadPoolExecutor thread;
    private final AtomicBoolean inFlight = new AtomicBoolean();
    /** Core thread only: whether the skip of the current busy spell was logged. */
    private boolean skipLogged;

    SnapshotWriter(final SnapshotStore store, final CoreCounters counters, final NanoClock nanoClock,
        final Consumer<String> log)
    {
        this.store = store;
        this.counters = counters;
        this.nanoClock = nanoClock;
        this.log = log;
        thread = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(1), r ->
        {
            final Thread t = new Thread(r, "gpux-snapshot");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Whether a snapshot can be handed over now. Core thread: false while a write is in flight, logged once
     * per such spell.
     */
    boolean idle(final long commandSequence)
    {
        if (!inFlight.get())
        {
            skipLogged = false;
            return true;
        }
        if (!skipLogged)
        {
            skipLogged = true;
            log.accept("snapshot at command " + commandSequence + " put off: the last one is still being written");
        }
        return false;
    }

    /** Hands a captured snapshot to the writer thread; only after {@link #idle} said so. */
    void write(final SnapshotStore.Captured captured)
    {
        inFlight.set(true);
        thread.execute(() -> persist(captured));
    }

    /** Writes on the calling thread (the writer's, or close's once the writer has stopped). */
    void persist(final SnapshotStore.Captured captured)
    {
        final long startNs = nanoClock.nanoTime();
        try
        {
            store.persist(captured);
            counters.snapshotWriteNs.setRelease(nanoClock.nanoTime() - startNs);
            counters.snapshotSequence.setRelease(captured.commandSequence());
            // the wall clock, not the exchange clock: readers take the snapshot's age against their own
            counters.snapshotTimeMs.setRelease(System.currentTimeMillis());
            counters.snapshots.incrementRelease();
        }
        catch (final IOException | RuntimeException ex)
        {
            counters.snapshotFailures.incrementRelease();
            log.accept("snapshot at command " + captured.commandSequence() + " failed: " + ex);
        }
        finally
        {
            inFlight.set(false);
        }
    }

    /** Lets a write in flight finish (its file is on disk when this returns) and stops the thread. */
    void close()
    {
        thread.shutdown();
        try
        {
            if (!thread.awaitTermination(30, TimeUnit.SECONDS))
            {
                log.accept("the snapshot writer did not finish in 30 s");
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
