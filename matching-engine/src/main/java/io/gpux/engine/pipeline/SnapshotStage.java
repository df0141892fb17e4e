package io.gpux.engine.pipeline;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.journal.Journal;
import io.gpux.engine.journal.SnapshotStore;
import org.agrona.concurrent.NanoClock;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Snapshots, on the core thread at the end of a batch (the consistent point): the engine is serialized
 * when a snapshot is due or asked for, and the bytes handed to the {@link SnapshotWriter}'s thread, which
 * writes, forces and renames them.
 */
final class SnapshotStage
{
    private final long snapshotEvery;
    private final Journal commandJournal;
    private final CoreCounters counters;
    private final NanoClock nanoClock;
    private final Consumer<String> log;
    private final SnapshotWriter writer;
    private final AtomicBoolean requested = new AtomicBoolean();
    private long lastSnapshotSequence;
    /** The state hash as of the last snapshot or recovery. */
    volatile long lastHash;

    SnapshotStage(final long snapshotEvery, final SnapshotStore store, final Journal commandJournal,
        final CoreCounters counters, final NanoClock nanoClock, final Consumer<String> log, final Recovery.Result recovered)
    {
        this.snapshotEvery = snapshotEvery;
        this.commandJournal = commandJournal;
        this.counters = counters;
        this.nanoClock = nanoClock;
        this.log = log;
        writer = new SnapshotWriter(store, counters, nanoClock, log);
        lastSnapshotSequence = recovered.snapshotSequence();
        counters.snapshotSequence.setRelease(lastSnapshotSequence);
        lastHash = recovered.engine().stateHash();
    }

    /** Any thread: a snapshot after the core's current batch, or, while the last one is still being written, a later one. */
    void request()
    {
        requested.set(true);
    }

    /**
     * At the end of a batch: serializes the engine when a snapshot is due or asked for and hands the bytes to
     * the writer thread. While the last one is still being written, it waits for a later batch.
     */
    void maybeSnapshot(final MatchingEngine engine, final long sequence)
    {
        final boolean due = snapshotEvery > 0 && sequence - lastSnapshotSequence >= snapshotEvery;
        if (!due && !requested.get())
        {
            return;
        }
        if (sequence <= lastSnapshotSequence)
        {
            // nothing applied since the last one
            requested.set(false);
            return;
        }
        if (!writer.idle(sequence))
        {
            return;
        }
        requested.set(false);
        final SnapshotStore.Captured captured = capture(engine, sequence);
        if (captured != null)
        {
            writer.write(captured);
        }
    }

    /** Stops the writer thread, once the last snapshot handed to it is on disk. */
    void closeWriter()
    {
        writer.close();
    }

    /** Close's last word, the writer stopped: a snapshot asked for but put off while one was written is written now. */
    void writePutOff(final MatchingEngine engine, final long sequence)
    {
        if (requested.getAndSet(false) && sequence > lastSnapshotSequence)
        {
            final SnapshotStore.Captured captured = capture(engine, sequence);
            if (captured != null)
            {
                writer.persist(captured);
            }
        }
    }

    private SnapshotStore.Captured capture(final MatchingEngine engine, final long sequence)
    {
        final long startNs = nanoClock.nanoTime();
        try
        {
            final SnapshotStore.Captured captured = SnapshotStore.capture(engine, sequence, commandJournal.lastIndexAppended());
            lastSnapshotSequence = sequence;
            lastHash = captured.stateHash();
            counters.snapshotDurationNs.setRelease(nanoClock.nanoTime() - startNs);
            return captured;
        }
        catch (final IOException | RuntimeException ex)
        {
            counters.snapshotFailures.incrementRelease();
            log.accept("snapshot at command " + sequence + " failed: " + ex);
            return null;
        }
    }
}
