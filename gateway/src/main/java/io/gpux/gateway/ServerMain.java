package io.gpux.gateway;

import io.gpux.core.journal.DataDirectoryLock;
import io.gpux.core.pipeline.Durability;
import io.gpux.core.pipeline.PipelineConfiguration;
import io.gpux.core.pipeline.Recovery;
import io.gpux.tools.Failures;
import io.gpux.gateway.tls.ServerTls;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.BindException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code ./gpux server}: the whole exchange on a port, until SIGTERM or SIGINT. A start that fails says
 * why in one line on stderr and exits with 1 (2 for a bad option); {@code --verbose} adds the trace.
 */
@Command(name = "gpux server", mixinStandardHelpOptions = true,
    description = {"Starts the exchange: recovers from the data directory, then serves the binary protocol.",
        "One server per data directory: it holds <data>/LOCK while it runs, and a second server on the same " +
            "directory is refused with the holder's pid.",
        "A start that fails prints why in one line (--verbose: and the trace) and exits with 1, or 2 for a bad option."})
public final class ServerMain implements Callable<Integer>
{
    @Option(names = "--port", description = "TCP port (0: any free one; default ${DEFAULT-VALUE})")
    int port = GatewayConfiguration.PORT_DEFAULT;

    @Option(names = "--bind", description = "address to listen on (default ${DEFAULT-VALUE}: this machine only; " +
        "any other address needs TLS or --allow-plaintext)")
    String bind = GatewayConfiguration.BIND_DEFAULT;

    @Option(names = "--metrics-port", description = "serve the counters for Prometheus on this port at /metrics " +
        "(0: any free one; default: no metrics endpoint; ./gpux stat reads the same counters without it)")
    Integer metricsPort;

    @Option(names = "--metrics-bind", description = "address the metrics endpoint listens on (default ${DEFAULT-VALUE}: " +
        "this machine only)")
    String metricsBind = GatewayConfiguration.METRICS_BIND_DEFAULT;

    @Option(names = "--http-port", description = "serve the live web dashboard on this port (0: any free one; " +
        "default: no dashboard)")
    Integer httpPort;

    @Option(names = "--http-bind", description = "address the web dashboard listens on (default ${DEFAULT-VALUE}: " +
        "this machine only)")
    String httpBind = GatewayConfiguration.HTTP_BIND_DEFAULT;

    @Option(names = "--data", description = "data directory: journals, snapshots, master key, LOCK (one server at a " +
        "time; default ${DEFAULT-VALUE})")
    Path data = Path.of("data");

    @Option(names = "--config", description = "markets and settings of a fresh exchange (MARKET/CONFIG scenario lines; " +
        "checked at every start); default: the built-in GPU markets")
    Path config;

    @Option(names = "--durability", description = "ASYNC (survives a killed process) or SYNC (msync per batch: " +
        "survives power loss); default ${DEFAULT-VALUE}")
    Durability durability = Durability.ASYNC;

    @Option(names = "--min-free-mb", description = "free space the data directory's file system must keep for the " +
        "journals: below it new commands are answered UNAVAILABLE (\"journal disk full\") until space is back " +
        "(default ${DEFAULT-VALUE})")
    long minFreeMb = PipelineConfiguration.minFreeBytes() >> 20;

    @Option(names = "--heartbeat-ms", description = "session heartbeat interval (default ${DEFAULT-VALUE})")
    int heartbeatMs = GatewayConfiguration.HEARTBEAT_DEFAULT;

    @Option(names = "--max-sessions-per-account", description = "sessions one account may have open at once " +
        "(default ${DEFAULT-VALUE})")
    int maxSessionsPerAccount = GatewayConfiguration.intProp(GatewayConfiguration.MAX_SESSIONS_PER_ACCOUNT_PROP,
        GatewayConfiguration.MAX_SESSIONS_PER_ACCOUNT_DEFAULT);

    @Option(names = "--max-sessions", description = "sessions the server holds open in all (default ${DEFAULT-VALUE})")
    int maxSessions = GatewayConfiguration.intProp(GatewayConfiguration.MAX_SESSIONS_PROP,
        GatewayConfiguration.MAX_SESSIONS_DEFAULT);

    @Option(names = "--max-market-data-sessions", description = "market-data sessions (a login without a key, market " +
        "data only) the server holds open in all; 0 takes none (default ${DEFAULT-VALUE})")
    int maxMarketDataSessions = GatewayConfiguration.intProp(GatewayConfiguration.MAX_MARKET_DATA_SESSIONS_PROP,
        GatewayConfiguration.MAX_MARKET_DATA_SESSIONS_DEFAULT);

    @Option(names = "--login-failure-burst", description = "failed logins allowed at once per source address and per " +
        "key before logins are refused unchecked (default ${DEFAULT-VALUE})")
    int loginFailureBurst = GatewayConfiguration.intProp(GatewayConfiguration.LOGIN_FAILURE_BURST_PROP,
        GatewayConfiguration.LOGIN_FAILURE_BURST_DEFAULT);

    @Option(names = "--login-failures-per-second", description = "how many failed logins a second an address or a key " +
        "gets back (default ${DEFAULT-VALUE})")
    int loginFailuresPerSecond = GatewayConfiguration.intProp(GatewayConfiguration.LOGIN_FAILURES_PER_SECOND_PROP,
        GatewayConfiguration.LOGIN_FAILURES_PER_SECOND_DEFAULT);

    @Option(names = "--admin-key-file", description = "also write a fresh exchange's admin key here (key-id:secret, mode 0600)")
    Path adminKeyFile;

    @Option(names = "--clock-scale", description = "exchange time runs this many times faster than the wall clock " +
        "(demos compress a day into a minute; default ${DEFAULT-VALUE})")
    long clockScale = 1;

    @Option(names = "--clock-anchor", description = "WALL_MS:EXCHANGE_MS: the wall time at which exchange time was " +
        "EXCHANGE_MS (with --clock-scale; give the same anchor to a restarted server to continue its time line)")
    String clockAnchor;

    @Option(names = "--threads", description = "SHARED: the exchange core and the egress run on the gateway's event " +
        "loop, nothing crosses a thread (fastest on two cores); DEDICATED: each on a thread of its own; AUTO: " +
        "DEDICATED with " + GatewayConfiguration.DEDICATED_MIN_CPUS + " CPUs or more, SHARED below (default ${DEFAULT-VALUE})")
    Threads threads = Threads.fromProperty();

    @Option(names = "--spin-us", description = "with SHARED threads: how long the event loop keeps polling its sockets " +
        "without sleeping after its last work (default ${DEFAULT-VALUE})")
    long spinMicros = GatewayConfiguration.longProp(GatewayConfiguration.SPIN_PROP, GatewayConfiguration.SPIN_DEFAULT);

    @Option(names = "--max-resends-per-account", description = "resends (Logins with last_seq) one account may have " +
        "in progress at once; one more is refused with TOO_MANY_RESENDS (default ${DEFAULT-VALUE})")
    int maxResendsPerAccount = GatewayConfiguration.intProp(GatewayConfiguration.MAX_RESENDS_PER_ACCOUNT_PROP,
        GatewayConfiguration.MAX_RESENDS_PER_ACCOUNT_DEFAULT);

    @Option(names = "--max-resends", description = "resends the whole gateway may have in progress at once " +
        "(default ${DEFAULT-VALUE})")
    int maxResends = GatewayConfiguration.intProp(GatewayConfiguration.MAX_RESENDS_PROP, GatewayConfiguration.MAX_RESENDS_DEFAULT);

    enum Threads
    {
        SHARED, DEDICATED, AUTO;

        /** @return the layout the {@code gpux.threads} property names; AUTO when it names none of them. */
        static Threads fromProperty()
        {
            final String v = System.getProperty(GatewayConfiguration.THREADS_PROP, GatewayConfiguration.THREADS_DEFAULT);
            for (final Threads t : values())
            {
                if (t.name().equalsIgnoreCase(v))
                {
                    return t;
                }
            }
            return AUTO;
        }
    }

    @Option(names = "--verbose", description = "when the start fails, print the Java stack trace after the reason")
    boolean verbose;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Option(names = "--tls-cert", paramLabel = "FILE", description = "TLS: the server's certificate chain (PEM); " +
        "with --tls-key, every connection is TLS 1.3 or 1.2")
    Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "FILE", description = "TLS: the certificate's private key (PEM)")
    Path tlsKey;

    @Option(names = "--tls-self-signed", description = "TLS with a self-signed certificate, made on first start in " +
        "DATA/tls/ and kept; clients pin the fingerprint printed at start")
    boolean tlsSelfSigned;

    @Option(names = "--allow-plaintext", description = "allow plain TCP on an address other than loopback " +
        "(refused by default)")
    boolean allowPlaintext;

    @Option(names = "--port-file", description = "write the port listened on here once ready (for scripts and tests)")
    Path portFile;

    @Override
    public Integer call() throws Exception
    {
        checkOptions();
        final ExchangeContext ctx = new ExchangeContext()
            .dataDir(data).configFile(config).durability(durability).minFreeBytes(minFreeMb << 20)
            .bind(bind).port(port).heartbeatIntervalMs(heartbeatMs)
            .sharedLoop(GatewayConfiguration.sharedLoop(threads.name(), Runtime.getRuntime().availableProcessors())).spinMicros(spinMicros)
            .maxSessionsPerAccount(maxSessionsPerAccount).maxSessions(maxSessions).maxMarketDataSessions(maxMarketDataSessions)
            .loginFailureBurst(loginFailureBurst).loginFailuresPerSecond(loginFailuresPerSecond)
            .maxResendsPerAccount(maxResendsPerAccount).maxResends(maxResends)
            .allowPlaintext(allowPlaintext)
            .metricsPort(metricsPort == null ? -1 : metricsPort).metricsBind(metricsBind)
            .httpPort(httpPort == null ? -1 : httpPort).httpBind(httpBind);
        try
        {
            ctx.tls(serverTls());
        }
        catch (final IllegalArgumentException ex)
        {
            throw badOption(ex.getMessage());
        }
        if (clockScale != 1 || clockAnchor != null)
        {
            long wall = System.currentTimeMillis();
            long exchangeTime = wall;
            if (clockAnchor != null)
            {
                final String[] parts = clockAnchor.split(":");
                final String problem = "--clock-anchor " + clockAnchor + " is not WALL_MS:EXCHANGE_MS (two whole numbers)";
                if (parts.length != 2)
                {
                    throw badOption(problem);
                }
                try
                {
                    wall = Long.parseLong(parts[0]);
                    exchangeTime = Long.parseLong(parts[1]);
                }
                catch (final NumberFormatException ex)
                {
                    throw badOption(problem);
                }
            }
            ctx.clock(new ScaledEpochClock(wall, exchangeTime, clockScale));
        }
        final Exchange exchange;
        try
        {
            exchange = Exchange.start(ctx);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new CommandLine.ParameterException(new CommandLine(this), ex.getMessage());
        }
        final CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
        {
            System.err.println("gpux server: shutting down");
            exchange.close();
            stopped.countDown();
        }, "gpux-shutdown"));
        final Exchange.Key key = exchange.bootstrapKey();
        if (key != null)
        {
            System.out.println("Fresh exchange. Admin key (shown once, keep it safe):");
            System.out.println("  GPUX_KEY_ID=" + key.keyId());
            System.out.println("  GPUX_SECRET=" + key.secret());
            if (adminKeyFile != null)
            {
                writePrivate(adminKeyFile, key.keyId() + ":" + key.secret() + "\n");
            }
        }
        final ServerTls tls = ctx.tls();
        if (tls != null)
        {
            if (tls.madeNow())
            {
                System.out.println("gpux server: made a self-signed TLS certificate: " + tls.certificateFile().toAbsolutePath());
            }
            System.out.println("gpux server: TLS certificate fingerprint " + tls.fingerprint());
            System.out.println("  clients pin it with --tls-fingerprint " + tls.fingerprint());
        }
        if (portFile != null)
        {
            writePrivate(portFile, exchange.port() + "\n");
        }
        System.out.println("gpux server: listening on " + bind + ":" + exchange.port() + (tls != null ? " (TLS)" : "") +
            ", data in " + data.toAbsolutePath());
        if (exchange.metricsPort() >= 0)
        {
            System.out.println("gpux server: metrics on http://" + metricsBind + ":" + exchange.metricsPort() + "/metrics");
        }
        if (exchange.httpPort() >= 0)
        {
            System.out.println("gpux server: dashboard on http://" + httpBind + ":" + exchange.httpPort() + "/");
        }
        System.out.flush();
        stopped.await();
        return 0;
    }

    /** Settings out of range, named as the user wrote them, before anything is started. */
    private void checkOptions()
    {
        if (port < 0 || port > 65535)
        {
            throw badOption("--port " + port + " is out of range: a TCP port is 1 to 65535, or 0 for any free one");
        }
        if (metricsPort != null && (metricsPort < 0 || metricsPort > 65535))
        {
            throw badOption("--metrics-port " + metricsPort + " is out of range: a TCP port is 1 to 65535, or 0 for any free one");
        }
        if (httpPort != null && (httpPort < 0 || httpPort > 65535))
        {
            throw badOption("--http-port " + httpPort + " is out of range: a TCP port is 1 to 65535, or 0 for any free one");
        }
        if (heartbeatMs < 10)
        {
            throw badOption("--heartbeat-ms " + heartbeatMs + " is too small: at least 10");
        }
        if (spinMicros < 0)
        {
            throw badOption("--spin-us " + spinMicros + " is negative");
        }
        if (minFreeMb < 0 || minFreeMb > Long.MAX_VALUE >> 20)
        {
            throw badOption("--min-free-mb " + minFreeMb + " is out of range: 0 (no floor) or more megabytes");
        }
        if (clockScale < 1)
        {
            throw badOption("--clock-scale " + clockScale + " is out of range: at least 1");
        }
        if (config != null && !Files.isRegularFile(config))
        {
            throw badOption("--config " + config + (Files.exists(config) ? " is not a file" : " does not exist") +
                ": name a file of MARKET and CONFIG lines, or leave --config out for the built-in markets");
        }
    }

    private CommandLine.ParameterException badOption(final String message)
    {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    /** The TLS settings the options ask for, or null for plain TCP. */
    private ServerTls serverTls() throws IOException
    {
        if (tlsSelfSigned)
        {
            if (tlsCert != null || tlsKey != null)
            {
                throw new IllegalArgumentException("--tls-self-signed makes its own certificate: give it, or --tls-cert " +
                    "and --tls-key, not both");
            }
            return ServerTls.selfSigned(data, selfSignedNames(), Instant.now());
        }
        if (tlsCert == null && tlsKey == null)
        {
            return null;
        }
        if (tlsCert == null || tlsKey == null)
        {
            throw new IllegalArgumentException("TLS needs both --tls-cert FILE and --tls-key FILE");
        }
        return ServerTls.fromPem(tlsCert, tlsKey);
    }

    /** The names a self-signed certificate is made for: this machine, and the bind address if it is a particular one. */
    private List<String> selfSignedNames()
    {
        final List<String> names = new ArrayList<>(List.of("localhost", "127.0.0.1", "::1"));
        try
        {
            final InetAddress address = InetAddress.getByName(bind);
            if (!address.isAnyLocalAddress() && !address.isLoopbackAddress())
            {
                names.add(bind);
            }
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException("cannot listen on " + bind + ": unknown host");
        }
        return names;
    }

    private static void writePrivate(final Path file, final String text) throws java.io.IOException
    {
        final Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, text);
        try
        {
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
        }
        catch (final UnsupportedOperationException ignored)
        {
            // not POSIX: default permissions
        }
        Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    /** The command line {@link #main} runs: one line for a bad option or a failed start, no trace unless --verbose. */
    public static CommandLine commandLine(final ServerMain server)
    {
        return new CommandLine(server)
            .setCaseInsensitiveEnumValuesAllowed(true)
            .setParameterExceptionHandler((ex, args) ->
            {
                final CommandLine cmd = ex.getCommandLine();
                cmd.getErr().println("gpux server: " + ex.getMessage() + "; see gpux server --help");
                cmd.getErr().flush();
                return cmd.getCommandSpec().exitCodeOnInvalidInput();
            })
            .setExecutionExceptionHandler((ex, cmd, parsed) ->
            {
                Failures.print(cmd.getErr(), "gpux server", startFailure(ex, server.data), ex, server.verbose);
                return 1;
            });
    }

    /** Why the start failed and what to do, in one line. */
    static String startFailure(final Throwable ex, final Path data)
    {
        if (ex instanceof DataDirectoryLock.InUseException)
        {
            return ex.getMessage() + "; stop that server or use another --data";
        }
        if (ex instanceof BindException)
        {
            final String message = ex.getMessage() != null ? ex.getMessage() : "";
            final String option = message.startsWith("cannot serve metrics") ? "--metrics-port" :
                message.startsWith("cannot serve the dashboard") ? "--http-port" : "--port";
            return ex.getMessage() + "; stop what listens there or choose another " + option;
        }
        if (ex instanceof NotDirectoryException)
        {
            return "--data " + Failures.reason(ex) + ": name a directory (it is created if missing)";
        }
        if (ex instanceof IllegalArgumentException)
        {
            // a setting that came in through a -Dgpux.gateway.* property (the options are checked before)
            return "gateway setting " + ex.getMessage() + " (see the -Dgpux.gateway.* properties in GPUX_JAVA_OPTS)";
        }
        if (ex instanceof Recovery.RecoveryException)
        {
            return "cannot recover the exchange from " + data + ": " + ex.getMessage() + "; the journals are left as " +
                "they are: check them with ./gpux journal verify " + data + " or restore the directory from a backup";
        }
        return Failures.reason(ex);
    }

    public static void main(final String[] args)
    {
        final int status = commandLine(new ServerMain()).execute(args);
        if (status != 0)
        {
            System.exit(status);
        }
    }
}
