package io.gpux.core.pipeline;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.command.Command;
import io.gpux.core.journal.Journal;
import io.gpux.core.journal.SnapshotStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Recovery restores its snapshot a second time on another thread, checks the state hash there while it replays,
 * and hands that engine, at the snapshot's state, to the snapshot replica: the twin is the snapshot's state, the
 * recovered engine is a full replay's, a replica started from the twin (or, without one, from the file) takes
 * the core's snapshot, a start with nothing to replay has the snapshot's state hash, and a snapshot that does not
 * restore to its recorded hash stops recovery and the start, as without the twin.
 */
class SnapshotTwinTest
{
    /** Where the state hash sits in a snapshot file's header (magic, version, command, journal index, event). */
    private static final int HASH_OFFSET = 4 + 4 + 8 + 8 + 8;

    @TempDir
    Path dir;

    private final PipelineRecoveryTest.ScenarioClock clock = new PipelineRecoveryTest.ScenarioClock();

    private PipelineContext context()
    {
        return new PipelineContext().dataDir(dir).clock(clock).tickIntervalMs(0).snapshotEvery(0)
            .yielding(false).log(s -> { });
    }

    private void publish(final ExchangePipeline pipeline, final List<Command> commands) throws InterruptedException
    {
        for (final Command c : commands)
        {
            clock.now.set(c.timeMs);
            while (!pipeline.tryPublish(c))
            {
                assertTrue(!pipeline.failed(), "pipeline failed");
                Thread.onSpinWait();
            }
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (pipeline.appliedCommands() < commands.get(commands.size() - 1).sequence)
        {
            assertTrue(System.nanoTime() < deadline, "applied " + pipeline.appliedCommands());
            Thread.sleep(1);
        }
    }

    /** A day of commands with a snapshot asked for in its middle; returns the snapshot file. */
    private Path dayWithASnapshotInTheMiddle() throws Exception
    {
        final List<Command> commands = PipelineRecoveryTest.commands(21, 1200);
        try (ExchangePipeline pipeline = ExchangePipeline.start(context()))
        {
            publish(pipeline, commands.subList(0, commands.size() / 2));
            pipeline.requestSnapshot();
            // on disk before the rest is published: the snapshot covers the first half only
            final SnapshotStore store = new SnapshotStore(dir.resolve("snapshots"), 3);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (store.list().isEmpty())
            {
                assertTrue(System.nanoTime() < deadline, "no snapshot taken");
                Thread.sleep(1);
            }
            publish(pipeline, commands.subList(commands.size() / 2, commands.size()));
        }
        final List<Path> files = new SnapshotStore(dir.resolve("snapshots"), 3).list();
        assertEquals(1, files.size(), "snapshots " + files);
        return files.get(0);
    }

    private Recovery.Result recover(final boolean withSnapshot, final boolean twin) throws IOException
    {
        try (Journal commands = Journal.open(dir.resolve("commands")); Journal events = Journal.open(dir.resolve("events")))
        {
            return Recovery.recover(commands, events, withSnapshot ? new SnapshotStore(dir.resolve("snapshots"), 3) : null,
                null, true, Quarantine.none(), twin, engine -> { }, s -> { });
        }
    }

    @Test
    void theTwinHoldsTheSnapshotsStateAndTheRecoveredEngineAFullReplays() throws Exception
    {
        final Path snapshot = dayWithASnapshotInTheMiddle();
        final SnapshotStore.Loaded alone = SnapshotStore.load(snapshot, new MatchingEngine(e -> { }));
        assertNull(alone.twin(), "no twin unless asked for");

        final Recovery.Result twinned = recover(true, true);
        final Recovery.Result full = recover(false, false);
        assertEquals(alone.commandSequence(), twinned.snapshotSequence());
        assertEquals(alone.journalIndex(), twinned.snapshotIndex());
        assertNotSame(twinned.engine(), twinned.snapshotEngine());
        assertEquals(alone.stateHash(), twinned.snapshotEngine().stateHash(), "the twin is at the snapshot");
        assertEquals(alone.eventSequence(), twinned.snapshotEngine().eventSequence(), "and has applied nothing since");
        assertTrue(twinned.replayedCommands() > 0, "the journal after the snapshot replayed");
        assertEquals(full.commandSequence(), twinned.commandSequence());
        assertEquals(full.engine().stateHash(), twinned.engine().stateHash(), "the recovered state is a full replay's");
        assertEquals(full.engine().stateHash(), twinned.stateHash(), "its hash walked after a replay");
        assertNull(full.snapshotEngine(), "no snapshot, no twin");
    }

    @ParameterizedTest(name = "twin: {0}")
    @ValueSource(booleans = {true, false})
    void aReplicaStartedFromTheTwinOrTheFileSnapshotsTheCoresState(final boolean twin) throws Exception
    {
        dayWithASnapshotInTheMiddle();
        try (ExchangePipeline restarted = ExchangePipeline.start(context().snapshotTwin(twin)))
        {
            assertTrue(restarted.recovered().snapshotSequence() > 0, "started from the snapshot");
            assertEquals(twin, restarted.recovered().snapshotEngine() != null, "a twin only when asked for");
            restarted.requestSnapshot();
        }
        final List<Path> files = new SnapshotStore(dir.resolve("snapshots"), 3).list();
        assertEquals(2, files.size(), "the replica took the snapshot asked for: " + files);
        final SnapshotStore.Loaded taken = SnapshotStore.load(files.get(1), new MatchingEngine(e -> { }));
        final Recovery.Result full = recover(false, false);
        assertEquals(full.commandSequence(), taken.commandSequence(), "at the end of the journal (the TICK asked)");
        assertEquals(full.engine().stateHash(), taken.stateHash(), "the replica's snapshot is the core's state");
        try (ExchangePipeline again = ExchangePipeline.start(context()))
        {
            assertEquals(0, again.recovered().replayedCommands(), "nothing after the snapshot to replay");
            assertEquals(full.engine().stateHash(), again.lastStateHash(), "the state hash is the snapshot's");
        }
    }

    @Test
    void aSnapshotThatDoesNotRestoreToItsRecordedHashStopsRecoveryAndTheStart() throws Exception
    {
        final Path snapshot = dayWithASnapshotInTheMiddle();
        try (RandomAccessFile file = new RandomAccessFile(snapshot.toFile(), "rw"))
        {
            // the header is outside the body's checksum: the file still passes its check
            file.seek(HASH_OFFSET);
            final long recorded = file.readLong();
            file.seek(HASH_OFFSET);
            file.writeLong(recorded ^ 1);
        }
        assertNull(SnapshotStore.check(snapshot));
        final String expected = "restores to state hash";
        final Recovery.RecoveryException twinned = assertThrows(Recovery.RecoveryException.class, () -> recover(true, true));
        assertTrue(twinned.getMessage().contains(expected), twinned.getMessage());
        final IOException alone = assertThrows(IOException.class, () -> recover(true, false));
        assertTrue(alone.getMessage().contains(expected), alone.getMessage());
        final RuntimeException start = assertThrows(RuntimeException.class,
            () -> ExchangePipeline.start(context().snapshotTwin(true)).close());
        assertTrue(start.getMessage().contains(expected), start.getMessage());
        final IOException startAlone = assertThrows(IOException.class,
            () -> ExchangePipeline.start(context().snapshotTwin(false)).close());
        assertTrue(startAlone.getMessage().contains(expected), startAlone.getMessage());
    }
}
