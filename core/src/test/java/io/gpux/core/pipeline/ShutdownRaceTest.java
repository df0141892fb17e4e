package io.gpux.core.pipeline;

import io.gpux.engine.command.Command;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Closing a pipeline while a 1 ms ticker and a producer keep publishing: the thread that closes must
 * never write a journal through an appender another thread still owns (Chronicle answers that with a
 * ThreadingIllegalStateException), whether the pipeline has a core thread or is polled by its owner.
 * Every cycle reopens the same directory, so a close that lost or tore a record would also show as a
 * failed recovery or a gap in the applied commands.
 */
class ShutdownRaceTest
{
    /** Closes per case: 20 in the everyday build, 10 times as many under {@code -Pstress}. */
    private static final int CYCLES = Boolean.getBoolean("gpux.stress") ? 200 : 20;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "inline output: {0}")
    @ValueSource(booleans = {true, false})
    void closingACoreThreadPipelineUnderTrafficNeverFails(final boolean inlineOutput) throws Exception
    {
        final List<Command> commands = PipelineRecoveryTest.commands(11, 400);
        long applied = 0;
        for (int cycle = 0; cycle < CYCLES; cycle++)
        {
            final ConcurrentLinkedQueue<String> fatal = new ConcurrentLinkedQueue<>();
            final ExchangePipeline pipeline = ExchangePipeline.start(context(fatal).inlineOutput(inlineOutput));
            assertEquals(applied, pipeline.recovered().commandSequence(), "cycle " + cycle + " recovers every command");
            final int published = publishSome(pipeline, commands, cycle);
            pipeline.close();
            assertTrue(fatal.isEmpty(), "cycle " + cycle + ": " + fatal);
            assertTrue(pipeline.appliedCommands() >= applied + published, "cycle " + cycle + " applied what it took");
            applied = pipeline.appliedCommands();
        }
    }

    @Test
    void closingAPolledPipelineAfterItsOwnerStopsNeverFails() throws Exception
    {
        final List<Command> commands = PipelineRecoveryTest.commands(13, 400);
        long applied = 0;
        for (int cycle = 0; cycle < CYCLES; cycle++)
        {
            final ConcurrentLinkedQueue<String> fatal = new ConcurrentLinkedQueue<>();
            final ExchangePipeline pipeline = ExchangePipeline.start(context(fatal).polled(() -> { }));
            assertEquals(applied, pipeline.recovered().commandSequence(), "cycle " + cycle + " recovers every command");
            final AtomicBoolean stop = new AtomicBoolean();
            final AtomicLong polledOn = new AtomicLong();
            final CountDownLatch stopped = new CountDownLatch(1);
            final CountDownLatch closed = new CountDownLatch(1);
            // like a gateway's event loop: it stops polling, and its thread lives on a little after that
            final Thread owner = new Thread(() ->
            {
                while (!stop.get())
                {
                    polledOn.addAndGet(pipeline.poll(64));
                }
                stopped.countDown();
                awaitQuietly(closed);
            }, "owner");
            owner.start();
            final int published = publishSome(pipeline, commands, cycle);
            while (polledOn.get() == 0)
            {
                Thread.onSpinWait();
            }
            stop.set(true);
            stopped.await();
            // the 1 ms ticker goes on publishing while the owner is not polling: close applies what is left
            Thread.sleep(2);
            try
            {
                pipeline.close();
            }
            finally
            {
                closed.countDown();
                owner.join();
            }
            assertTrue(fatal.isEmpty(), "cycle " + cycle + ": " + fatal);
            assertTrue(pipeline.appliedCommands() >= applied + published, "cycle " + cycle + " applied what it took");
            applied = pipeline.appliedCommands();
        }
    }

    private static void awaitQuietly(final CountDownLatch latch)
    {
        try
        {
            latch.await();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private PipelineContext context(final ConcurrentLinkedQueue<String> fatal)
    {
        return new PipelineContext().dataDir(dir).tickIntervalMs(1).snapshotEvery(0).pretouch(false)
            .clock(System::currentTimeMillis)
            .log(line ->
            {
                if (line.contains("FATAL") || line.contains("failed") || line.contains("did not"))
                {
                    fatal.add(line);
                }
            });
    }

    /** Publishes a slice of the commands, then a few more while close may already be running. */
    private static int publishSome(final ExchangePipeline pipeline, final List<Command> commands, final int cycle)
    {
        int published = 0;
        final int from = (cycle * 8) % commands.size();
        for (int i = 0; i < 8; i++)
        {
            if (pipeline.tryPublish(commands.get((from + i) % commands.size())))
            {
                published++;
            }
        }
        return published;
    }
}
