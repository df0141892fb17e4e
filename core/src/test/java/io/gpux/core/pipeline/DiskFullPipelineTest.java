package io.gpux.core.pipeline;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.core.journal.CommandCodec;
import io.gpux.core.journal.Journal;
import io.gpux.core.journal.SmallTmpfs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The pipeline on a small tmpfs, fed until the disk is full: it refuses (with the reason) instead of
 * writing where there is no space, never fails, acknowledges only what its command journal holds,
 * takes commands again by itself once the file system is made larger, and recovers everything it
 * acknowledged. Needs {@code mount} (root); skipped, saying so, where it is not permitted.
 */
class DiskFullPipelineTest
{
    @TempDir
    Path dir;

    private SmallTmpfs tmpfs;
    private Path mountPoint;
    private final List<String> log = Collections.synchronizedList(new ArrayList<>());
    /** Correlation -> command sequence (acknowledged) or -1 (refused). */
    private final Map<Long, Long> answers = new ConcurrentHashMap<>();
    private final List<String> refusals = Collections.synchronizedList(new ArrayList<>());
    private final java.util.concurrent.atomic.AtomicInteger answeredTwice = new java.util.concurrent.atomic.AtomicInteger();

    @BeforeEach
    void mountSmallTmpfs() throws Exception
    {
        tmpfs = SmallTmpfs.mount(dir.resolve("mnt"), "24m");
        assumeTrue(tmpfs != null, "mounting a tmpfs is not permitted here (needs root): the disk-full test cannot run");
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

    private PipelineContext context(final Path data)
    {
        return new PipelineContext().dataDir(data).tickIntervalMs(0).snapshotEvery(0).yielding(false)
            .minFreeBytes(1L << 20)
            .log(log::add)
            .publisher(new EventPublisher()
            {
                @Override
                public void onEvent(final io.gpux.engine.event.Event event)
                {
                }

                @Override
                public void onCommandComplete(final long commandSequence, final long correlation)
                {
                    if (answers.putIfAbsent(correlation, commandSequence) != null)
                    {
                        answeredTwice.incrementAndGet();
                    }
                }

                @Override
                public void onCommandRefused(final long correlation, final String reason)
                {
                    answers.put(correlation, -1L);
                    refusals.add(reason);
                }
            });
    }

    @Test
    void refusesWhenFullResumesWhenGrownAndRecoversEverythingAcknowledged() throws Exception
    {
        final Path data = mountPoint.resolve("data");
        final List<Command> commands = PipelineRecoveryTest.commands(11, 20_000);
        long correlation = 0;
        String refusedWith = null;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        try (ExchangePipeline pipeline = ExchangePipeline.start(context(data)))
        {
            // stream until the pipeline refuses at the door
            while (refusedWith == null)
            {
                final Command c = commands.get((int)(correlation % commands.size()));
                final long tag = correlation + 1;
                if (pipeline.tryPublish((slot, seq, src) ->
                {
                    slot.command().copyFrom(src);
                    slot.correlation = tag;
                }, c))
                {
                    correlation = tag;
                }
                else
                {
                    refusedWith = pipeline.refusal();
                }
                assertFalse(pipeline.failed(), () -> "the pipeline failed: " + log);
                if (System.nanoTime() > deadline)
                {
                    fail("the disk never filled up: " + log);
                }
            }
            assertTrue(refusedWith.matches("journal disk full: \\d+ MB free under " + java.util.regex.Pattern.quote(
                data.toString()) + ", need \\d+ MB"), refusedWith);
            System.out.println("refused after " + correlation + " commands: " + refusedWith);
            final long published = correlation;
            awaitTrue(() -> answers.size() == published, "every command published is answered");
            assertFalse(pipeline.failed(), () -> "the pipeline failed: " + log);
            for (final String reason : refusals)
            {
                assertTrue(reason.startsWith("journal disk full: "), reason);
            }
            assertEquals(1, log.stream().filter(m -> m.endsWith("refusing new commands")).count(), log::toString);

            tmpfs.resize("64m");
            awaitTrue(() -> pipeline.refusal() == null, "the pipeline takes commands again once the disk has room");
            assertTrue(log.stream().anyMatch(m -> m.endsWith("accepting commands again")), log::toString);
            final long tag = correlation + 1;
            assertTrue(pipeline.tryPublish((slot, seq, src) ->
            {
                slot.command().copyFrom(src);
                slot.correlation = tag;
            }, new Command().reset(CommandType.TICK, 0)));
            awaitTrue(() -> answers.containsKey(tag), "a command after the disk grew is answered");
            assertTrue(answers.get(tag) > 0, "and acknowledged");
        }

        final List<Long> acknowledged = answers.values().stream().filter(s -> s > 0).sorted().toList();
        assertTrue(acknowledged.size() > 1000, "some were acknowledged: " + acknowledged.size());
        assertEquals(answers.size(), refusals.size() + acknowledged.size());
        assertEquals(0, answeredTwice.get(), "no command answered twice");
        try (ExchangePipeline again = ExchangePipeline.start(context(data)))
        {
            assertEquals(acknowledged.get(acknowledged.size() - 1), again.recovered().commandSequence(),
                "the journal ends with the last command acknowledged");
        }
        assertEquals(journaledSequences(data.resolve("commands")), acknowledged,
            "the command journal holds exactly the commands acknowledged");
    }

    private static List<Long> journaledSequences(final Path commands)
    {
        final List<Long> out = new ArrayList<>();
        try (Journal journal = Journal.openReadOnly(commands))
        {
            final Journal.Reader reader = journal.reader();
            final CommandCodec codec = new CommandCodec();
            final Command c = new Command();
            int n;
            while ((n = reader.next(codec.bytes())) >= 0)
            {
                assertEquals(null, codec.decode(n, c));
                out.add(c.sequence);
            }
        }
        return out;
    }

    private static void awaitTrue(final java.util.function.BooleanSupplier condition, final String what)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                fail("timed out waiting: " + what);
            }
            Thread.sleep(5);
        }
    }
}
