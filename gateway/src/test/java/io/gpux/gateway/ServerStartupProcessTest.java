package io.gpux.gateway;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.core.journal.CommandCodec;
import io.gpux.core.journal.Journal;
import io.gpux.tools.JournalTool;
import io.gpux.proto.v1.Envelope;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code gpux server} as real processes: one server per data directory (a second is refused with the
 * first one's pid while the first keeps serving, and the directory is free again once it stops;
 * {@code journal dump} reads it meanwhile, {@code journal verify} refuses to), and
 * every failed start is one line on stderr with a non-zero status, the trace only with {@code --verbose}.
 * Independent failures run as processes side by side, to keep the JVM starts few and short, and the two
 * tests run beside each other.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ServerStartupProcessTest
{
    @TempDir
    Path dir;

    private final List<Process> processes = new ArrayList<>();

    /** A finished (or, for a server that listens, running) child JVM and where its output went. */
    private record Child(Process process, Path out, Path err)
    {
        String stdout()
        {
            return read(out);
        }

        String stderr()
        {
            return read(err);
        }

        private static String read(final Path file)
        {
            try
            {
                return Files.readString(file, StandardCharsets.UTF_8);
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        }

        int exit() throws Exception
        {
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the process did not end");
            return process.exitValue();
        }

        /** Ended with {@code status}, having said {@code expected} in one line on stderr, with nothing of Java's. */
        void failedInOneLine(final int status, final String expected) throws Exception
        {
            assertEquals(status, exit(), this::stderr);
            final String err = stderr();
            assertEquals(1, err.lines().count(), err);
            assertTrue(err.contains(expected), "expected '" + expected + "' in: " + err);
            assertFalse(err.contains("Exception") || err.contains("\tat "), err);
        }
    }

    @AfterEach
    void killWhatIsLeft()
    {
        for (final Process p : processes)
        {
            p.destroyForcibly();
        }
    }

    private Child java(final String name, final Class<?> main, final String... args) throws IOException
    {
        final List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        final List<String> jvm = ManagementFactory.getRuntimeMXBean().getInputArguments();
        for (int i = 0; i < jvm.size(); i++)
        {
            final String arg = jvm.get(i);
            final boolean twoWords = arg.equals("--add-opens") || arg.equals("--add-exports");
            if (twoWords || arg.startsWith("--add-") || arg.startsWith("-Dchronicle"))
            {
                cmd.add(arg);
                if (twoWords)
                {
                    cmd.add(jvm.get(++i));
                }
            }
        }
        cmd.addAll(List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
            main.getName()));
        cmd.addAll(List.of(args));
        final Child child = new Child(new ProcessBuilder(cmd)
            .redirectOutput(dir.resolve(name + ".out").toFile())
            .redirectError(dir.resolve(name + ".err").toFile())
            .start(), dir.resolve(name + ".out"), dir.resolve(name + ".err"));
        processes.add(child.process());
        return child;
    }

    private Child server(final String name, final String... args) throws IOException
    {
        return java(name, ServerMain.class, args);
    }

    /** Starts a server on port 0 and waits until it listens; its port. */
    private int listening(final Child server, final Path portFile) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (!Files.exists(portFile) || !Files.readString(portFile).endsWith("\n"))
        {
            assertTrue(server.process().isAlive(), () -> "the server ended before listening: " + server.stderr());
            assertTrue(System.nanoTime() - deadline < 0, "the server did not listen in time");
            Thread.sleep(20);
        }
        return Integer.parseInt(Files.readString(portFile).trim());
    }

    private static void logsIn(final int port, final String[] key) throws IOException
    {
        try (RawConnection c = new RawConnection(port))
        {
            final Envelope answer = c.login(Long.parseLong(key[0]), key[1]);
            assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, answer.getBodyCase(), answer::toString);
        }
    }

    /** A command journal that recovery refuses: a record cut short, then a whole one (so not a torn tail). */
    private static Path corruptJournal(final Path data)
    {
        try (Journal journal = Journal.open(data.resolve("commands")))
        {
            final CommandCodec codec = new CommandCodec();
            final Command tick = new Command().reset(CommandType.TICK, 1000);
            tick.sequence = 1;
            journal.append(codec.bytes(), codec.encode(tick) - 3);
            journal.append(codec.bytes(), codec.encode(tick));
        }
        return data;
    }

    @Test
    void oneServerPerDataDirectory() throws Exception
    {
        final Path data = dir.resolve("data");
        final Path portFile = dir.resolve("port");
        final Path keyFile = dir.resolve("admin.key");

        // a port in use on a fresh directory: refused before anything is made, so no admin key goes unprinted
        // (its own directory, so that the first server starts meanwhile)
        final Path busyData = dir.resolve("busy-data");
        final Child first;
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            final Child busy = server("busy-port", "--data", busyData.toString(), "--port", Integer.toString(taken.getLocalPort()));
            first = server("first", "--data", data.toString(), "--port", "0", "--port-file", portFile.toString(),
                "--admin-key-file", keyFile.toString());
            busy.failedInOneLine(1, "cannot listen on 127.0.0.1:" + taken.getLocalPort() + ": address already in use; " +
                "stop what listens there or choose another --port");
        }
        try (Stream<Path> files = Files.list(busyData))
        {
            assertEquals(List.of(busyData.resolve("LOCK")), files.toList(), "nothing but the lock file was made");
        }

        final int port = listening(first, portFile);
        assertTrue(first.stdout().contains("Fresh exchange. Admin key (shown once, keep it safe):"), first.stdout());
        final String[] key = Files.readString(keyFile).trim().split(":");
        final long pid = first.process().pid();

        final Child second = server("second", "--data", data.toString(), "--port", "0");
        final Child dump = java("dump", JournalTool.class, "dump", data.toString());
        final Child verify = java("verify", JournalTool.class, "verify", data.toString());
        second.failedInOneLine(1, "gpux server: data directory " + data + " is in use by pid " + pid + " (started ");
        assertTrue(second.stderr().trim().endsWith("); stop that server or use another --data"), second.stderr());
        assertTrue(first.process().isAlive(), "the first server is untouched");
        logsIn(port, key);

        assertEquals(0, dump.exit(), dump::stderr);
        assertTrue(dump.stderr().startsWith("note: " + data + " is in use by pid " + pid + " (started "), dump.stderr());
        assertTrue(dump.stdout().contains(" MARKET id=H100-SXM-80G"), "the journals as far as written: " + dump.stdout());
        verify.failedInOneLine(1, "gpux journal verify: " + data + " is in use by pid " + pid + " (started ");

        first.process().destroy();
        assertTrue(first.process().waitFor(30, TimeUnit.SECONDS), "SIGTERM stops the server");
        Files.delete(portFile);
        final Child again = server("again", "--data", data.toString(), "--port", "0", "--port-file", portFile.toString());
        final int newPort = listening(again, portFile);
        assertFalse(again.stdout().contains("Fresh exchange"), "the same exchange, recovered: " + again.stdout());
        logsIn(newPort, key);
        again.process().destroy();
        assertTrue(again.process().waitFor(30, TimeUnit.SECONDS));
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void everyFailedStartIsOneLineAndVerboseAddsTheTrace() throws Exception
    {
        final Path file = Files.writeString(dir.resolve("a-file"), "not a directory");
        final Path badConfig = Files.writeString(dir.resolve("bad.scn"), "0 MARKET id=X\n0 TICK\n");
        final Path corrupt = corruptJournal(dir.resolve("corrupt"));
        final Path corruptToo = corruptJournal(dir.resolve("corrupt-too"));
        final String fresh = dir.resolve("fresh").toString();
        final Child dataIsAFile = server("data-file", "--data", file.toString(), "--port", "0");
        final Child missingConfig = server("no-config", "--data", fresh, "--config", dir.resolve("none.scn").toString());
        final Child badConfigLine = server("bad-config", "--data", fresh, "--config", badConfig.toString());
        final Child portOutOfRange = server("bad-port", "--data", fresh, "--port", "99999");
        final Child corruptJournal = server("corrupt", "--data", corrupt.toString(), "--port", "0");
        final Child verbose = server("verbose", "--data", corruptToo.toString(), "--port", "0", "--verbose");

        dataIsAFile.failedInOneLine(1, "gpux server: --data " + file + " is not a directory: name a directory");
        missingConfig.failedInOneLine(2, "gpux server: --config " + dir.resolve("none.scn") + " does not exist: ");
        badConfigLine.failedInOneLine(1, "gpux server: " + badConfig + ": line 2: only MARKET and CONFIG lines belong in a config");
        portOutOfRange.failedInOneLine(2, "gpux server: --port 99999 is out of range: a TCP port is 1 to 65535");
        corruptJournal.failedInOneLine(1, "gpux server: cannot recover the exchange from " + corrupt +
            ": command journal corrupt at index ");
        assertTrue(corruptJournal.stderr().contains("check them with ./gpux journal verify " + corrupt), corruptJournal.stderr());
        assertFalse(Files.exists(Path.of(fresh)), "the failures before the start touched no data directory");

        assertEquals(1, verbose.exit());
        final List<String> lines = verbose.stderr().lines().toList();
        assertTrue(lines.get(0).startsWith("gpux server: cannot recover the exchange from " + corruptToo), verbose.stderr());
        assertTrue(lines.get(1).contains("RecoveryException") && lines.get(2).startsWith("\tat "), verbose.stderr());
    }
}
