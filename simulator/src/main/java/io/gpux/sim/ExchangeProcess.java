package io.gpux.sim;

import io.gpux.sim.market.ScaledClock;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The demo's exchange: {@code io.gpux.gateway.ServerMain} in a child JVM (the same java, the same
 * classpath, the JVM flags Chronicle needs taken from this JVM), on a data directory, on loopback,
 * with its clock scaled and anchored. It can be killed with SIGKILL and restarted on the same data
 * directory, port and clock anchor.
 */
final class ExchangeProcess implements AutoCloseable
{
    /**
     * The sessions' heartbeat interval: a peer silent for two of them is dropped. Longer than the
     * default second so that a busy machine's pauses do not cut hundreds of connections.
     */
    static final int SESSION_HEARTBEAT_MS = 3000;

    private final Path workDir;
    private final Path dataDir;
    private final Path configFile;
    private final ScaledClock clock;
    private final int generation;
    private final Process process;
    private final int port;
    private final int httpPort;
    private final Thread killOnExit;

    private ExchangeProcess(final Path workDir, final Path dataDir, final Path configFile, final ScaledClock clock,
        final int requestedPort, final int httpPort, final int generation) throws IOException, InterruptedException
    {
        this.httpPort = httpPort;
        this.workDir = workDir;
        this.dataDir = dataDir;
        this.configFile = configFile;
        this.clock = clock;
        this.generation = generation;
        final Path portFile = workDir.resolve("port");
        Files.deleteIfExists(portFile);
        final List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        final List<String> jvm = ManagementFactory.getRuntimeMXBean().getInputArguments();
        for (int i = 0; i < jvm.size(); i++)
        {
            final String arg = jvm.get(i);
            if ((arg.equals("--add-opens") || arg.equals("--add-exports")) && i + 1 < jvm.size())
            {
                cmd.add(arg);
                cmd.add(jvm.get(++i));
            }
            else if (arg.startsWith("--add-") || arg.startsWith("-Dchronicle"))
            {
                cmd.add(arg);
            }
        }
        cmd.add("-Xmx1g");
        cmd.add("-XX:+ExitOnOutOfMemoryError");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("io.gpux.gateway.ServerMain");
        cmd.add("--port");
        cmd.add(Integer.toString(requestedPort));
        cmd.add("--http-port");
        cmd.add(Integer.toString(httpPort));
        cmd.add("--port-file");
        cmd.add(portFile.toString());
        cmd.add("--data");
        cmd.add(dataDir.toString());
        cmd.add("--config");
        cmd.add(configFile.toString());
        cmd.add("--admin-key-file");
        cmd.add(adminKeyFile().toString());
        cmd.add("--heartbeat-ms");
        cmd.add(Integer.toString(SESSION_HEARTBEAT_MS));
        cmd.add("--clock-scale");
        cmd.add(Long.toString(clock.scale()));
        cmd.add("--clock-anchor");
        cmd.add(clock.anchorArgument());
        final Path log = workDir.resolve("exchange-" + generation + ".log");
        this.process = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        this.killOnExit = new Thread(process::destroyForcibly, "gpux-demo-exchange-reaper");
        Runtime.getRuntime().addShutdownHook(killOnExit);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (!Files.exists(portFile))
        {
            if (!process.isAlive())
            {
                throw new IOException("the exchange exited with status " + process.exitValue() + ":\n" + tail(log));
            }
            if (System.nanoTime() > deadline)
            {
                process.destroyForcibly();
                throw new IOException("the exchange did not start within 90 s:\n" + tail(log));
            }
            Thread.sleep(20);
        }
        this.port = Integer.parseInt(Files.readString(portFile).trim());
    }

    /**
     * Starts a fresh exchange on an ephemeral port, its web dashboard on a port free now (kept across
     * restarts, so that an open page reconnects to the restarted exchange).
     */
    static ExchangeProcess start(final Path workDir, final Path dataDir, final Path configFile, final ScaledClock clock)
        throws IOException, InterruptedException
    {
        final int httpPort;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            httpPort = probe.getLocalPort();
        }
        return new ExchangeProcess(workDir, dataDir, configFile, clock, 0, httpPort, 1);
    }

    /** A new process on the same data directory, port and clock anchor (this one must be dead). */
    ExchangeProcess restart() throws IOException, InterruptedException
    {
        IOException last = null;
        for (int attempt = 0; attempt < 5; attempt++)
        {
            try
            {
                return new ExchangeProcess(workDir, dataDir, configFile, clock, port, httpPort, generation + 1);
            }
            catch (final IOException ex)
            {
                // the port may still be held for a moment by the dead process's sockets
                last = ex;
                Thread.sleep(200);
            }
        }
        throw last;
    }

    int port()
    {
        return port;
    }

    /** The web dashboard's address. */
    String dashboardUrl()
    {
        return "http://127.0.0.1:" + httpPort + "/";
    }

    Path adminKeyFile()
    {
        return workDir.resolve("admin.key");
    }

    /** SIGKILL, and wait for the process to be gone. */
    void kill() throws InterruptedException
    {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
        removeHook();
    }

    /** SIGTERM (the server closes its journals cleanly), SIGKILL if it does not stop within 20 s. */
    @Override
    public void close()
    {
        process.destroy();
        try
        {
            if (!process.waitFor(20, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
        catch (final InterruptedException ex)
        {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        removeHook();
    }

    private void removeHook()
    {
        try
        {
            Runtime.getRuntime().removeShutdownHook(killOnExit);
        }
        catch (final IllegalStateException ignored)
        {
            // the JVM is shutting down: the hook runs anyway
        }
    }

    static String tail(final Path log)
    {
        try
        {
            final List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        }
        catch (final IOException ex)
        {
            return "(no log: " + ex.getMessage() + ")";
        }
    }
}
