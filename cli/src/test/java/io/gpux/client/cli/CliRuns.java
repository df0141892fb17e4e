package io.gpux.client.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.client.ClientContext;
import io.gpux.client.GpuxClient;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Response;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The command line run in process, as the tests run it: {@link #raw} runs {@code gpux ARGS} and keeps what it printed;
 * {@link #cli} adds the port of the exchange the test classes share ({@link CliExchange}); {@link #ok}, {@link #refused}
 * and {@link #usageError} check the exit status; {@link #account} and {@link #registerMachine} set up what a test
 * trades with; {@link Background} runs a streaming command while the test goes on.
 */
final class CliRuns
{
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    private CliRuns()
    {
    }

    /** What one run printed, and its exit status. */
    record Run(int status, String out, String err)
    {
        /** The --json lines, each checked against the rules every --json line follows (docs/cli.md). */
        List<Map<String, Object>> json()
        {
            final List<Map<String, Object>> lines = new ArrayList<>();
            for (final String line : out.split("\n"))
            {
                if (!line.isBlank())
                {
                    JsonRules.check(line);
                    lines.add(MiniJson.object(line));
                }
            }
            return lines;
        }

        Map<String, Object> last()
        {
            final List<Map<String, Object>> lines = json();
            return lines.get(lines.size() - 1);
        }

        @Override
        public String toString()
        {
            return "status " + status + "\n--- out\n" + out + "--- err\n" + err;
        }
    }

    /** The shared exchange's admin key file. */
    static String adminKey()
    {
        return CliExchange.shared().adminKey();
    }

    /** The directory of the tests' files, beside the shared exchange's data. */
    static Path dir()
    {
        return CliExchange.shared().dir();
    }

    /** Creates an account (comma-separated roles) with a key file and optionally money; returns the key file. */
    static String account(final String name, final String roles, final String deposit) throws Exception
    {
        ok(cli("admin", "account", "create", name, "--roles", roles, "--key-file", adminKey()));
        final Path keyFile = dir().resolve(name + ".key");
        ok(cli("admin", "key", "create", name, "--out", keyFile.toString(), "--key-file", adminKey()));
        if (deposit != null)
        {
            ok(cli("admin", "deposit", name, deposit, "--key-file", adminKey()));
        }
        return keyFile.toString();
    }

    /** Registers a machine and brings it online (what the owner agent does), with the owner's key file. */
    static long registerMachine(final String keyFile, final String name, final String market, final int gpus)
        throws Exception
    {
        final String[] key = Files.readString(Path.of(keyFile)).trim().split(":");
        try (GpuxClient c = new GpuxClient(new ClientContext().port(CliExchange.shared().port()).keyId(Long.parseLong(key[0]))
            .secretHex(key[1])))
        {
            c.connect();
            final Response r = c.call(Envelope.newBuilder().setRegisterMachine(RegisterMachine.newBuilder().setName(name)
                .setMarket(market).setGpus(gpus)), TIMEOUT);
            assertEquals(Reason.REASON_OK, r.getReason(), r.toString());
            assertEquals(Reason.REASON_OK, c.call(Envelope.newBuilder().setMachineHeartbeat(
                MachineHeartbeat.newBuilder().setMachineId(r.getAssignedId())), TIMEOUT).getReason());
            return r.getAssignedId();
        }
    }

    /** Polls until the supplier gives a value (not null), up to twice the timeout. */
    static <T> T poll(final String what, final Supplier<T> value) throws InterruptedException
    {
        final long deadline = System.nanoTime() + 2 * TIMEOUT.toNanos();
        T v;
        while ((v = value.get()) == null)
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(50);
        }
        return v;
    }

    /** An executable shell script in {@code dir} that runs the command. */
    static Path script(final String name, final String command) throws IOException
    {
        final Path script = dir().resolve(name);
        Files.writeString(script, "#!/bin/sh\n" + command + "\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return script;
    }

    /** An nvidia-smi stand-in in {@code dir} that prints the H200 fixtures. */
    static String fakeNvidiaSmi(final Path dir) throws IOException
    {
        Path fixtures = null;
        for (Path d = Path.of("").toAbsolutePath(); d != null && fixtures == null; d = d.getParent())
        {
            for (final Path candidate : new Path[] {d.resolve("shared/fixtures/gpu-h200"), d.resolve("../shared/fixtures/gpu-h200")})
            {
                if (fixtures == null && Files.isDirectory(candidate))
                {
                    fixtures = candidate.normalize();
                }
            }
        }
        assertTrue(fixtures != null, "shared/fixtures/gpu-h200 not found above the working directory");
        final Path script = dir.resolve("nvidia-smi");
        Files.writeString(script, "#!/bin/sh\ncase \"$1\" in\n"
            + "  --query-gpu=timestamp,*) head -n 2 '" + fixtures.resolve("telemetry-load.csv") + "' ;;\n"
            + "  *) cat '" + fixtures.resolve("query-idle.csv") + "' ;;\nesac\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return script.toString();
    }

    static void usageError(final String message, final String... args)
    {
        usageError(message, Map.of(), args);
    }

    static void usageError(final String message, final Map<String, String> env, final String... args)
    {
        final Run run = cli(env, args);
        assertEquals(2, run.status(), Arrays.toString(args) + ": " + run);
        assertTrue(run.err().contains(message), Arrays.toString(args) + ": " + run);
        noStackTrace(run);
    }

    static void noStackTrace(final Run run)
    {
        assertFalse(run.err().contains("\tat ") || run.err().contains("Exception"), run.toString());
    }

    /** Runs a command the exchange refuses: exit status 1. */
    static Run refused(final String... args)
    {
        final Run run = cli(args);
        assertEquals(1, run.status(), run.toString());
        return run;
    }

    static Run ok(final Run run)
    {
        assertEquals(0, run.status(), run.toString());
        return run;
    }

    /** A streaming command run on a thread of its own, its output readable while it runs. */
    static final class Background
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final CompletableFuture<Integer> status = new CompletableFuture<>();

        Background(final String... args)
        {
            final String[] all = withPort(args);
            final Thread t = new Thread(() -> status.complete(GpuxCli.commandLine(new GpuxCli(Map.of()))
                .setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true)).execute(all)), "cli-" + args[0]);
            t.setDaemon(true);
            t.start();
        }

        void awaitOut(final String text) throws Exception
        {
            await(out, text);
        }

        void awaitErr(final String text) throws Exception
        {
            await(err, text);
        }

        private void await(final StringWriter w, final String text) throws Exception
        {
            final long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (!w.toString().contains(text))
            {
                if (System.nanoTime() > deadline || status.isDone())
                {
                    throw new AssertionError("no '" + text + "' from the command: " + out + err);
                }
                Thread.sleep(10);
            }
        }

        Run result() throws Exception
        {
            return new Run(status.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS), out.toString(), err.toString());
        }
    }

    /** Runs {@code gpux ARGS --port <the shared exchange's port>} with no environment. */
    static Run cli(final String... args)
    {
        return cli(Map.of(), args);
    }

    static Run cli(final Map<String, String> env, final String... args)
    {
        return raw(env, withPort(args));
    }

    private static String[] withPort(final String... args)
    {
        final String[] all = Arrays.copyOf(args, args.length + 2);
        all[args.length] = "--port";
        all[args.length + 1] = Integer.toString(CliExchange.shared().port());
        return all;
    }

    static Run raw(final Map<String, String> env, final String... args)
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int status = GpuxCli.commandLine(new GpuxCli(env))
            .setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true)).execute(args);
        return new Run(status, out.toString(), err.toString());
    }
}
