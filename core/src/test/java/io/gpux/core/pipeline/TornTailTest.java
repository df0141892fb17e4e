package io.gpux.core.pipeline;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.core.journal.CommandCodec;
import io.gpux.core.journal.EventCodec;
import io.gpux.core.journal.Journal;
import io.gpux.core.journal.SnapshotStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A crash mid-write leaves a torn record at the end of a journal: recovery detects it by its checksum,
 * reports it and cuts it off, losing nothing before it; a bad record with good ones after it is
 * corruption and stops the start-up. Also: replays are deterministic to the byte.
 */
class TornTailTest
{
    @TempDir
    Path dir;

    private final List<String> log = new ArrayList<>();

    private PipelineContext context()
    {
        return new PipelineContext().dataDir(dir).tickIntervalMs(0).snapshotEvery(0).yielding(false)
            .log(m ->
            {
                log.add(m);
                System.out.println(m);
            });
    }

    /** Runs the first n commands of a seeded market, then a TICK (which, at its time, prints nothing). */
    private long runMarket(final int n) throws Exception
    {
        final List<Command> commands = PipelineRecoveryTest.commands(3, n);
        final PipelineRecoveryTest.ScenarioClock clock = new PipelineRecoveryTest.ScenarioClock();
        try (ExchangePipeline pipeline = ExchangePipeline.start(context().clock(clock)))
        {
            for (final Command c : commands)
            {
                clock.now.set(c.timeMs);
                publish(pipeline, c);
            }
            while (pipeline.appliedCommands() < commands.size())
            {
                Thread.onSpinWait();
            }
            // alone in its journal document, so that garbling it loses nothing else
            publish(pipeline, new Command().reset(CommandType.TICK, 0));
            pipeline.close();
            return pipeline.lastStateHash();
        }
    }

    private static void publish(final ExchangePipeline pipeline, final Command c)
    {
        while (!pipeline.tryPublish(c))
        {
            if (pipeline.failed())
            {
                throw new AssertionError("pipeline failed");
            }
            Thread.onSpinWait();
        }
    }

    private long replayHash(final long commands) throws IOException
    {
        try (Journal journal = Journal.openReadOnly(dir.resolve("commands")))
        {
            final MatchingEngine engine = new MatchingEngine(e -> { });
            final Journal.Reader reader = journal.reader();
            final CommandCodec codec = new CommandCodec();
            final Command c = new Command();
            int n;
            long count = 0;
            while ((n = reader.next(codec.bytes())) >= 0 && count < commands)
            {
                assertEquals(null, codec.decode(n, c));
                engine.apply(c);
                count++;
            }
            return engine.stateHash();
        }
    }

    @Test
    void truncatedCommandRecordIsCutOff() throws Exception
    {
        final long hash = runMarket(500);
        final long commands = 501 + 16;
        try (Journal journal = Journal.open(dir.resolve("commands")))
        {
            final CommandCodec codec = new CommandCodec();
            final int length = codec.encode(new Command().reset(CommandType.TICK, 1));
            journal.append(codec.bytes(), length - 3);
        }
        try (ExchangePipeline again = ExchangePipeline.start(context()))
        {
            assertEquals(hash, again.lastStateHash(), "nothing before the torn record was lost");
            assertTrue(log.stream().anyMatch(m -> m.contains("torn tail") && m.contains("cut off")), log.toString());
            publish(again, new Command().reset(CommandType.TICK, 0));
        }
        log.clear();
        try (ExchangePipeline third = ExchangePipeline.start(context()))
        {
            assertTrue(log.stream().noneMatch(m -> m.contains("torn")), "the cut is permanent: " + log);
            assertEquals(third.recovered().commandSequence(), third.appliedCommands());
        }
        assertTrue(commands > 0);
    }

    @Test
    void garbledLastCommandIsCutOffAndGarbledMiddleIsFatal() throws Exception
    {
        runMarket(400);
        final long before = countCommands();
        final long hashWithoutLast = replayHash(before - 1);
        final byte[] last = lastRecord("commands");
        garble(dir.resolve("commands"), last);
        try (ExchangePipeline again = ExchangePipeline.start(context()))
        {
            assertEquals(before - 1, again.recovered().commandSequence());
            assertEquals(hashWithoutLast, again.lastStateHash());
        }

        // now a record in the middle: good records follow it
        final byte[] middle = recordAt("commands", 200);
        garble(dir.resolve("commands"), middle);
        assertThrows(Recovery.RecoveryException.class, () -> ExchangePipeline.start(context()).close());
    }

    @Test
    void garbledLastEventIsCutOffAndRegenerated() throws Exception
    {
        runMarket(300);
        final byte[] last = lastRecord("events");
        garble(dir.resolve("events"), last);
        try (ExchangePipeline again = ExchangePipeline.start(context()))
        {
            assertTrue(again.recovered().appendedEvents() >= 1, "the torn event document regenerated");
        }
        try (Journal commands = Journal.openReadOnly(dir.resolve("commands"));
            Journal events = Journal.openReadOnly(dir.resolve("events")))
        {
            final Recovery.Result r = Recovery.recover(commands, events, null, null, true, m -> { });
            assertEquals(0, r.appendedEvents(), "the event journal is complete again");
        }
    }

    /**
     * A batch whose command journal write failed on a full disk while its events were written: the
     * event journal's last document holds events of commands the command journal lacks. They were
     * never acknowledged, so the start cuts them off (and regenerates nothing); events of a command
     * the journal does hold, differing, stay fatal.
     */
    @Test
    void lastEventDocumentOfMissingCommandsIsCutOff() throws Exception
    {
        runMarket(300);
        final long commands = countCommands();
        final EventCodec codec = new EventCodec();
        final io.gpux.engine.event.Event event = new io.gpux.engine.event.Event();
        final byte[] last = lastRecord("events");
        System.arraycopy(last, 0, codec.bytes(), 0, last.length);
        assertEquals(null, codec.decode(last.length, event));
        try (Journal events = Journal.open(dir.resolve("events")))
        {
            for (int i = 1; i <= 2; i++)
            {
                event.sequence++;
                event.commandSequence = commands + i;
                events.add(codec.bytes(), codec.encode(event));
            }
            events.endBatch();
        }
        try (ExchangePipeline again = ExchangePipeline.start(context()))
        {
            assertEquals(commands, again.recovered().commandSequence());
            assertTrue(log.stream().anyMatch(m -> m.contains("which the command journal lacks") && m.contains("cut off")),
                log.toString());
            assertEquals(0, again.recovered().appendedEvents());
            publish(again, new Command().reset(CommandType.TICK, 0));
        }
        log.clear();
        try (ExchangePipeline third = ExchangePipeline.start(context()))
        {
            assertTrue(log.stream().noneMatch(m -> m.contains("lacks")), "the cut is permanent: " + log);
        }

        // an extra event of a command the journal holds is not the remains of a failed write
        try (Journal events = Journal.open(dir.resolve("events")))
        {
            event.sequence = Recovery.lastEventSequence(events) + 1;
            event.commandSequence = 1;
            events.append(codec.bytes(), codec.encode(event));
        }
        assertThrows(Recovery.RecoveryException.class, () -> ExchangePipeline.start(context()).close());
    }

    @Test
    void replaysAreByteIdentical() throws Exception
    {
        runMarket(800);
        final List<byte[]> first = regenerate();
        final List<byte[]> second = regenerate();
        assertEquals(first.size(), second.size());
        for (int i = 0; i < first.size(); i++)
        {
            assertArrayEquals(first.get(i), second.get(i), "event " + (i + 1));
        }
        assertTrue(first.size() > 500);
        assertTrue(new SnapshotStore(dir.resolve("snapshots"), 3).list().isEmpty());
    }

    private List<byte[]> regenerate() throws IOException
    {
        final List<byte[]> out = new ArrayList<>();
        final EventCodec codec = new EventCodec();
        final MatchingEngine engine = new MatchingEngine(e -> out.add(java.util.Arrays.copyOf(codec.bytes(), codec.encode(e))));
        try (Journal journal = Journal.openReadOnly(dir.resolve("commands")))
        {
            final Journal.Reader reader = journal.reader();
            final CommandCodec cc = new CommandCodec();
            final Command c = new Command();
            int n;
            while ((n = reader.next(cc.bytes())) >= 0)
            {
                cc.decode(n, c);
                engine.apply(c);
            }
        }
        return out;
    }

    private long countCommands() throws IOException
    {
        try (Journal journal = Journal.openReadOnly(dir.resolve("commands")))
        {
            final Journal.Reader reader = journal.reader();
            final byte[] buf = new byte[1 << 14];
            long n = 0;
            while (reader.next(buf) >= 0)
            {
                n++;
            }
            return n;
        }
    }

    private byte[] lastRecord(final String name) throws IOException
    {
        try (Journal journal = Journal.openReadOnly(dir.resolve(name)))
        {
            final Journal.Reader reader = journal.reader();
            final byte[] buf = new byte[1 << 14];
            byte[] last = null;
            int n;
            while ((n = reader.next(buf)) >= 0)
            {
                last = java.util.Arrays.copyOf(buf, n);
            }
            return last;
        }
    }

    private byte[] recordAt(final String name, final int position) throws IOException
    {
        try (Journal journal = Journal.openReadOnly(dir.resolve(name)))
        {
            final Journal.Reader reader = journal.reader();
            final byte[] buf = new byte[1 << 14];
            for (int i = 0; i < position; i++)
            {
                reader.next(buf);
            }
            return java.util.Arrays.copyOf(buf, reader.next(buf));
        }
    }

    /** Flips a byte inside the record's fields, in the queue file on disk. */
    private static void garble(final Path queueDir, final byte[] record) throws IOException
    {
        try (Stream<Path> files = Files.list(queueDir))
        {
            for (final Path file : files.filter(p -> p.toString().endsWith(".cq4")).toList())
            {
                final byte[] bytes = Files.readAllBytes(file);
                final int at = indexOf(bytes, record);
                if (at >= 0)
                {
                    bytes[at + record.length - 1] ^= 0x5A;
                    Files.write(file, bytes);
                    return;
                }
            }
        }
        throw new AssertionError("record not found in " + queueDir);
    }

    private static int indexOf(final byte[] haystack, final byte[] needle)
    {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++)
        {
            for (int j = 0; j < needle.length; j++)
            {
                if (haystack[i + j] != needle[j])
                {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
