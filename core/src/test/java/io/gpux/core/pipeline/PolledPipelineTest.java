package io.gpux.core.pipeline;

import io.gpux.engine.command.Command;
import io.gpux.core.journal.EventCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A polled pipeline (no core thread: its owner calls {@code poll}) journals and prints exactly what
 * one with a core thread does for the same commands, whatever the sizes of the polls; every publish
 * calls the owner's wake-up hook; and what is still in the ring when the owner stops polling is
 * applied on close.
 */
class PolledPipelineTest
{
    @TempDir
    Path dir;

    private static final long TIME = 1_700_000_000_000L;

    @Test
    void aPolledPipelinePrintsWhatAThreadedOneDoes() throws Exception
    {
        final List<Command> commands = PipelineRecoveryTest.commands(7, 3000);
        final EventCodec threadedCodec = new EventCodec();
        final List<byte[]> threadedEvents = new ArrayList<>();
        final long threadedHash;
        final ExchangePipeline threaded = ExchangePipeline.start(new PipelineContext().dataDir(dir.resolve("threaded"))
            .clock(() -> TIME).tickIntervalMs(0).snapshotEvery(0).log(s -> { })
            .publisher(e -> threadedEvents.add(Arrays.copyOf(threadedCodec.bytes(), threadedCodec.encode(e)))));
        try (threaded)
        {
            for (final Command c : commands)
            {
                while (!threaded.tryPublish(c))
                {
                    Thread.onSpinWait();
                }
            }
        }
        threadedHash = threaded.lastStateHash();
        assertThrows(IllegalStateException.class, () -> threaded.poll(1), "a threaded pipeline is not polled");

        final EventCodec polledCodec = new EventCodec();
        final List<byte[]> polledEvents = new ArrayList<>();
        final AtomicLong wakes = new AtomicLong();
        final AtomicLong polledOn = new AtomicLong();
        final ExchangePipeline polled = ExchangePipeline.start(new PipelineContext().dataDir(dir.resolve("polled"))
            .clock(() -> TIME).tickIntervalMs(0).snapshotEvery(0).log(s -> { }).polled(wakes::incrementAndGet)
            .publisher(e -> polledEvents.add(Arrays.copyOf(polledCodec.bytes(), polledCodec.encode(e)))));
        final AtomicBoolean stop = new AtomicBoolean();
        final Thread owner = new Thread(() ->
        {
            final SplittableRandom random = new SplittableRandom(3);
            while (!stop.get())
            {
                // polls of every size: one command, a few, more than is there
                polledOn.addAndGet(polled.poll(1 + random.nextInt(random.nextBoolean() ? 4 : 5000)));
            }
        }, "owner");
        try (polled)
        {
            owner.start();
            final int heldBack = 250;
            for (int i = 0; i < commands.size(); i++)
            {
                if (i == commands.size() - heldBack)
                {
                    // the owner stops polling: the rest waits in the ring until close applies it
                    while (polledOn.get() < i)
                    {
                        Thread.onSpinWait();
                    }
                    stop.set(true);
                    owner.join();
                }
                while (!polled.tryPublish(commands.get(i)))
                {
                    Thread.onSpinWait();
                }
            }
            assertEquals(commands.size() - heldBack, polledOn.get(), "the owner applied everything before it stopped");
            assertEquals(commands.size(), wakes.get(), "every publish calls the wake-up hook");
        }
        assertEquals(threadedEvents.size(), polledEvents.size());
        assertTrue(polledEvents.size() > commands.size());
        for (int i = 0; i < threadedEvents.size(); i++)
        {
            assertArrayEquals(threadedEvents.get(i), polledEvents.get(i), "event " + i);
        }
        assertEquals(threadedHash, polled.lastStateHash(), "the same state");
        assertEquals(commands.size(), polled.appliedCommands());
    }
}
