package io.gpux.client.e2e;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The real server ({@code io.gpux.gateway.ServerMain}) as a child JVM, for end-to-end tests: an
 * ephemeral port on 127.0.0.1, a data directory that survives {@link #restart()}, the child's output
 * in a file ({@link #log()}).
 *
 * <p>The child runs on this JVM's {@code java}, with the test classpath (which holds the gateway and
 * its dependencies) and the flags Chronicle needs, copied from this JVM's own arguments (what Surefire
 * passed: {@code --add-opens}, {@code --add-exports}, {@code -D...}): see {@link ChildJvm}.
 * {@link #close()} (call it from {@code @AfterEach}) kills it if it is still running; a shutdown hook
 * does the same if the test JVM exits first, so no server outlives the build.
 */
final class ServerProcess implements AutoCloseable
{
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
    /**
     * A test's child JVM lives for seconds and does little: the C1 compiler alone (no C2 threads competing for
     * the CPUs with the test) and the serial collector (no concurrent GC threads) start it sooner, the class-data
     * sharing archive of the JDK loads the JDK's classes without parsing them.
     */
    static final List<String> STARTUP_FLAGS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto");

    private Path dataDir;
    private final List<String> options = new ArrayList<>();
    private final Path configFile;
    private final Path portFile;
    private final Path adminKeyFile;
    private final Path logFile;
    private final int heartbeatMs;
    private Process process;
    private Thread killOnExit;
    private int port;
    private E2e.Key adminKey;
    private int starts;
    private boolean keepPort;

    /**
     * @param workDir     where the data directory, port file, admin key file and log go.
     * @param configFile  MARKET/CONFIG scenario lines for the fresh exchange (null: the built-in markets).
     * @param heartbeatMs the session heartbeat interval ({@code --heartbeat-ms}).
     */
    ServerProcess(final Path workDir, final Path configFile, final int heartbeatMs)
    {
        this.dataDir = workDir.resolve("data");
        this.configFile = configFile;
        this.portFile = workDir.resolve("server.port");
        this.adminKeyFile = workDir.resolve("admin.key");
        this.logFile = workDir.resolve("server.log");
        this.heartbeatMs = heartbeatMs;
    }

    /** The data directory somewhere else than in the work directory (before the first start). */
    ServerProcess dataDir(final Path dir)
    {
        dataDir = dir;
        return this;
    }

    /**
     * Every start after the first listens on the first start's port, so that clients which reconnect
     * by themselves find the server again after a crash.
     */
    ServerProcess keepPort()
    {
        keepPort = true;
        return this;
    }

    /** More command-line options of the server, e.g. {@code --min-free-mb 2}. */
    ServerProcess options(final String... more)
    {
        options.addAll(List.of(more));
        return this;
    }

    /** Starts the server and waits until it listens (its port file appears). */
    synchronized ServerProcess start() throws IOException, InterruptedException
    {
        if (process != null && process.isAlive())
        {
            throw new IllegalStateException("already running");
        }
        Files.deleteIfExists(portFile);
        starts++;
        Files.writeString(logFile, "----- start " + starts + ": " + String.join(" ", command()) + "\n",
            StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        final ProcessBuilder builder = new ProcessBuilder(command())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
            .redirectInput(ProcessBuilder.Redirect.PIPE);
        final long startNanos = System.nanoTime();
        process = builder.start();
        final Process started = process;
        killOnExit = new Thread(() -> killTree(started), "e2e-kill-server");
        Runtime.getRuntime().addShutdownHook(killOnExit);

        final long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!isReady())
        {
            if (!process.isAlive())
            {
                throw new IOException("the server exited with status " + process.exitValue() + " before listening:\n" + log());
            }
            if (System.nanoTime() - deadline > 0)
            {
                kill();
                throw new IOException("the server did not listen within " + START_TIMEOUT.toMillis() + " ms:\n" + log());
            }
            Thread.sleep(20);
        }
        port = Integer.parseInt(Files.readString(portFile).trim());
        System.out.printf("e2e: server start %d listened after %d ms%n", starts,
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
        if (adminKey == null)
        {
            final String[] key = Files.readString(adminKeyFile).trim().split(":");
            adminKey = new E2e.Key(Long.parseLong(key[0]), key[1]);
        }
        return this;
    }

    private boolean isReady() throws IOException
    {
        if (!Files.exists(portFile))
        {
            return false;
        }
        final String text = Files.readString(portFile);
        return text.endsWith("\n");
    }

    /** The command line of the child JVM. */
    List<String> command()
    {
        final List<String> cmd = ChildJvm.command("-Xmx512m", "-XX:+ExitOnOutOfMemoryError");
        cmd.add("io.gpux.gateway.ServerMain");
        cmd.add("--port");
        cmd.add(keepPort && port != 0 ? Integer.toString(port) : "0");
        cmd.add("--data");
        cmd.add(dataDir.toString());
        cmd.add("--port-file");
        cmd.add(portFile.toString());
        cmd.add("--admin-key-file");
        cmd.add(adminKeyFile.toString());
        cmd.add("--heartbeat-ms");
        cmd.add(Integer.toString(heartbeatMs));
        if (configFile != null)
        {
            cmd.add("--config");
            cmd.add(configFile.toString());
        }
        cmd.addAll(options);
        return cmd;
    }

    /**
     * The flags of a child JVM: this JVM's module-access flags and system properties (what Surefire's argLine gave
     * it), and {@link #STARTUP_FLAGS}.
     */
    static List<String> jvmFlags()
    {
        final List<String> in = ManagementFactory.getRuntimeMXBean().getInputArguments();
        final List<String> out = new ArrayList<>(STARTUP_FLAGS);
        for (int i = 0; i < in.size(); i++)
        {
            final String arg = in.get(i);
            if (arg.equals("--add-opens") || arg.equals("--add-exports") || arg.equals("--add-modules"))
            {
                out.add(arg);
                if (i + 1 < in.size())
                {
                    out.add(in.get(++i));
                }
            }
            else if (arg.startsWith("--add-opens=") || arg.startsWith("--add-exports=") || arg.startsWith("--add-modules=")
                || arg.startsWith("-D") && !arg.startsWith("-Djava.class.path="))
            {
                out.add(arg);
            }
        }
        return out;
    }

    int port()
    {
        return port;
    }

    /** The bootstrap admin key of the fresh exchange (read at the first start). */
    E2e.Key adminKey()
    {
        return adminKey;
    }

    long adminKeyId()
    {
        return adminKey.id();
    }

    String adminSecret()
    {
        return adminKey.secret();
    }

    Path dataDir()
    {
        return dataDir;
    }

    synchronized boolean isAlive()
    {
        return process != null && process.isAlive();
    }

    /** SIGKILL ({@link Process#destroyForcibly()}), then waits for the end; the exit status. */
    synchronized int kill() throws InterruptedException
    {
        if (process == null)
        {
            return -1;
        }
        killTree(process);
        process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        return ended();
    }

    /**
     * SIGTERM ({@link Process#destroy()}): the server's shutdown hook closes the exchange; waits for the
     * end (killing it if it takes too long). The exit status.
     */
    synchronized int stop() throws InterruptedException
    {
        if (process == null)
        {
            return -1;
        }
        process.destroy();
        if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
        {
            System.err.println("e2e: the server ignored SIGTERM for " + STOP_TIMEOUT.toMillis() + " ms: killing it");
            return kill();
        }
        return ended();
    }

    /** Stops the server (SIGTERM) if it runs and starts it again on the same data directory. */
    synchronized ServerProcess restart() throws IOException, InterruptedException
    {
        if (isAlive())
        {
            stop();
        }
        return start();
    }

    /** Everything the child wrote, all starts included. */
    String log()
    {
        try
        {
            return Files.exists(logFile) ? Files.readString(logFile, StandardCharsets.UTF_8) : "(no output)";
        }
        catch (final IOException ex)
        {
            return "(unreadable: " + ex + ")";
        }
    }

    /** Kills the server if it still runs (for {@code @AfterEach}, whatever the test did). */
    @Override
    public synchronized void close()
    {
        if (isAlive())
        {
            try
            {
                kill();
            }
            catch (final InterruptedException ex)
            {
                killTree(process);
                Thread.currentThread().interrupt();
            }
        }
        if (process != null)
        {
            ended();
        }
    }

    private int ended()
    {
        if (killOnExit != null)
        {
            try
            {
                Runtime.getRuntime().removeShutdownHook(killOnExit);
            }
            catch (final IllegalStateException ignored)
            {
                // the JVM is exiting: the hook runs anyway
            }
            killOnExit = null;
        }
        return process.isAlive() ? -1 : process.exitValue();
    }

    private static void killTree(final Process p)
    {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
    }

    @Override
    public String toString()
    {
        return "server process " + (process == null ? "(not started)" : process.pid()) + " on port " + port;
    }
}
