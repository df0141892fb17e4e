package io.gpux.engine.pipeline;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.command.Command;
import io.gpux.engine.counters.CounterDescriptor;
import io.gpux.engine.counters.CounterValue;
import io.gpux.engine.counters.CountersFile;
import io.gpux.engine.counters.ExchangeCounters;
import io.gpux.engine.journal.SnapshotStore;
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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Snapshots are serialized on the core thread and written, forced and renamed on the snapshot thread: while
 * a write is held the core goes on applying commands; a snapshot asked for meanwhile is put off, not lost;
 * a failed write is logged and counted and the core goes on.
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

        HeldStore(final Path dir, final int keep)
        {
            super(dir, keep);
        }

        @Override
        public Path persist(final Captured captured) throws IOException
        {
            writers.add(Thread.currentThread().getName());
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

    private ExchangePipeline.Context context(final PipelineRecoveryTest.ScenarioClock clock)
    {
        return new ExchangePipeline.Context().dataDir(dir).clock(clock).tickIntervalMs(0).snapshotEvery(0)
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

    @Test
    void theCoreAppliesCommandsWhileASnapshotIsBeingWritten() throws Exception
    {
        final List<Command> commands = PipelineRecoveryTest.commands(5, 900);
        final PipelineRecoveryTest.ScenarioClock clock = new PipelineRecoveryTest.ScenarioClock();
        final HeldStore[] store = new HeldStore[1];
        final SnapshotStore snapshots = new SnapshotStore(dir.resolve("snapshots"), 3);
        final ExchangePipeline pipeline = ExchangePipeline.start(context(clock)
            .snapshotStore((path, keep) -> store[0] = new HeldStore(path, keep)));
        try (pipeline)
        {
            publish(pipeline, clock, commands.subList(0, 300));
            awaitApplied(pipeline, 300);
            pipeline.requestSnapshot();
            assertTrue(store[0].entered.await(10, TimeUnit.SECONDS), "the write began");
            final long heldAt = pipeline.appliedCommands();

            // the write is held: the core goes on, and a snapshot asked for now is put off
            publish(pipeline, clock, commands.subList(300, 900));
            pipeline.requestSnapshot();
            awaitApplied(pipeline, heldAt + 601);
            awaitLog("put off");
            assertTrue(snapshots.list().isEmpty(), "nothing on disk while the write is held");

            store[0].release.countDown();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (snapshots.list().isEmpty())
            {
                assertTrue(System.nanoTime() < deadline, "the released snapshot reached the disk");
                Thread.sleep(1);
            }
            final SnapshotStore.Loaded first = SnapshotStore.load(snapshots.list().get(0), new MatchingEngine(e -> { }));
            assertEquals(heldAt, first.commandSequence(), "the snapshot covers the commands up to its capture");
        }
        assertEquals(List.of("gpux-snapshot"), store[0].writers.subList(0, 1), "the write ran off the core thread");
        // the snapshot put off while the first was held is on disk once close returns, at the last command
        final List<Path> files = snapshots.list();
        assertEquals(2, files.size(), files.toString());
        final SnapshotStore.Loaded last = SnapshotStore.load(files.get(1), new MatchingEngine(e -> { }));
        assertEquals(pipeline.appliedCommands(), last.commandSequence());
        assertEquals(pipeline.lastStateHash(), last.stateHash());
        assertNotEquals(0, last.journalIndex(), "the snapshot records the journal position it covers");
        assertEquals(1, log.stream().filter(m -> m.contains("put off")).count(), "logged once per busy spell: " + log);
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
            assertTrue(CounterValue.find(values, CounterDescriptor.SNAPSHOT_DURATION_NS) > 0, "the core's stall is timed");
            assertTrue(CounterValue.find(values, CounterDescriptor.SNAPSHOT_WRITE_NS) > 0, "the write is timed");
        }
        assertTrue(log.stream().anyMatch(m -> m.contains("failed: java.io.IOException: No space left on device")), log.toString());
        assertEquals(1, new SnapshotStore(dir.resolve("snapshots"), 3).list().size());
    }
}
