package io.gpux.core.pipeline;

import io.gpux.engine.ArrayDataOutput;
import io.gpux.engine.MatchingEngine;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.core.journal.CommandCodec;
import io.gpux.core.journal.Journal;
import io.gpux.core.journal.SnapshotStore;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;

import java.io.IOException;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * Takes the snapshots, on a thread of its own ({@code gpux-snapshot}), from a second engine that follows the
 * command journal, so that the core thread does no snapshot work at all. The engine is deterministic: applied
 * to the same journaled commands, the replica's state at command N is the core's at N. The replica starts
 * where the core's recovery did (the same snapshot, restored a second time by recovery on another thread while the
 * core replayed, or by the replica itself when recovery did not; or nothing), replays the journal exactly as recovery does
 * (a quarantined command as a TICK that skips the same event numbers), and then tails the journal as the core
 * writes it. When a snapshot is due (every {@code snapshotEvery} commands, or once it has reached the commands
 * journaled when one was asked for), it serializes its engine at the end of a journal document (a batch: the
 * only place a snapshot can cover, as recovery starts after a whole document), writes it, forces it to disk and
 * renames it into place.
 *
 * <p>The replica may fall behind the core (it serializes while the core goes on): its lag is the counter
 * {@code gpux_snapshot_lag_commands}. It holds a whole second engine: the exchange's heap is about twice the
 * engine's state. A command the replica's engine fails on stops the replica (and, being deterministic, the
 * core fails on it too): no snapshot is taken past it.
 */
final class SnapshotReplica
{
    /** How long close waits for the replica to reach the last command (a requested snapshot is taken then). */
    private static final long CLOSE_WAIT_MS = 120_000;

    private final Journal commandJournal;
    private final SnapshotStore store;
    private final Recovery.Result recovered;
    private final Long2LongHashMap replayedAsTicks;
    private final long snapshotEvery;
    private final CoreCounters counters;
    private final NanoClock nanoClock;
    private final Consumer<String> log;
    private final LongConsumer onSnapshot;
    private final Thread thread;
    /** A snapshot is wanted once the replica has applied this command (0: none asked for). */
    private final AtomicLong requestedThrough = new AtomicLong();
    /** Close: the last command journaled; the replica stops once it has applied it. -1 while running. */
    private volatile long stopAfter = -1;
    /** Close gave up waiting, or the core failed: stop at once, no more snapshots. */
    private volatile boolean abandon;
    private volatile long appliedSequence;
    /** Replica thread: the command the last snapshot covers (taken, or recovered from). */
    private long lastSnapshot;
    /** Replica thread: the size of the last snapshot's body, to size the next one's buffer in one allocation. */
    private int lastSnapshotBytes = 1 << 16;

    /**
     * @param recovered  where the core's recovery left off: the replica starts from the same snapshot and replays
     *                   to there and beyond.
     * @param quarantine the commands recovery replayed as TICKs (copied now; the replica never reads it again).
     * @param onSnapshot told the state hash of each snapshot written, from the replica's thread.
     */
    SnapshotReplica(final Journal commandJournal, final SnapshotStore store, final Recovery.Result recovered,
        final Quarantine quarantine, final long snapshotEvery, final CoreCounters counters, final NanoClock nanoClock,
        final Consumer<String> log, final LongConsumer onSnapshot)
    {
        this.commandJournal = commandJournal;
        this.store = store;
        this.recovered = recovered;
        this.replayedAsTicks = quarantine.replayedAsTicks();
        this.snapshotEvery = snapshotEvery;
        this.counters = counters;
        this.nanoClock = nanoClock;
        this.log = log;
        this.onSnapshot = onSnapshot;
        appliedSequence = recovered.snapshotSequence();
        thread = new Thread(this::run, "gpux-snapshot");
        thread.setDaemon(true);
    }

    void start()
    {
        thread.start();
    }

    /**
     * Asks for a snapshot that covers at least command {@code commandSequence}: taken as soon as the replica has
     * applied it, or at close if the journal ends before it. Any thread.
     */
    void request(final long commandSequence)
    {
        requestedThrough.accumulateAndGet(commandSequence, Math::max);
    }

    /** The last command the replica has applied, at the end of a batch. Any thread. */
    long appliedSequence()
    {
        return appliedSequence;
    }

    /**
     * Sets the lag gauge from another thread (the ticker's, once a second), so that it grows while the replica is
     * busy serializing or writing and cannot set it itself.
     */
    void sampleLag()
    {
        counters.snapshotLagCommands.setRelease(Math.max(0, counters.commandSequence.get() - appliedSequence));
    }

    /**
     * Lets the replica apply every command up to {@code lastCommand} (the last one journaled), write a snapshot
     * asked for and not yet taken, and stop; or, with a negative {@code lastCommand} (the core failed), stop at
     * once. Waits for its thread: once this returns it reads the journal no more.
     */
    void close(final long lastCommand)
    {
        if (lastCommand < 0)
        {
            abandon = true;
        }
        stopAfter = Math.max(0, lastCommand);
        try
        {
            thread.join(CLOSE_WAIT_MS);
            if (thread.isAlive())
            {
                log.accept("the snapshot replica did not reach command " + lastCommand + " in " +
                    CLOSE_WAIT_MS / 1000 + " s (at " + appliedSequence + "): stopped without a last snapshot");
                abandon = true;
                thread.join(TimeUnit.SECONDS.toMillis(30));
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void run()
    {
        // restored from the snapshot recovery started from, on a thread of its own while the core replayed
        final MatchingEngine snapshotEngine = recovered.snapshotEngine();
        final MatchingEngine engine = snapshotEngine != null ? snapshotEngine : new MatchingEngine(event -> { });
        final Journal.Reader reader = commandJournal.reader();
        try
        {
            follow(engine, reader);
        }
        catch (final IOException | RuntimeException | AssertionError ex)
        {
            counters.snapshotFailures.incrementRelease();
            log.accept("the snapshot replica stopped at command " + appliedSequence + ": " + ex +
                "; no more snapshots until the exchange restarts (the journals hold everything)");
        }
        finally
        {
            reader.close();
        }
    }

    private void follow(final MatchingEngine engine, final Journal.Reader reader) throws IOException
    {
        long sequence = 0;
        long index = -1;
        if (recovered.snapshotSequence() > 0)
        {
            if (recovered.snapshotEngine() == null)
            {
                // recovery did not restore it a second time: the replica restores it now, and checks its hash
                SnapshotStore.load(store.fileOf(recovered.snapshotSequence()), engine);
            }
            if (!reader.startAfter(recovered.snapshotIndex()))
            {
                throw new IOException("the command journal lacks index " + Long.toHexString(recovered.snapshotIndex()) +
                    ", which snapshot " + recovered.snapshotSequence() + " covers");
            }
            sequence = recovered.snapshotSequence();
            lastSnapshot = sequence;
            index = recovered.snapshotIndex();
            lastSnapshotBytes = (int)Math.min(Integer.MAX_VALUE >> 1, Files.size(store.fileOf(sequence)));
        }
        final CommandCodec codec = new CommandCodec();
        final byte[] record = codec.bytes();
        final Command command = new Command();
        // caught up, it backs off to a 4 ms sleep: an idle exchange's replica wakes 250 times a second; what it lags
        // behind the journal by then delays only the next snapshot's start
        final IdleStrategy idle = new BackoffIdleStrategy(10, 10, TimeUnit.MICROSECONDS.toNanos(1),
            TimeUnit.MILLISECONDS.toNanos(4));
        while (!abandon)
        {
            final int length = reader.next(record);
            if (length < 0)
            {
                // caught up, at the end of a document
                final long stopAt = stopAfter;
                final boolean last = stopAt >= 0 && sequence >= stopAt;
                atBoundary(engine, sequence, index, last);
                if (last)
                {
                    return;
                }
                idle.idle();
                continue;
            }
            idle.reset();
            final String problem = codec.decode(length, command);
            if (problem != null)
            {
                throw new IOException("command journal record at index " + Long.toHexString(reader.index()) +
                    " does not decode: " + problem);
            }
            if (command.sequence != sequence + 1)
            {
                throw new IOException("command journal out of sequence at index " + Long.toHexString(reader.index()) +
                    ": command " + command.sequence + " after " + sequence);
            }
            apply(engine, command);
            sequence = command.sequence;
            if (reader.endOfDocument())
            {
                index = reader.index();
                atBoundary(engine, sequence, index, false);
            }
        }
    }

    /**
     * At the end of a journal document (a batch), the state a snapshot can cover: the lag is reported, and a
     * snapshot due or asked for is taken; at the last command, one asked for is taken whatever it asked to cover.
     */
    private void atBoundary(final MatchingEngine engine, final long sequence, final long index, final boolean last)
    {
        appliedSequence = sequence;
        counters.snapshotLagCommands.setRelease(Math.max(0, counters.commandSequence.get() - sequence));
        if (sequence <= lastSnapshot || sequence > counters.appliedSequence.get())
        {
            // nothing new; or ahead of what the core has applied: a command the core failed on (and quarantined)
            // must never be in a snapshot, so the replica waits for the core before it snapshots
            return;
        }
        final long asked = requestedThrough.get();
        if ((snapshotEvery > 0 && sequence - lastSnapshot >= snapshotEvery) ||
            (asked > lastSnapshot && (sequence >= asked || last)))
        {
            snapshot(engine, sequence, index);
            lastSnapshot = sequence;
        }
    }

    /** Applies a journaled command as recovery does: a command it replayed as a TICK is replayed as one again. */
    private void apply(final MatchingEngine engine, final Command command)
    {
        final long skippedThrough = replayedAsTicks.get(command.sequence);
        if (skippedThrough < 0)
        {
            engine.apply(command);
            return;
        }
        final long sequence = command.sequence;
        command.reset(CommandType.TICK, command.timeMs);
        command.sequence = sequence;
        engine.apply(command);
        engine.skipEventsThrough(skippedThrough);
    }

    /** Serializes the replica's engine as of command {@code sequence} (journal index {@code index}) and writes it. */
    private void snapshot(final MatchingEngine engine, final long sequence, final long index)
    {
        final long startNs = nanoClock.nanoTime();
        try
        {
            // a little over the last one's size: grown once at most, and not held between snapshots
            final ArrayDataOutput buffer = new ArrayDataOutput(lastSnapshotBytes + (lastSnapshotBytes >> 3));
            final SnapshotStore.Captured captured = SnapshotStore.capture(engine, sequence, index, buffer);
            lastSnapshotBytes = captured.bodyLength();
            final long serializedNs = nanoClock.nanoTime();
            counters.snapshotDurationNs.setRelease(serializedNs - startNs);
            store.persist(captured);
            counters.snapshotWriteNs.setRelease(nanoClock.nanoTime() - serializedNs);
            counters.snapshotSequence.setRelease(sequence);
            // the wall clock, not the exchange clock: readers take the snapshot's age against their own
            counters.snapshotTimeMs.setRelease(System.currentTimeMillis());
            counters.snapshots.incrementRelease();
            onSnapshot.accept(captured.stateHash());
        }
        catch (final IOException | RuntimeException ex)
        {
            counters.snapshotFailures.incrementRelease();
            log.accept("snapshot at command " + sequence + " failed: " + ex);
        }
    }
}
