package io.gpux.core.pipeline;

import io.gpux.engine.command.Command;
import io.gpux.engine.event.Event;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A stage that fails stops the core: nothing more is journaled or applied, and every command with a
 * correlation is answered exactly once, acknowledged (before the failure) or refused with the reason
 * (the batch it failed in and every command still in the ring); producers are refused from then on.
 * The journals end with what was written: the next start recovers without complaint.
 */
class CoreStopTest
{
    @TempDir
    Path dir;

    @ParameterizedTest(name = "polled: {0}")
    @ValueSource(booleans = {false, true})
    void aFailedStageAnswersEveryCommandInFlightAndRefusesTheRest(final boolean polled) throws Exception
    {
        final List<Command> commands = PipelineRecoveryTest.commands(9, 3000);
        final Map<Long, String> answers = new ConcurrentHashMap<>();
        final List<String> twice = new CopyOnWriteArrayList<>();
        final int[] events = new int[1];
        final EventPublisher publisher = new EventPublisher()
        {
            @Override
            public void onEvent(final Event event)
            {
                if (++events[0] == 1500)
                {
                    throw new IllegalStateException("a publisher broke");
                }
            }

            @Override
            public void onCommandComplete(final long commandSequence, final long correlation)
            {
                if (answers.putIfAbsent(correlation, "OK " + commandSequence) != null)
                {
                    twice.add("completed " + correlation);
                }
            }

            @Override
            public void onCommandRefused(final long correlation, final String reason)
            {
                if (answers.putIfAbsent(correlation, reason) != null)
                {
                    twice.add("refused " + correlation);
                }
            }
        };
        final PipelineContext ctx = new PipelineContext().dataDir(dir).tickIntervalMs(0)
            .snapshotEvery(0).yielding(false).log(s -> { }).publisher(publisher);
        if (polled)
        {
            ctx.polled(() -> { });
        }
        final ExchangePipeline pipeline = ExchangePipeline.start(ctx);
        long published = 0;
        for (final Command c : commands)
        {
            final long tag = published + 1;
            if (!pipeline.tryPublish((slot, seq, src) ->
            {
                slot.command().copyFrom(src);
                slot.correlation = tag;
            }, c))
            {
                if (pipeline.failed())
                {
                    break;
                }
                if (polled)
                {
                    pipeline.poll(256);
                }
                Thread.onSpinWait();
                continue;
            }
            published = tag;
            if (polled && published % 64 == 0)
            {
                pipeline.poll(256);
            }
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (answers.size() < published)
        {
            if (polled)
            {
                pipeline.poll(256);
            }
            if (System.nanoTime() > deadline)
            {
                fail("answered " + answers.size() + " of " + published);
            }
            Thread.onSpinWait();
        }
        assertTrue(pipeline.failed(), "the publisher's failure stopped the core");
        assertEquals(List.of(), twice, "no command answered twice");
        final long refused = answers.values().stream().filter(a -> !a.startsWith("OK ")).count();
        assertTrue(refused > 0, "some commands were refused");
        for (final String a : answers.values())
        {
            assertTrue(a.startsWith("OK ") || a.startsWith("the exchange core has stopped (a publisher broke)"), a);
        }
        assertTrue(pipeline.refusal().startsWith("the exchange core has stopped"), pipeline.refusal());
        assertFalse(pipeline.tryPublish(new Command().reset(io.gpux.engine.command.CommandType.TICK, 0)));
        assertThrows(IllegalStateException.class, pipeline::close);

        try (ExchangePipeline again = ExchangePipeline.start(new PipelineContext().dataDir(dir).tickIntervalMs(0)
            .snapshotEvery(0).yielding(false).log(s -> { })))
        {
            final long acknowledged = answers.values().stream().filter(a -> a.startsWith("OK ")).count();
            assertTrue(again.recovered().commandSequence() >= acknowledged,
                "every acknowledged command recovered: " + again.recovered().commandSequence() + " < " + acknowledged);
        }
    }
}
