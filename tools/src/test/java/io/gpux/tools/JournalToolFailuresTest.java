package io.gpux.tools;

import io.gpux.core.journal.Journal;
import io.gpux.core.journal.DataDirectoryLock;
import io.gpux.core.journal.CommandCodec;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code gpux journal} failures: one line on stderr and a non-zero status, the trace only with
 * {@code --verbose}; {@code dump} exits 1 on a journal that a server start would refuse and 0 on a torn
 * last record (which the start cuts off); dump reads a directory that a live exchange holds, verify
 * refuses it.
 */
class JournalToolFailuresTest
{
    @TempDir
    Path dir;

    private record Run(int status, String out, String err)
    {
        /** One line on stderr, and nothing of Java's: no exception's name, no trace. */
        void saysInOneLine(final String expected)
        {
            assertEquals(1, err.lines().count(), err);
            assertTrue(err.contains(expected), err);
            assertFalse(err.contains("Exception") || err.contains("\tat "), err);
        }
    }

    private static Run run(final String... args)
    {
        final PrintStream saved = System.out;
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final StringWriter err = new StringWriter();
        try
        {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            final int status = JournalTool.commandLine().setErr(new PrintWriter(err, true)).execute(args);
            return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString());
        }
        finally
        {
            System.setOut(saved);
        }
    }

    /** A command journal of one tick; with {@code cut > 0}, a tick cut short by that many bytes, then a whole one. */
    private Path commandJournal(final int cut)
    {
        final Path data = dir.resolve("data");
        try (Journal journal = Journal.open(data.resolve("commands")))
        {
            final CommandCodec codec = new CommandCodec();
            final Command tick = new Command().reset(CommandType.TICK, 1000);
            tick.sequence = 1;
            journal.append(codec.bytes(), codec.encode(tick) - cut);
            if (cut > 0)
            {
                journal.append(codec.bytes(), codec.encode(tick));
            }
        }
        return data;
    }

    @Test
    void aMissingDirectoryIsOneLineAndVerboseAddsTheTrace()
    {
        final String missing = dir.resolve("missing").toString();
        for (final String tool : new String[] {"dump", "verify"})
        {
            final Run run = run(tool, missing);
            assertEquals(1, run.status());
            run.saysInOneLine("gpux journal " + tool + ": " + missing + " does not exist");
        }
        final Run verbose = run("dump", missing, "--verbose");
        assertEquals(1, verbose.status());
        assertTrue(verbose.err().startsWith("gpux journal dump: " + missing + " does not exist"), verbose.err());
        assertTrue(verbose.err().contains("java.io.IOException") && verbose.err().contains("\tat "), verbose.err());

        final Run notData = run("dump", dir.toString());
        assertEquals(1, notData.status());
        notData.saysInOneLine(" holds no command journal");
    }

    @Test
    void dumpExitsOneOnARecordThatAStartWouldRefuse()
    {
        final Path data = commandJournal(3);
        final Run dump = run("dump", data.toString());
        assertEquals(1, dump.status());
        dump.saysInOneLine("gpux journal dump: command journal corrupt at index ");
        assertTrue(dump.err().contains("a server will not start on this journal"), dump.err());
        assertTrue(dump.out().lines().anyMatch(l -> l.startsWith("# bad record at index ")), dump.out());
        assertTrue(dump.out().lines().anyMatch(l -> l.contains(" TICK")), "the good record is still printed: " + dump.out());

        final Run verify = run("verify", data.toString());
        assertEquals(1, verify.status());
        assertTrue(verify.out().contains("FAIL from scratch: command journal corrupt"), verify.out());
    }

    @Test
    void aTornLastRecordIsNotedAndDumpSucceeds() throws Exception
    {
        final Path data = commandJournal(0);
        try (Journal journal = Journal.open(data.resolve("commands")))
        {
            final CommandCodec codec = new CommandCodec();
            journal.append(codec.bytes(), codec.encode(new Command().reset(CommandType.TICK, 2000)) - 3);
        }
        final Run dump = run("dump", data.toString());
        assertEquals(0, dump.status(), dump.err());
        assertTrue(dump.out().lines().anyMatch(l -> l.startsWith("# torn tail record at index ") &&
            l.endsWith("(the next server start cuts it off)")), dump.out());
    }

    @Test
    void dumpReadsADirectoryThatALiveExchangeHoldsAndVerifyRefusesIt() throws Exception
    {
        final Path data = commandJournal(0);
        final String holder = "is in use by pid " + ProcessHandle.current().pid();
        try (DataDirectoryLock held = DataDirectoryLock.acquire(data))
        {
            final Run dump = run("dump", data.toString());
            assertEquals(0, dump.status(), dump.err());
            assertTrue(dump.out().contains(" TICK"), dump.out());
            assertTrue(dump.err().startsWith("note: " + data + " " + holder) &&
                dump.err().contains("a live server: printing the journals as far as written"), dump.err());

            final Run verify = run("verify", data.toString());
            assertEquals(1, verify.status());
            verify.saysInOneLine("gpux journal verify: " + data + " " + holder);
            assertTrue(verify.err().contains("a live server: its journals grow while verify replays them; stop the " +
                "server first"), verify.err());
        }
        assertEquals("", run("dump", data.toString()).err(), "no note once the holder is gone");
        assertEquals(0, run("verify", data.toString()).status());
    }
}
