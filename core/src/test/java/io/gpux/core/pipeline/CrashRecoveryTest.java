package io.gpux.core.pipeline;

import io.gpux.engine.event.Event;
import io.gpux.core.journal.EventCodec;
import io.gpux.core.journal.Journal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Kills a child JVM running the pipeline with SIGKILL at random moments, restarts it on the same data
 * directory, and checks that nothing was lost or duplicated: every event the parent received is in
 * the event journal, its command in the command journal exactly once; the recovered state hash
 * equals an uninterrupted replay of the journal prefix; the event journal is exactly what the command
 * journal regenerates. Each kill comes after a random count of received events. 3 kills by default;
 * {@code -Dgpux.crash.kills=200} (the {@code stress} profile) for more.
 */
class CrashRecoveryTest
{
    private static final int EVENTS_BEFORE_KILL_MIN = 20;
    private static final int EVENTS_BEFORE_KILL_SPREAD = 3_000;

    @TempDir
    Path dir;

    @Test
    void killAndRecoverRepeatedly() throws Exception
    {
        final int kills = Integer.getInteger("gpux.crash.kills", 3);
        final Random random = new Random(2026);
        final Map<Long, Long> received = new HashMap<>();
        String expectedHash = null;
        long expectedCommands = 0;
        long totalEvents = 0;
        for (int round = 1; round <= kills + 1; round++)
        {
            lastRound = round;
            final long started = System.nanoTime();
            final Process child = startChild(round);
            final List<String> lines = new ArrayList<>();
            final Thread reader = new Thread(() -> readLines(child, lines));
            reader.start();
            final String first = awaitFirstLine(lines, child, () -> errorTail(roundNumber(child)));
            final long recoveredAt = System.nanoTime();
            final String[] recovered = first.split(" ");
            assertEquals("RECOVERED", recovered[0], "child said: " + first);
            assertEquals(expectedCommands, Long.parseLong(recovered[1]), "commands recovered in round " + round);
            if (expectedHash != null)
            {
                assertEquals(expectedHash, recovered[2], "recovered state hash = uninterrupted replay, round " + round);
            }
            if (round > kills)
            {
                child.destroy();
                child.waitFor(20, TimeUnit.SECONDS);
                break;
            }
            // the random moment is a random count of events the parent has received, so a slow machine kills as
            // far into a run as a fast one does
            final int killAfter = EVENTS_BEFORE_KILL_MIN + random.nextInt(EVENTS_BEFORE_KILL_SPREAD);
            awaitLines(lines, child, 1 + killAfter, () -> errorTail(roundNumber(child)));
            child.destroyForcibly();
            assertTrue(child.waitFor(20, TimeUnit.SECONDS), "child died");
            reader.join(10_000);
            synchronized (lines)
            {
                for (final String line : lines)
                {
                    final String[] f = line.split(" ");
                    if (f.length == 4 && f[0].equals("E"))
                    {
                        final Long previous = received.put(Long.parseLong(f[1]), Long.parseLong(f[3]));
                        assertTrue(previous == null, "event " + f[1] + " published twice");
                        totalEvents++;
                    }
                }
            }
            final long killedAt = System.nanoTime();
            final Recovery.Result replay = checkJournals(received);
            expectedCommands = replay.commandSequence();
            expectedHash = Long.toHexString(replay.engine().stateHash());
            System.out.printf("round %d: recovered %d commands in %d ms, killed after %d events %d ms later, " +
                "journals checked in %d ms%n", round, Long.parseLong(recovered[1]), (recoveredAt - started) / 1_000_000,
                killAfter, (killedAt - recoveredAt) / 1_000_000, (System.nanoTime() - killedAt) / 1_000_000);
        }
        assertTrue(totalEvents > kills * 10L, "the children published events: " + totalEvents);
    }

    /** Read-only: replays the whole command journal and checks it against the event journal and what was received. */
    private Recovery.Result checkJournals(final Map<Long, Long> received) throws IOException
    {
        try (Journal commands = Journal.openReadOnly(dir.resolve("commands"));
            Journal events = Journal.openReadOnly(dir.resolve("events")))
        {
            final Recovery.Result replay = Recovery.recover(commands, events, null, null, true, m -> { });
            final Journal.Reader reader = events.reader();
            final EventCodec codec = new EventCodec();
            final Event event = new Event();
            final CRC32C crc = new CRC32C();
            long expectedSequence = 1;
            final Map<Long, Long> journaled = new HashMap<>();
            int n;
            while ((n = reader.next(codec.bytes())) >= 0)
            {
                if (codec.decode(n, event) != null)
                {
                    assertTrue(reader.atEnd(), "only the last event record may be torn");
                    break;
                }
                assertEquals(expectedSequence++, event.sequence, "event journal in sequence, no duplicates");
                assertTrue(event.commandSequence <= replay.commandSequence(), "an event's command is journaled");
                crc.reset();
                crc.update(codec.bytes(), 0, n);
                journaled.put(event.sequence, crc.getValue());
            }
            for (final Map.Entry<Long, Long> e : received.entrySet())
            {
                final Long stored = journaled.get(e.getKey());
                if (stored == null || !stored.equals(e.getValue()))
                {
                    fail("event " + e.getKey() + " was received but the event journal " +
                        (stored == null ? "lacks it" : "holds a different record"));
                }
            }
            return replay;
        }
    }

    private Process startChild(final int round) throws IOException
    {
        final List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (final String arg : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (arg.startsWith("--add-") || arg.startsWith("-Dchronicle"))
            {
                cmd.add(arg);
            }
        }
        cmd.add("-Xmx256m");
        // a child lives for a few thousand events: C1 alone and the serial collector start it sooner and leave the
        // second core to the parent, without changing what is journaled, killed or recovered
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(CrashChild.class.getName());
        cmd.add(dir.toString());
        cmd.add(Integer.toString(round));
        return new ProcessBuilder(cmd).redirectError(errorLog(round).toFile()).start();
    }

    private Path errorLog(final int round)
    {
        return dir.resolve("child-" + round + ".err");
    }

    private String errorTail(final int round)
    {
        try
        {
            final List<String> all = java.nio.file.Files.readAllLines(errorLog(round));
            return String.join("\n", all.subList(Math.max(0, all.size() - 30), all.size()));
        }
        catch (final IOException ex)
        {
            return "(no error log: " + ex + ")";
        }
    }

    private static void readLines(final Process child, final List<String> lines)
    {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = r.readLine()) != null)
            {
                synchronized (lines)
                {
                    lines.add(line);
                    lines.notifyAll();
                }
            }
        }
        catch (final IOException ignored)
        {
            // the child was killed mid-line: what was read is what was received
        }
    }

    private int lastRound;

    private int roundNumber(final Process child)
    {
        return lastRound;
    }

    private static String awaitFirstLine(final List<String> lines, final Process child,
        final java.util.function.Supplier<String> stderr) throws InterruptedException
    {
        awaitLines(lines, child, 1, stderr);
        synchronized (lines)
        {
            return lines.get(0);
        }
    }

    /** Waits until the child has printed this many lines; fails, with its stderr, if it dies or takes a minute. */
    private static void awaitLines(final List<String> lines, final Process child, final int count,
        final java.util.function.Supplier<String> stderr) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        synchronized (lines)
        {
            while (lines.size() < count)
            {
                if (System.nanoTime() > deadline || !child.isAlive())
                {
                    child.destroyForcibly();
                    fail("child printed " + lines.size() + " of " + count + " lines (alive: " + child.isAlive() +
                        "); its stderr:\n" + stderr.get());
                }
                lines.wait(100);
            }
        }
    }
}
