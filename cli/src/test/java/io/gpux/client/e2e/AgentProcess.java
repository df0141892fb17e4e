package io.gpux.client.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.gpux.client.e2e.E2e.TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code gpux agent} as a real process on the fake nvidia-smi, its output in a file; {@link #close()}
 * kills it if it still runs.
 *
 * <p>A shell without job control starts background commands with SIGINT ignored, and the JVM keeps an
 * ignored SIGINT ignored; so the agent is started through perl, which sets SIGINT back to its default
 * and then becomes the agent's JVM (the same process id).
 */
final class AgentProcess implements AutoCloseable
{
    private static final Path PERL = Path.of("/usr/bin/perl");

    private final Path out;
    private final Process process;

    private AgentProcess(final Path out, final Process process)
    {
        this.out = out;
        this.process = process;
    }

    /**
     * Starts {@code gpux agent --nvidia-smi FAKE --port PORT --key-file KEY ARGS...}, its output to
     * {@code out}; dir holds the fake nvidia-smi.
     */
    static AgentProcess start(final Path dir, final Path out, final int port, final Path keyFile, final String... args)
        throws IOException
    {
        final List<String> cmd = new ArrayList<>();
        if (Files.isExecutable(PERL))
        {
            cmd.addAll(List.of(PERL.toString(), "-e", "$SIG{INT} = 'DEFAULT'; exec @ARGV or die \"exec: $!\""));
        }
        cmd.addAll(ChildJvm.command("-Xmx256m"));
        cmd.addAll(List.of("io.gpux.client.cli.GpuxCli", "agent",
            "--nvidia-smi", FakeNvidiaSmi.write(dir).toString(), "--port", Integer.toString(port),
            "--key-file", keyFile.toString()));
        cmd.addAll(List.of(args));
        return new AgentProcess(out, new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start());
    }

    Process process()
    {
        return process;
    }

    /** Sends the signal ({@code INT}, {@code TERM}, {@code KILL}) with kill(1). */
    void signal(final String name) throws IOException, InterruptedException
    {
        final Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
        assertEquals(0, kill.waitFor(), "kill -" + name);
    }

    /** SIGKILL, as a crash: nothing of the agent runs its shutdown; waits until it is gone. */
    void crash() throws IOException, InterruptedException
    {
        signal("KILL");
        assertTrue(process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS), "the agent is gone");
    }

    /** Waits until the agent has printed text; fails at once if it exits without. */
    void awaitOut(final String text)
    {
        E2e.await("the agent to print " + text, TIMEOUT, () -> out().contains(text) || !process.isAlive(), this::out);
        assertTrue(out().contains(text), () -> "the agent exited (" + process.exitValue() + ") without printing " + text + ":\n"
            + out());
    }

    /** All it printed so far. */
    String out()
    {
        try
        {
            return Files.exists(out) ? Files.readString(out, StandardCharsets.UTF_8) : "";
        }
        catch (final IOException ex)
        {
            return "(unreadable: " + ex + ")";
        }
    }

    @Override
    public void close()
    {
        if (process.isAlive())
        {
            process.destroyForcibly();
        }
    }
}
