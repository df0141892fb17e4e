package io.gpux.core.pipeline;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.command.Command;
import io.gpux.engine.event.Event;
import io.gpux.core.journal.EventCodec;
import io.gpux.core.journal.Journal;
import io.gpux.core.journal.RecordDescriptor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the gateway relies on: a command published with a correlation is completed after all of its
 * events, in order; a query sees exactly the commands published before it; the recovered hook comes
 * once, before any command; the batch hook comes after each batch. In both output modes.
 */
class PipelineHooksTest
{
    @TempDir
    Path dir;

    @ParameterizedTest(name = "inline output: {0}")
    @ValueSource(booleans = {true, false})
    void completionsFollowTheirEventsAndQueriesSeeTheCommandsBeforeThem(final boolean inlineOutput) throws Exception
    {
        final List<Command> commands = PipelineRecoveryTest.commands(5, 2000);
        final PipelineRecoveryTest.ScenarioClock clock = new PipelineRecoveryTest.ScenarioClock();
        final List<String> log = new CopyOnWriteArrayList<>();
        final long[] batches = new long[1];
        final EventPublisher publisher = new EventPublisher()
        {
            @Override
            public void onEvent(final Event event)
            {
                log.add("E " + event.commandSequence + " " + event.sequence);
            }

            @Override
            public void onCommandComplete(final long commandSequence, final long correlation)
            {
                log.add("C " + commandSequence + " " + correlation);
            }

            @Override
            public void onRecovered(final MatchingEngine engine)
            {
                log.add("R " + engine.commandCount());
            }

            @Override
            public void onBatchApplied(final MatchingEngine engine)
            {
                batches[0]++;
            }
        };
        final List<long[]> queried = new CopyOnWriteArrayList<>();
        try (ExchangePipeline pipeline = ExchangePipeline.start(new PipelineContext().dataDir(dir).clock(clock)
            .tickIntervalMs(0).snapshotEvery(0).inlineOutput(inlineOutput).log(s -> { }).publisher(publisher)))
        {
            long correlation = 0;
            int published = 0;
            for (final Command c : commands)
            {
                clock.now.set(c.timeMs);
                final long tag = ++correlation;
                while (!pipeline.tryPublish((slot, seq, cmd) ->
                {
                    slot.command().copyFrom(cmd);
                    slot.correlation = tag;
                }, c))
                {
                    Thread.onSpinWait();
                }
                published++;
                if (published % 97 == 0)
                {
                    final long expected = published;
                    while (!pipeline.tryPublishQuery(engine -> queried.add(new long[] {expected, engine.commandCount()})))
                    {
                        Thread.onSpinWait();
                    }
                }
            }
            pipeline.close();
        }
        assertEquals("R 0", log.get(0), "recovered hook first");
        long lastCompleted = 0;
        long completions = 0;
        for (final String line : log.subList(1, log.size()))
        {
            final String[] f = line.split(" ");
            final long commandSeq = Long.parseLong(f[1]);
            if (f[0].equals("C"))
            {
                assertEquals(lastCompleted + 1, commandSeq, "completions in command order");
                assertEquals(commandSeq, Long.parseLong(f[2]), "the correlation of that command");
                lastCompleted = commandSeq;
                completions++;
            }
            else
            {
                assertTrue(commandSeq > lastCompleted, "event of command " + commandSeq + " after its completion");
            }
        }
        assertEquals(commands.size(), completions);
        assertEquals(commands.size() / 97, queried.size());
        for (final long[] q : queried)
        {
            assertEquals(q[0], q[1], "a query sees exactly the commands published before it");
        }
        assertTrue(batches[0] > 0 && batches[0] <= commands.size());
    }

    /** Publishers are handed events equal, field for field as journaled, to the event journal's records. */
    @ParameterizedTest(name = "inline output: {0}")
    @ValueSource(booleans = {true, false})
    void publishersSeeExactlyTheJournaledEvents(final boolean inlineOutput) throws Exception
    {
        final List<Command> commands = PipelineRecoveryTest.commands(11, 3000);
        final PipelineRecoveryTest.ScenarioClock clock = new PipelineRecoveryTest.ScenarioClock();
        final EventCodec codec = new EventCodec();
        final List<byte[]> published = new ArrayList<>();
        try (ExchangePipeline pipeline = ExchangePipeline.start(new PipelineContext().dataDir(dir).clock(clock)
            .tickIntervalMs(0).snapshotEvery(0).inlineOutput(inlineOutput).log(s -> { })
            .publisher(e -> published.add(Arrays.copyOf(codec.bytes(), codec.encode(e))))))
        {
            for (final Command c : commands)
            {
                clock.now.set(c.timeMs);
                while (!pipeline.tryPublish(c))
                {
                    Thread.onSpinWait();
                }
            }
            pipeline.close();
        }
        final List<byte[]> journaled = new ArrayList<>();
        try (Journal events = Journal.openReadOnly(dir.resolve("events")))
        {
            final Journal.Reader reader = events.reader();
            final byte[] record = new byte[RecordDescriptor.MAX_RECORD_LENGTH];
            int length;
            while ((length = reader.next(record)) >= 0)
            {
                journaled.add(Arrays.copyOf(record, length));
            }
        }
        assertTrue(journaled.size() > commands.size(), "every command printed at least one event");
        assertEquals(journaled.size(), published.size());
        for (int i = 0; i < journaled.size(); i++)
        {
            assertArrayEquals(journaled.get(i), published.get(i), "event " + i);
        }
    }
}
