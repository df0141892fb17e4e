package io.gpux.core.pipeline;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.command.Command;
import io.gpux.engine.event.Event;
import io.gpux.core.journal.CommandCodec;
import io.gpux.core.journal.EventCodec;
import io.gpux.core.journal.Journal;
import io.gpux.engine.replay.RandomScenario;
import io.gpux.engine.replay.ScenarioException;
import io.gpux.engine.replay.ScenarioParser;
import io.gpux.engine.replay.Symbols;
import org.agrona.concurrent.EpochClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The pipeline journals what it applies, and recovers to the same state, with and without snapshots. */
public class PipelineRecoveryTest
{
    @TempDir
    Path dir;

    public static List<Command> commands(final long seed, final int n) throws ScenarioException
    {
        final ScenarioParser parser = new ScenarioParser(new Symbols());
        final List<Command> out = new ArrayList<>();
        int line = 0;
        for (final String text : RandomScenario.scenario(seed, n).split("\n"))
        {
            final Command c = new Command();
            if (parser.parse(text, ++line, c))
            {
                out.add(c);
            }
        }
        return out;
    }

    /** A clock that follows the scenario's own times, so that the journal replays to the same events. */
    public static final class ScenarioClock implements EpochClock
    {
        public final AtomicLong now = new AtomicLong();

        @Override
        public long time()
        {
            return now.get();
        }
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "inline output: {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {true, false})
    void recoversToTheSameStateAndEvents(final boolean inlineOutput) throws Exception
    {
        final List<Command> commands = commands(11, 3000);
        final ScenarioClock clock = new ScenarioClock();
        final List<Long> published = new ArrayList<>();
        final PipelineContext ctx = new PipelineContext().dataDir(dir).clock(clock).tickIntervalMs(0)
            .snapshotEvery(700).yielding(false).inlineOutput(inlineOutput).log(s -> { }).publisher(e -> published.add(e.sequence));
        final long liveHash;
        try (ExchangePipeline pipeline = ExchangePipeline.start(ctx))
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
            liveHash = pipeline.lastStateHash();
        }
        assertTrue(published.size() > commands.size() / 2, "events were published");
        for (int i = 0; i < published.size(); i++)
        {
            assertEquals(i + 1, published.get(i), "events published in order, without gaps");
        }

        // an engine fed the journaled commands directly reaches the same state and the journaled events
        final MatchingEngine reference = new MatchingEngine(event -> { });
        final List<byte[]> regenerated = new ArrayList<>();
        final EventCodec codec = new EventCodec();
        reference.sink(e -> regenerated.add(java.util.Arrays.copyOf(codec.bytes(), codec.encode(e))));
        try (Journal journal = Journal.openReadOnly(dir.resolve("commands")))
        {
            final Journal.Reader reader = journal.reader();
            final CommandCodec cc = new CommandCodec();
            final Command c = new Command();
            int n;
            long expectedSeq = 1;
            while ((n = reader.next(cc.bytes())) >= 0)
            {
                assertEquals(null, cc.decode(n, c));
                assertEquals(expectedSeq++, c.sequence);
                reference.apply(c);
            }
            assertEquals(commands.size(), expectedSeq - 1, "every published command journaled once");
        }
        assertEquals(reference.stateHash(), liveHash);
        try (Journal journal = Journal.openReadOnly(dir.resolve("events")))
        {
            final Journal.Reader reader = journal.reader();
            final byte[] buf = new byte[1 << 14];
            for (final byte[] expected : regenerated)
            {
                final int n = reader.next(buf);
                assertArrayEquals(expected, java.util.Arrays.copyOf(buf, n));
            }
            assertEquals(-1, reader.next(buf), "no extra events");
        }

        // restart: from the newest snapshot plus the journal tail
        try (ExchangePipeline again = ExchangePipeline.start(ctx))
        {
            assertTrue(again.recovered().snapshotSequence() > 0, "a snapshot was used");
            assertEquals(commands.size(), again.recovered().commandSequence());
            assertEquals(reference.stateHash(), again.lastStateHash());
        }
    }
}
