package io.gpux.core.pipeline;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.event.Event;
import io.gpux.engine.event.EventSink;
import io.gpux.core.journal.CommandCodec;
import io.gpux.core.journal.EventCodec;
import io.gpux.core.journal.Journal;
import io.gpux.core.journal.RecordDescriptor;
import io.gpux.core.journal.SnapshotStore;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * Start-up: the newest valid snapshot, then the command journal after it replayed with output
 * suppressed, each regenerated event checked against the event journal (events the journal lacks,
 * because the process died before writing them, are appended). A torn tail record in either journal
 * is reported and cut off; any other mismatch is fatal: the exchange must not start on a history it
 * cannot reproduce.
 */
public final class Recovery
{
    /**
     * The state to go live from. {@code snapshotEngine}: when recovery was asked to restore its snapshot twice, the
     * second engine, at the snapshot's state (journal index {@code snapshotIndex}), for the snapshot replica to start
     * from; else null. {@code snapshotHash}: the state hash the snapshot recorded, checked (0 without a snapshot).
     */
    public record Result(MatchingEngine engine, long commandSequence, long commandIndex, long snapshotSequence,
        long replayedCommands, long appendedEvents, long checkedEvents, long quarantinedCommands,
        MatchingEngine snapshotEngine, long snapshotIndex, long snapshotHash)
    {
        /** The recovered engine's state hash: the snapshot's when nothing was replayed after it, else walked. */
        public long stateHash()
        {
            return snapshotSequence > 0 && replayedCommands == 0 ? snapshotHash : engine.stateHash();
        }
    }

    /** Recovery cannot reproduce the journaled history. */
    public static final class RecoveryException extends RuntimeException
    {
        public RecoveryException(final String message)
        {
            super(message);
        }
    }

    private Recovery()
    {
    }

    /** Recovers from the newest valid snapshot, repairing a torn tail and appending missing events. */
    public static Result recover(
        final Journal commands, final Journal events, final SnapshotStore snapshots, final boolean useSnapshots,
        final Consumer<String> log) throws IOException
    {
        return recover(commands, events, useSnapshots ? snapshots : null, null, false, Quarantine.none(), log);
    }

    /** As {@link #recover(Journal, Journal, SnapshotStore, Path, boolean, Quarantine, Consumer)} with nothing quarantined. */
    public static Result recover(
        final Journal commands, final Journal events, final SnapshotStore snapshots, final Path snapshotFile,
        final boolean readOnly, final Consumer<String> log) throws IOException
    {
        return recover(commands, events, snapshots, snapshotFile, readOnly, Quarantine.none(), log);
    }

    /**
     * @param snapshots    where to find the newest snapshot, or null to replay from the start.
     * @param snapshotFile a particular snapshot to start from, or null.
     * @param readOnly     verify only: report torn tails and missing events instead of repairing.
     * @param quarantine   the commands the engine failed on, replayed as TICKs; when not read-only, a command
     *                     the engine fails on during the replay is added to it and recovery stops with a
     *                     {@link Quarantine.PoisonCommandException}, for the caller to recover again.
     */
    public static Result recover(
        final Journal commands, final Journal events, final SnapshotStore snapshots, final Path snapshotFile,
        final boolean readOnly, final Quarantine quarantine, final Consumer<String> log) throws IOException
    {
        return recover(commands, events, snapshots, snapshotFile, readOnly, quarantine, engine -> { }, log);
    }

    /** As above; {@code engineSetup} sees the new engine before anything is replayed (tests inject faults). */
    static Result recover(
        final Journal commands, final Journal events, final SnapshotStore snapshots, final Path snapshotFile,
        final boolean readOnly, final Quarantine quarantine, final Consumer<MatchingEngine> engineSetup,
        final Consumer<String> log) throws IOException
    {
        return recover(commands, events, snapshots, snapshotFile, readOnly, quarantine, false, engineSetup, log);
    }

    /**
     * As above; with {@code twin}, the snapshot is restored a second time on another thread, where its state hash
     * is checked while this one replays (see {@link SnapshotStore.Twin}); the check is awaited before recovery
     * repairs anything (cuts a torn tail, appends an event, quarantines a command) and before it returns, and the
     * second engine is the result's {@code snapshotEngine}.
     */
    static Result recover(
        final Journal commands, final Journal events, final SnapshotStore snapshots, final Path snapshotFile,
        final boolean readOnly, final Quarantine quarantine, final boolean twin,
        final Consumer<MatchingEngine> engineSetup, final Consumer<String> log) throws IOException
    {
        final SnapshotCheck snapshotCheck = new SnapshotCheck();
        final EventCheck check = new EventCheck(events, readOnly, snapshotCheck, log);
        final MatchingEngine engine = new MatchingEngine(check);
        engineSetup.accept(engine);
        long commandSequence = 0;
        long commandIndex = -1;
        long snapshotSequence = 0;
        long snapshotIndex = -1;
        long snapshotHash = 0;
        final Journal.Reader reader = commands.reader();
        if (snapshots != null || snapshotFile != null)
        {
            final SnapshotStore.Loaded loaded = snapshotFile != null ? SnapshotStore.load(snapshotFile, engine, twin) :
                snapshots.loadNewest(engine, log, lastEventSequence(events), twin);
            if (loaded != null)
            {
                snapshotCheck.twin = loaded.twin();
                if (!reader.startAfter(loaded.journalIndex()))
                {
                    throw new RecoveryException("snapshot " + loaded.file().getFileName() + " covers journal index " +
                        Long.toHexString(loaded.journalIndex()) + ", which the command journal does not have");
                }
                commandSequence = loaded.commandSequence();
                commandIndex = loaded.journalIndex();
                snapshotSequence = commandSequence;
                snapshotIndex = commandIndex;
                snapshotHash = loaded.stateHash();
                log.accept("snapshot " + loaded.file().getFileName() + " loaded: command " + commandSequence);
            }
        }
        check.positionAfter(engine.eventSequence());

        final CommandCodec codec = new CommandCodec();
        final Command command = new Command();
        long replayed = 0;
        long quarantined = 0;
        int length;
        while ((length = reader.next(codec.bytes())) >= 0)
        {
            final String problem = codec.decode(length, command);
            if (problem != null)
            {
                if (reader.atEnd())
                {
                    log.accept("command journal: torn tail record at index " + Long.toHexString(reader.index()) +
                        " (" + problem + ")" + (readOnly ? "" : ": cut off"));
                    if (!readOnly)
                    {
                        snapshotCheck.verify();
                        commands.cutTornTail(reader.index());
                    }
                    break;
                }
                throw new RecoveryException("command journal corrupt at index " + Long.toHexString(reader.index()) +
                    ": " + problem);
            }
            if (command.sequence != commandSequence + 1)
            {
                throw new RecoveryException("command journal out of sequence at index " +
                    Long.toHexString(reader.index()) + ": command " + command.sequence + " after " + commandSequence);
            }
            if (quarantine.contains(command.sequence))
            {
                log.accept("quarantined, replayed as a TICK: " + quarantine.reason(command.sequence));
                final long sequence = command.sequence;
                command.reset(CommandType.TICK, command.timeMs);
                command.sequence = sequence;
                engine.apply(command);
                final long skipped = check.dropStoredEventsOf(command.sequence);
                engine.skipEventsThrough(skipped);
                quarantine.replayedAsTick(command.sequence, skipped);
                quarantined++;
            }
            else
            {
                apply(engine, command, readOnly, quarantine, snapshotCheck, log);
            }
            commandSequence = command.sequence;
            commandIndex = reader.index();
            replayed++;
        }
        check.finish(commandSequence);
        engine.sink(event -> { });
        final MatchingEngine snapshotEngine = snapshotCheck.verify();
        return new Result(engine, commandSequence, commandIndex, snapshotSequence, replayed, check.appended, check.checked,
            quarantined, snapshotEngine, snapshotIndex, snapshotHash);
    }

    /** Applies a journaled command; one the engine fails on is quarantined (or, read-only, reported). */
    private static void apply(
        final MatchingEngine engine, final Command command, final boolean readOnly, final Quarantine quarantine,
        final SnapshotCheck snapshotCheck, final Consumer<String> log) throws IOException
    {
        try
        {
            engine.apply(command);
        }
        catch (final RecoveryException ex)
        {
            // the journals disagree: not the command's doing
            throw ex;
        }
        catch (final RuntimeException | AssertionError ex)
        {
            final String reason = Quarantine.describe(command, ex);
            if (readOnly)
            {
                throw new RecoveryException(reason + "; the exchange quarantines it when it next starts");
            }
            snapshotCheck.verify();
            quarantine.add(command.sequence, reason);
            log.accept("quarantined on replay: " + reason);
            throw new Quarantine.PoisonCommandException(command.sequence, reason, ex);
        }
    }

    /** The sequence of the last good record of the event journal, 0 if none. */
    static long lastEventSequence(final Journal events)
    {
        final EventCodec codec = new EventCodec();
        final Event scratch = new Event();
        final long[] last = {0};
        events.readBackward(codec.bytes(), 64, (record, length) ->
        {
            if (codec.decode(length, scratch) == null)
            {
                last[0] = scratch.sequence;
                return true;
            }
            return false;
        });
        return last[0];
    }

    /** The snapshot's twin, if one restores it: its state hash check awaited (once) before anything is repaired. */
    private static final class SnapshotCheck
    {
        SnapshotStore.Twin twin;
        private MatchingEngine verified;

        /** @return the twin engine, or null if there is none. */
        MatchingEngine verify()
        {
            if (twin != null && verified == null)
            {
                try
                {
                    verified = twin.await();
                }
                catch (final IOException ex)
                {
                    throw new RecoveryException(ex.getMessage());
                }
            }
            return verified;
        }
    }

    /** Compares regenerated events with the event journal, appending what it lacks. */
    private static final class EventCheck implements EventSink
    {
        private final Journal journal;
        private final boolean readOnly;
        private final SnapshotCheck snapshotCheck;
        private final Consumer<String> log;
        private final Journal.Reader reader;
        private final EventCodec regenerated = new EventCodec();
        private final byte[] stored = new byte[RecordDescriptor.MAX_RECORD_LENGTH];
        private final EventCodec storedCodec = new EventCodec();
        private final Event scratch = new Event();
        private boolean journalExhausted;
        /** The length of a stored event read ahead (in {@code stored}) and not yet compared, or -1. */
        private int heldLength = -1;
        long appended;
        long checked;

        EventCheck(final Journal journal, final boolean readOnly, final SnapshotCheck snapshotCheck,
            final Consumer<String> log)
        {
            this.journal = journal;
            this.readOnly = readOnly;
            this.snapshotCheck = snapshotCheck;
            this.log = log;
            reader = journal.reader();
        }

        /**
         * Skips the journaled events up to and including {@code sequence}: finds, from the end back, the
         * document where they stop (a snapshot is recent, so this reads little), then reads forward.
         */
        void positionAfter(final long sequence)
        {
            if (sequence == 0)
            {
                return;
            }
            final long start = journal.findBackward(storedCodec.bytes(),
                (record, length) -> storedCodec.decode(length, scratch) == null && scratch.sequence <= sequence);
            if (start < 0 || !reader.startAt(start))
            {
                throw new RecoveryException("event journal ends before event " + sequence + ", which the snapshot covers");
            }
            while (true)
            {
                final int length = reader.next(storedCodec.bytes());
                if (length < 0)
                {
                    throw new RecoveryException("event journal ends before event " + sequence + ", which the snapshot covers");
                }
                if (storedCodec.decode(length, scratch) == null && scratch.sequence >= sequence)
                {
                    if (scratch.sequence > sequence)
                    {
                        throw new RecoveryException("event journal skips from before event " + sequence + " to " +
                            scratch.sequence);
                    }
                    return;
                }
            }
        }

        @Override
        public void onEvent(final Event event)
        {
            final int length = regenerated.encode(event);
            if (!journalExhausted)
            {
                final int n = nextStored();
                if (n >= 0)
                {
                    if (n == length && Arrays.equals(stored, 0, n, regenerated.bytes(), 0, length))
                    {
                        checked++;
                        return;
                    }
                    final String problem = storedCodec.decode(copy(n), scratch);
                    if (problem != null && reader.atEnd())
                    {
                        log.accept("event journal: torn tail record at index " + Long.toHexString(reader.index()) +
                            " (" + problem + ")" + (readOnly ? "" : ": cut off"));
                        if (!readOnly)
                        {
                            snapshotCheck.verify();
                            journal.cutTornTail(reader.index());
                        }
                    }
                    else
                    {
                        throw new RecoveryException("event " + event.sequence + " regenerated from the command journal " +
                            "differs from the event journal at index " + Long.toHexString(reader.index()) +
                            (problem == null ? "" : " (" + problem + ")"));
                    }
                }
                journalExhausted = true;
            }
            if (!readOnly)
            {
                snapshotCheck.verify();
                journal.append(regenerated.bytes(), length);
            }
            appended++;
        }

        /**
         * Whether the record just read (of {@code n} bytes) and every one after it are events of
         * commands after {@code lastCommand}, all in the journal's last document: the output of a batch
         * whose commands never made it into the command journal (their write failed), which was never
         * acknowledged, so it is cut rather than refused. Leaves the reader at the end of the journal.
         */
        private boolean isLastDocumentOfLaterCommands(final int n, final long lastCommand)
        {
            final long document = reader.index();
            int length = n;
            while (true)
            {
                if (storedCodec.decode(copy(length), scratch) != null || scratch.commandSequence <= lastCommand ||
                    reader.index() != document)
                {
                    return false;
                }
                if (reader.atEnd())
                {
                    return true;
                }
                length = reader.next(stored);
            }
        }

        private int nextStored()
        {
            final int n = heldLength >= 0 ? heldLength : reader.next(stored);
            heldLength = -1;
            return n;
        }

        /**
         * Skips the stored events of a quarantined command that its replay as a TICK did not regenerate:
         * what the engine emitted before it failed, if any of that reached the event journal.
         *
         * @return the number of the last event skipped, or 0 if none was.
         */
        long dropStoredEventsOf(final long commandSequence)
        {
            long last = 0;
            if (journalExhausted)
            {
                return last;
            }
            int n;
            while ((n = nextStored()) >= 0)
            {
                if (storedCodec.decode(copy(n), scratch) != null || scratch.commandSequence != commandSequence)
                {
                    heldLength = n;
                    break;
                }
                last = scratch.sequence;
                log.accept("event " + last + " of quarantined command " + commandSequence + " dropped");
            }
            return last;
        }

        private int copy(final int n)
        {
            System.arraycopy(stored, 0, storedCodec.bytes(), 0, n);
            return n;
        }

        /** @param lastCommand the sequence of the last command the command journal holds. */
        void finish(final long lastCommand)
        {
            final int n = journalExhausted ? -1 : nextStored();
            if (n >= 0 && storedCodec.decode(copy(n), scratch) != null && reader.atEnd())
            {
                log.accept("event journal: torn tail record at index " + Long.toHexString(reader.index()) +
                    (readOnly ? "" : ": cut off"));
                if (!readOnly)
                {
                    snapshotCheck.verify();
                    journal.cutTornTail(reader.index());
                }
            }
            else if (n >= 0 && isLastDocumentOfLaterCommands(n, lastCommand))
            {
                log.accept("event journal: the last document (index " + Long.toHexString(reader.index()) + ") holds events of " +
                    "commands after " + lastCommand + ", which the command journal lacks (a batch whose command " +
                    "journal write failed, never acknowledged)" + (readOnly ? "" : ": cut off"));
                if (!readOnly)
                {
                    snapshotCheck.verify();
                    journal.cutTornTail(reader.index());
                }
            }
            else if (n >= 0)
            {
                throw new RecoveryException("the event journal holds events after the last one the command journal " +
                    "regenerates (index " + Long.toHexString(reader.index()) + ")");
            }
            if (appended > 0)
            {
                log.accept("event journal: " + appended + " events regenerated" + (readOnly ? " but missing" : " and appended"));
            }
        }
    }
}
