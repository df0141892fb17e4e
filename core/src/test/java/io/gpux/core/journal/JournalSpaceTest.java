package io.gpux.core.journal;

import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A guarded journal on a small tmpfs, written to until the disk is full: every batch lands in space the
 * guard reserved, the batch that no longer fits is refused whole ({@link Journal.JournalFullException},
 * nothing of it written, no fault), the guard says why, and once the file system is larger the same
 * batch is written. Needs {@code mount} (root); skipped, saying so, where it is not permitted.
 */
class JournalSpaceTest
{
    @TempDir
    Path dir;

    private SmallTmpfs tmpfs;
    private Path mountPoint;
    private final List<String> log = Collections.synchronizedList(new ArrayList<>());

    @BeforeEach
    void mountSmallTmpfs() throws Exception
    {
        tmpfs = SmallTmpfs.mount(dir.resolve("mnt"), "8m");
        assumeTrue(tmpfs != null, "mounting a tmpfs is not permitted here (needs root): the journal space test cannot run");
        mountPoint = tmpfs.path();
    }

    @AfterEach
    void unmount() throws Exception
    {
        if (tmpfs != null)
        {
            tmpfs.close();
        }
    }

    @Test
    void aBatchIsWrittenOnlyIntoReservedSpaceAndRefusedWholeWhenTheDiskIsFull() throws Exception
    {
        final byte[] record = new byte[RecordDescriptor.MAX_RECORD_LENGTH];
        try (Journal journal = Journal.open(mountPoint.resolve("journal")))
        {
            final JournalSpace space = new JournalSpace(mountPoint, 1L << 20, SystemNanoClock.INSTANCE, log::add, journal);
            journal.append(record, 100);
            space.doWork();
            assertTrue(journal.hasRoom(0, false), "the guard has reserved space ahead of the writer");
            final AgentRunner runner = new AgentRunner(new SleepingMillisIdleStrategy(1), ex -> log.add(ex.toString()),
                null, space);
            AgentRunner.startOnThread(runner);
            try
            {
                Journal.JournalFullException full = null;
                int batches = 0;
                while (full == null)
                {
                    for (int i = 0; i < 16; i++)
                    {
                        journal.add(record, record.length);
                    }
                    final long before = journal.writtenUpTo();
                    try
                    {
                        journal.endBatch();
                        batches++;
                        assertTrue(journal.hasRoom(0, false), "a written batch lies in reserved space");
                    }
                    catch (final Journal.JournalFullException ex)
                    {
                        full = ex;
                        assertEquals(before, journal.writtenUpTo(), "nothing of the refused batch was written");
                    }
                    if (batches > 10_000)
                    {
                        fail("the disk never filled up: " + log);
                    }
                }
                assertTrue(batches > 10, "batches written before the disk was full: " + batches);
                assertTrue(full.getMessage().startsWith("journal disk full: "), full.getMessage());
                assertTrue(space.refusal().matches("journal disk full: \\d+ MB free under " +
                    java.util.regex.Pattern.quote(mountPoint.toString()) + ", need \\d+ MB"), space.refusal());
                // the guard sets its refusal, then logs it: wait for the line before counting
                final long logged = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (log.stream().noneMatch(m -> m.endsWith("refusing new commands")) && System.nanoTime() < logged)
                {
                    Thread.sleep(5);
                }
                assertEquals(1, log.stream().filter(m -> m.endsWith("refusing new commands")).count(), log::toString);

                tmpfs.resize("32m");
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (space.refusal() != null)
                {
                    if (System.nanoTime() > deadline)
                    {
                        fail("the guard did not see the space come back: " + log);
                    }
                    Thread.sleep(5);
                }
                assertTrue(log.stream().anyMatch(m -> m.endsWith("accepting commands again")), log::toString);
                journal.endBatch();
                assertEquals(0, journal.pendingBytes(), "the refused batch is written once there is room");
            }
            finally
            {
                runner.close();
            }
        }
        assertNull(log.stream().filter(m -> m.contains("Error")).findFirst().orElse(null), log::toString);
    }
}
