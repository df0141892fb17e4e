package io.gpux.core.pipeline;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.command.Command;
import io.gpux.core.counters.CounterDescriptor;
import io.gpux.core.counters.CounterValue;
import io.gpux.core.counters.CountersFile;
import io.gpux.core.counters.ExchangeCounters;
import io.gpux.core.journal.SnapshotStore;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Snapshots are taken by the snapshot replica, an engine of its own that follows the command journal on the
 * {@code gpux-snapshot} thread: while it is held the core goes on applying and publishing; a snapshot asked for
 * meanwhile is taken once it gets there, not lost; its lag is counted while it is held; the replica's snapshot is
 * byte for byte the one the core's engine would give at the same command, a quarantined command included; a
 * failed write is logged and counted and the core goes on.
 */
class SnapshotOffCoreTest
{
    @TempDir
    Path dir;

    private final List<String> log = new CopyOnWriteArrayList<>();

    /** A store whose writes wait for the test to let them through, and that says which thread wrote. */
    private static final class HeldStore extends SnapshotStore
    {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final List<String> writers = new CopyOnWriteArrayList<>();
        final List<Long> sequences = new CopyOnWriteArrayList<>();

        HeldStore(final Path dir, final int keep)
        {
            super(dir, keep);
        }

        @Override
        public Path persist(final Captured captured) throws IOException
        {
            writers.add(Thread.currentThread().getName());
            sequences.add(captured.commandSequence());
            entered.countDown();
            try
            {
                release.await();
            }
            catch (final InterruptedException ex)
            {
                throw new IOException("interrupted");
            }
            return super.persist(captured);
        }
    }

    private PipelineContext context(final PipelineRecoveryTest.ScenarioClock clock)
    {
        return new PipelineContext().dataDir(dir).clock(clock).tickIntervalMs(0).snapshotEvery(0)
            .yielding(false).log(log::add);
    }

    private static void publish(final ExchangePipeline pipeline, final PipelineRecoveryTest.ScenarioClock clock,
        final List<Command> commands)
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
    }

    private static void awaitApplied(final ExchangePipeline pipeline, final long n) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (pipeline.appliedCommands() < n)
        {
            assertTrue(System.nanoTime() < deadline, "applied " + pipeline.appliedCommands() + " of " + n);
            Thread.sleep(1);
        }
    }

    private void awaitLog(final String marker) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (log.stream().noneMatch(m -> m.contains(marker)))
        {
            assertTrue(System.nanoTime() < deadline, "logged \"" + marker + "\": " + log);
            Thread.sleep(1);
        }
    }

    private static long counter(final CountersFile file, final CounterDescriptor d)
    {
        return CounterValue.find(CounterValue.readAll(new CountersReader(file.metadata(), file.values())), d);
    }

    private static void await(final String what, final java.util.function.BooleanSupplier done) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!done.getAsBoolean())
        {
            assertTrue(System.nanoTime() < deadline, what);
            Thread.sleep(1);
        }
    }

    @Test
    void theCoreAppliesAndPublishesWhileTheReplicaIsHeldInASnapshot() throws Exception
    {
        final List<Command> commands = PipelineRecoveryTest.commands(5, 900);
        final PipelineRecoveryTest.ScenarioClock clock = new PipelineRecoveryTest.ScenarioClock();
        final HeldStore[] store = new HeldStore[1];
        final SnapshotStore snapshots = new SnapshotStore(dir.resolve("snapshots"), 3);
        final AtomicInteger events = new AtomicInteger();
        try (ExchangeCounters counters = ExchangeCounters.inFile(dir, System.currentTimeMillis());
             CountersFile file = CountersFile.open(dir))
        {
            final ExchangePipeline pipeline = ExchangePipeline.start(context(clock).counters(counters)
                .publisher(e -> events.incrementAndGet()).snapshotStore((path, keep) -> store[0] = new HeldStore(path, keep)));
            try (pipeline)
            {
                publish(pipeline, clock, commands.subList(0, 300));
                awaitApplied(pipeline, 300);
                pipeline.requestSnapshot();
                assertTrue(store[0].entered.await(10, TimeUnit.SECONDS), "the replica serialized and began the write");
                assertEquals(List.of(301L), store[0].sequences, "the snapshot covers the commands published before the " +
                    "request and the TICK the request published after them");
                final int eventsBefore = events.get();

                // the replica is held: the core applies and publishes, a snapshot asked for now waits for the replica
                publish(pipeline, clock, commands.subList(300, 900));
                awaitApplied(pipeline, 901);
                await("the core published the events of the commands applied meanwhile", () -> events.get() > eventsBefore);
                pipeline.requestSnapshot();
                assertTrue(!pipeline.failed());
                assertTrue(snapshots.list().isEmpty(), "nothing on disk while the write is held");
                assertEquals(1, store[0].sequences.size(), "the replica is still in the first snapshot");

                store[0].release.countDown();
                await("the replica caught up and took the snapshot asked for while it was held",
                    () -> store[0].sequences.size() == 2);
                assertEquals(902, store[0].sequences.get(1));
                await("the second snapshot is written", () -> counter(file, CounterDescriptor.SNAPSHOT_SEQUENCE) == 902);
                await("the lag is back to 0", () -> counter(file, CounterDescriptor.SNAPSHOT_LAG_COMMANDS) == 0);
            }
            assertEquals(List.of("gpux-snapshot", "gpux-snapshot"), store[0].writers, "serialized and written off the core thread");
            final List<Path> files = snapshots.list();
            assertEquals(2, files.size(), files.toString());
            final SnapshotStore.Loaded last = SnapshotStore.load(files.get(1), new MatchingEngine(e -> { }));
            assertEquals(pipeline.appliedCommands(), last.commandSequence());
            assertEquals(pipeline.lastStateHash(), last.stateHash(), "the replica's state is the core's");
            assertNotEquals(0, last.journalIndex(), "the snapshot records the journal position it covers");
        }
    }

    @Test
    void theLagGrowsWhileTheReplicaIsBusyAndComesBackWhenItCatchesUp() throws Exception
    {
        final List<Command> commands = PipelineRecoveryTest.commands(3, 500);
        final PipelineRecoveryTest.ScenarioClock clock = new PipelineRecoveryTest.ScenarioClock();
        final HeldStore[] store = new HeldStore[1];
        try (ExchangeCounters counters = ExchangeCounters.inFile(dir, System.currentTimeMillis());
             CountersFile file = CountersFile.open(dir))
        {
            // the ticker samples the lag once a second, from outside the replica
            final ExchangePipeline pipeline = ExchangePipeline.start(context(clock).tickIntervalMs(20).counters(counters)
                .snapshotStore((path, keep) -> store[0] = new HeldStore(path, keep)));
            try (pipeline)
            {
                publish(pipeline, clock, commands.subList(0, 100));
                pipeline.requestSnapshot();
                assertTrue(store[0].entered.await(10, TimeUnit.SECONDS), "the replica is in a snapshot");
                publish(pipeline, clock, commands.subList(100, 500));
                await("the lag counts the commands the held replica has not applied",
                    () -> counter(file, CounterDescriptor.SNAPSHOT_LAG_COMMANDS) >= 400);
                store[0].release.countDown();
                await("the lag is back to 0", () -> counter(file, CounterDescriptor.SNAPSHOT_LAG_COMMANDS) == 0);
            }
        }
    }

    @Test
    void theReplicasSnapshotsAreTheCoresStateAtTheSameCommand() throws Exception
    {
        final List<Command> commands = PipelineRecoveryTest.commands(9, 1500);
        final PipelineRecoveryTest.ScenarioClock clock = new PipelineRecoveryTest.ScenarioClock();
        try (ExchangePipeline pipeline = ExchangePipeline.start(context(clock).snapshotEvery(400).snapshotsKept(10)))
        {
            // in steps, so that the core's batches (the journal's documents, where snapshots can be) stay small
            for (int i = 0; i < commands.size(); i += 50)
            {
                publish(pipeline, clock, commands.subList(i, Math.min(commands.size(), i + 50)));
                awaitApplied(pipeline, Math.min(commands.size(), i + 50));
            }
            pipeline.requestSnapshot();
        }
        final List<Path> files = new SnapshotStore(dir.resolve("snapshots"), 10).list();
        assertTrue(files.size() >= 4, "periodic snapshots and the last one asked for: " + files);
        final SnapshotStore reference = new SnapshotStore(dir.resolve("reference"), 10);
        try (io.gpux.core.journal.Journal journal = io.gpux.core.journal.Journal.openReadOnly(dir.resolve("commands")))
        {
            for (final Path file : files)
            {
                final SnapshotStore.Loaded taken = SnapshotStore.load(file, new MatchingEngine(e -> { }));
                // the engine the core runs, fed the journal up to the command the snapshot covers, serialized there
                final MatchingEngine engine = new MatchingEngine(e -> { });
                final io.gpux.core.journal.Journal.Reader reader = journal.reader();
                final io.gpux.core.journal.CommandCodec codec = new io.gpux.core.journal.CommandCodec();
                final Command c = new Command();
                long applied = 0;
                while (applied < taken.commandSequence())
                {
                    final int n = reader.next(codec.bytes());
                    assertTrue(n >= 0, "the journal holds command " + taken.commandSequence());
                    assertEquals(null, codec.decode(n, c));
                    engine.apply(c);
                    applied = c.sequence;
                }
                assertTrue(reader.endOfDocument(), "a snapshot covers whole batches");
                assertEquals(taken.journalIndex(), reader.index());
                final Path expected = reference.persist(SnapshotStore.capture(engine, applied, reader.index()));
                assertArrayEquals(java.nio.file.Files.readAllBytes(expected), java.nio.file.Files.readAllBytes(file),
                    file.getFileName() + " is byte for byte the core's state at command " + applied);
                reader.close();
            }
        }
    }

    @Test
    void theReplicaReplaysAQuarantinedCommandAsRecoveryDoes() throws Exception
    {
        final List<Command> commands = PipelineRecoveryTest.commands(13, 400);
        final PipelineRecoveryTest.ScenarioClock clock = new PipelineRecoveryTest.ScenarioClock();
        try (ExchangePipeline pipeline = ExchangePipeline.start(context(clock)))
        {
            publish(pipeline, clock, commands.subList(0, 300));
            awaitApplied(pipeline, 300);
        }
        // as if the engine had failed on the last command once its events were journaled: the next start replays
        // it as a TICK and skips its events' numbers
        java.nio.file.Files.writeString(dir.resolve(Quarantine.FILE), "300 the engine failed (a test's)\n");
        final ExchangePipeline restarted = ExchangePipeline.start(context(clock));
        try (restarted)
        {
            assertEquals(1, restarted.recovered().quarantinedCommands());
            assertTrue(log.stream().anyMatch(m -> m.contains("of quarantined command 300 dropped")), "its events: " + log);
            publish(restarted, clock, commands.subList(300, 400));
            awaitApplied(restarted, 400);
            restarted.requestSnapshot();
        }
        final List<Path> files = new SnapshotStore(dir.resolve("snapshots"), 3).list();
        assertEquals(1, files.size(), files.toString());
        final SnapshotStore.Loaded taken = SnapshotStore.load(files.get(0), new MatchingEngine(e -> { }));
        assertEquals(401, taken.commandSequence());
        assertEquals(restarted.lastStateHash(), taken.stateHash(), "the replica's state is the core's");
        try (io.gpux.core.journal.Journal commandJournal = io.gpux.core.journal.Journal.openReadOnly(dir.resolve("commands"));
             io.gpux.core.journal.Journal events = io.gpux.core.journal.Journal.openReadOnly(dir.resolve("events")))
        {
            final Recovery.Result replayed = Recovery.recover(commandJournal, events, null, null, true, Quarantine.load(dir),
                m -> { });
            assertEquals(replayed.engine().eventSequence(), taken.eventSequence(), "the same event numbers skipped");
            assertEquals(replayed.engine().stateHash(), taken.stateHash());
        }
    }

    @Test
    void aFailedWriteIsLoggedAndCountedAndTheCoreGoesOn() throws Exception
    {
        final List<Command> commands = PipelineRecoveryTest.commands(7, 400);
        final PipelineRecoveryTest.ScenarioClock clock = new PipelineRecoveryTest.ScenarioClock();
        final AtomicInteger writes = new AtomicInteger();
        try (ExchangeCounters counters = ExchangeCounters.inFile(dir, System.currentTimeMillis());
             CountersFile file = CountersFile.open(dir))
        {
            final ExchangePipeline pipeline = ExchangePipeline.start(context(clock).counters(counters)
                .snapshotStore((path, keep) -> new SnapshotStore(path, keep)
                {
                    @Override
                    public Path persist(final Captured captured) throws IOException
                    {
                        if (writes.incrementAndGet() == 1)
                        {
                            throw new IOException("No space left on device");
                        }
                        return super.persist(captured);
                    }
                }));
            try (pipeline)
            {
                publish(pipeline, clock, commands.subList(0, 200));
                pipeline.requestSnapshot();
                awaitLog("failed");
                publish(pipeline, clock, commands.subList(200, 400));
                awaitApplied(pipeline, 401);
                assertTrue(!pipeline.failed());
                pipeline.requestSnapshot();
            }
            final List<CounterValue> values = CounterValue.readAll(new CountersReader(file.metadata(), file.values()));
            assertEquals(1, CounterValue.find(values, CounterDescriptor.SNAPSHOT_FAILURES));
            assertEquals(1, CounterValue.find(values, CounterDescriptor.SNAPSHOTS));
            assertEquals(pipeline.appliedCommands(), CounterValue.find(values, CounterDescriptor.SNAPSHOT_SEQUENCE));
            assertTrue(CounterValue.find(values, CounterDescriptor.SNAPSHOT_DURATION_NS) > 0, "the serialization is timed");
            assertTrue(CounterValue.find(values, CounterDescriptor.SNAPSHOT_WRITE_NS) > 0, "the write is timed");
        }
        assertTrue(log.stream().anyMatch(m -> m.contains("failed: java.io.IOException: No space left on device")), log.toString());
        assertEquals(1, new SnapshotStore(dir.resolve("snapshots"), 3).list().size());
    }
}
