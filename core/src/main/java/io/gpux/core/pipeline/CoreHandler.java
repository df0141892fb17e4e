package io.gpux.core.pipeline;

import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.RingBuffer;
import io.gpux.engine.MatchingEngine;
import io.gpux.engine.command.Command;
import io.gpux.engine.event.Event;
import io.gpux.engine.event.EventSink;
import io.gpux.core.journal.CommandCodec;
import io.gpux.core.journal.Journal;
import io.gpux.core.journal.JournalSpace;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/**
 * The core stage, on one thread (the core thread's Disruptor consumer, or the polled driver's caller):
 * sequencer (time and sequence stamped on each command), command journal (one document per batch; msync in
 * SYNC), engine (the batch applied), then the batch's output ({@link CoreOutput}), the queries in their
 * place between commands. Snapshots are none of its work: the {@link SnapshotReplica} takes them from the
 * command journal on a thread of its own.
 */
final class CoreHandler implements EventHandler<CommandSlot>, EventSink
{
    /** A command batch is written (and applied) once its journal document reaches this size. */
    static final int BATCH_BYTES = 512 * 1024;
    /** The event journal room asked per command of a batch, before its events are known. */
    private static final long EVENT_BYTES_PER_COMMAND = 256;
    /**
     * At most this many commands in a batch, so that the event journal room a batch asks for stays well
     * inside what the guard reserves ahead of the writer.
     */
    private static final int MAX_BATCH_COMMANDS = 2048;

    /** Counted down when the core thread leaves its loop. */
    final CountDownLatch stopped = new CountDownLatch(1);
    final MatchingEngine engine;
    final CoreCounters counters;
    volatile long appliedSequence;
    /** The state hash as of the last snapshot (the replica's), recovery or close. */
    volatile long lastHash;

    private final Journal commandJournal;
    private final Journal eventJournal;
    private final Quarantine quarantine;
    private final JournalSpace space;
    private final PipelineState state;
    private final CoreOutput output;
    private final RingBuffer<CommandSlot> inputRing;
    private final Durability durability;
    private final EpochClock clock;
    private final NanoClock nanoClock;
    private final Consumer<String> log;
    private final java.nio.file.Path dataDir;
    private final CommandCodec commandCodec = new CommandCodec();
    private final CommandSlot[] batch;
    private int batchSize;
    private long sequence;
    private long lastTime;

    CoreHandler(final PipelineContext ctx, final Recovery.Result recovered, final Journal commandJournal,
        final Journal eventJournal, final Quarantine quarantine, final JournalSpace space, final PipelineState state,
        final CoreCounters counters, final CoreOutput output,
        final RingBuffer<CommandSlot> inputRing)
    {
        this.commandJournal = commandJournal;
        this.eventJournal = eventJournal;
        this.quarantine = quarantine;
        this.space = space;
        this.state = state;
        this.counters = counters;
        this.output = output;
        this.inputRing = inputRing;
        durability = ctx.durability();
        clock = ctx.clock();
        nanoClock = ctx.nanoClock();
        log = ctx.log();
        dataDir = ctx.dataDir();
        engine = recovered.engine();
        sequence = recovered.commandSequence();
        counters.commandSequence.setRelease(sequence);
        counters.appliedSequence.setRelease(sequence);
        counters.eventSequence.setRelease(engine.eventSequence());
        counters.snapshotSequence.setRelease(recovered.snapshotSequence());
        lastHash = recovered.stateHash();
        lastTime = Math.max(0, engine.lastCommandTime());
        appliedSequence = sequence;
        batch = new CommandSlot[Math.min(ctx.ringSize(), MAX_BATCH_COMMANDS)];
        engine.sink(this);
    }

    /** The last command sequence stamped: applied, once the core is idle. */
    long sequence()
    {
        return sequence;
    }

    @Override
    public void onStart()
    {
        commandJournal.takeOverWriting();
        output.onStart(engine);
    }

    @Override
    public void onShutdown()
    {
        stopped.countDown();
    }

    @Override
    public void onEvent(final CommandSlot slot, final long ringSequence, final boolean endOfBatch)
    {
        if (state.failed())
        {
            // stopped: nothing more is journaled or applied; a waiting producer hears why
            slot.query = null;
            if (slot.correlation != 0)
            {
                output.refused(slot.correlation, state.refusal());
            }
            return;
        }
        if (slot.query != null)
        {
            applyBatch();
            runQuery(slot);
        }
        else
        {
            final Command command = slot.command;
            if (batchSize == 0)
            {
                // one reading of the clock per batch: a batch is what arrived while the last one ran
                lastTime = Math.max(lastTime, clock.time());
            }
            command.timeMs = lastTime;
            command.sequence = ++sequence;
            batch[batchSize++] = slot;
            commandJournal.add(commandCodec.bytes(), commandCodec.encode(command));
            if (endOfBatch || batchSize == batch.length || commandJournal.pendingBytes() >= BATCH_BYTES)
            {
                applyBatch();
            }
        }
        if (endOfBatch)
        {
            counters.inputRingOccupancy.setRelease(inputRing.getCursor() - ringSequence);
            if (!output.inline())
            {
                counters.outputRingOccupancy.setRelease(output.ringOccupancy());
            }
        }
    }

    /** Journals the batch (msync in SYNC), applies it, publishes its events and completions. */
    private void applyBatch()
    {
        if (batchSize == 0)
        {
            return;
        }
        final boolean floorHolds = space.refusal() == null;
        if (!commandJournal.hasRoom(Journal.SLACK_BYTES, floorHolds) ||
            !eventJournal.hasRoom(Journal.SLACK_BYTES + batchSize * EVENT_BYTES_PER_COMMAND, floorHolds))
        {
            refuseBatch();
            return;
        }
        final long startNs = counters.batchStart(nanoClock);
        commandJournal.endBatch();
        if (durability == Durability.SYNC)
        {
            commandJournal.sync();
        }
        counters.commandSequence.setRelease(sequence);
        final int applied = batchSize;
        for (int i = 0; i < batchSize; i++)
        {
            final CommandSlot slot = batch[i];
            try
            {
                engine.apply(slot.command);
            }
            catch (final CoreOutput.OutputFailure ex)
            {
                // the event journal failed, not the engine
                throw ex;
            }
            catch (final RuntimeException | AssertionError ex)
            {
                throw poisoned(slot.command, ex);
            }
            if (slot.correlation != 0)
            {
                output.completion(slot.command.sequence, slot.correlation);
            }
            batch[i] = null;
        }
        batchSize = 0;
        output.endBatch();
        appliedSequence = sequence;
        output.onBatchApplied(engine);
        counters.onBatch(applied, sequence, engine.eventSequence(), nanoClock, startNs);
    }

    /**
     * The journals have no room reserved for this batch: nothing of it is written or applied, its
     * sequence numbers are given back, and each waiting producer is answered why.
     */
    private void refuseBatch()
    {
        commandJournal.discardBatch();
        sequence -= batchSize;
        final String reason = space.refusal() != null ? space.refusal() :
            "journal disk full: no space could be reserved for the journals under " + dataDir;
        for (int i = 0; i < batchSize; i++)
        {
            if (batch[i].correlation != 0)
            {
                output.refused(batch[i].correlation, reason);
            }
            batch[i] = null;
        }
        batchSize = 0;
    }

    /**
     * After a failure in the middle of a batch: its commands, journaled or not, applied or not, are
     * not acknowledged; each waiting producer is answered that the core has stopped, and the
     * batch's unpublished output is dropped.
     */
    void abandonBatch()
    {
        final String reason = state.refusal();
        output.abandon(reason);
        for (int i = 0; i < batchSize; i++)
        {
            if (batch[i] != null && batch[i].correlation != 0)
            {
                output.refused(batch[i].correlation, reason);
            }
            batch[i] = null;
        }
        batchSize = 0;
    }

    /**
     * The engine failed on a command, half way through it perhaps: its state can no longer be trusted.
     * The command is quarantined, nothing of the batch's output leaves (inline output: its events are
     * not written; a restart regenerates those of the commands before it), and the core stops. The
     * restart rebuilds the state from the journal, replaying the command as a TICK.
     */
    private Quarantine.PoisonCommandException poisoned(final Command command, final Throwable ex)
    {
        final String reason = Quarantine.describe(command, ex);
        try
        {
            quarantine.add(command.sequence, reason);
        }
        catch (final IOException io)
        {
            log.accept("could not record the quarantine of command " + command.sequence + ": " + io +
                "; the next start quarantines it when it fails on it again");
        }
        output.discardBatch();
        // the batch's commands are answered UNAVAILABLE by abandonBatch(), once the failure is reported
        return new Quarantine.PoisonCommandException(command.sequence, reason, ex);
    }

    /** A failing query is the query's bug: reported, and the exchange goes on. */
    private void runQuery(final CommandSlot slot)
    {
        final Query query = slot.query;
        slot.query = null;
        try
        {
            query.run(engine);
        }
        catch (final RuntimeException ex)
        {
            log.accept("query " + query + " failed: " + ex);
        }
    }

    /**
     * An engine event: encoded into the event journal's batch and kept for the publishers (inline),
     * or handed to the output thread.
     */
    @Override
    public void onEvent(final Event event)
    {
        try
        {
            counters.onEvent(event, engine);
            output.event(event);
        }
        catch (final RuntimeException ex)
        {
            throw new CoreOutput.OutputFailure(ex);
        }
    }
}
