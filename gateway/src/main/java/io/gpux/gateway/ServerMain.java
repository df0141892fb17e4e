package io.gpux.gateway;

import io.gpux.engine.pipeline.Durability;
import io.gpux.engine.pipeline.ExchangePipeline;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** {@code ./gpux server}: the whole exchange on a port, until SIGTERM or SIGINT. */
@Command(name = "gpux server", mixinStandardHelpOptions = true,
    description = "Starts the exchange: recovers from the data directory, then serves the binary protocol.")
public final class ServerMain implements Callable<Integer>
{
    @Option(names = "--port", description = "TCP port (0: any free one; default ${DEFAULT-VALUE})")
    int port = GatewayConfiguration.PORT_DEFAULT;

    @Option(names = "--bind", description = "address to listen on (default ${DEFAULT-VALUE}: this machine only)")
    String bind = GatewayConfiguration.BIND_DEFAULT;

    @Option(names = "--data", description = "data directory: journals, snapshots, master key (default ${DEFAULT-VALUE})")
    Path data = Path.of("data");

    @Option(names = "--config", description = "markets and settings of a fresh exchange (MARKET/CONFIG scenario lines); " +
        "default: the built-in GPU markets")
    Path config;

    @Option(names = "--durability", description = "ASYNC (survives a killed process) or SYNC (msync per batch: " +
        "survives power loss); default ${DEFAULT-VALUE}")
    Durability durability = Durability.ASYNC;

    @Option(names = "--min-free-mb", description = "free space the data directory's file system must keep for the " +
        "journals: below it new commands are answered UNAVAILABLE (\"journal disk full\") until space is back " +
        "(default ${DEFAULT-VALUE})")
    long minFreeMb = ExchangePipeline.DEFAULT_MIN_FREE_BYTES >> 20;

    @Option(names = "--heartbeat-ms", description = "session heartbeat interval (default ${DEFAULT-VALUE})")
    int heartbeatMs = GatewayConfiguration.HEARTBEAT_DEFAULT;

    @Option(names = "--admin-key-file", description = "also write a fresh exchange's admin key here (key-id:secret, mode 0600)")
    Path adminKeyFile;

    @Option(names = "--clock-scale", description = "exchange time runs this many times faster than the wall clock " +
        "(demos compress a day into a minute; default ${DEFAULT-VALUE})")
    long clockScale = 1;

    @Option(names = "--clock-anchor", description = "WALL_MS:EXCHANGE_MS: the wall time at which exchange time was " +
        "EXCHANGE_MS (with --clock-scale; give the same anchor to a restarted server to continue its time line)")
    String clockAnchor;

    @Option(names = "--threads", description = "SHARED: the exchange core and the egress run on the gateway's event " +
        "loop, nothing crosses a thread (fastest on two cores); DEDICATED: each on a thread of its own " +
        "(default ${DEFAULT-VALUE})")
    Threads threads = "dedicated".equals(System.getProperty(GatewayConfiguration.THREADS_PROP,
        GatewayConfiguration.THREADS_DEFAULT)) ? Threads.DEDICATED : Threads.SHARED;

    @Option(names = "--spin-us", description = "with SHARED threads: how long the event loop keeps polling its sockets " +
        "without sleeping after its last work (default ${DEFAULT-VALUE})")
    long spinMicros = GatewayConfiguration.longProp(GatewayConfiguration.SPIN_PROP, GatewayConfiguration.SPIN_DEFAULT);

    enum Threads
    {
        SHARED, DEDICATED
    }

    @Option(names = "--port-file", description = "write the port listened on here once ready (for scripts and tests)")
    Path portFile;

    @Override
    public Integer call() throws Exception
    {
        final Exchange.Context ctx = new Exchange.Context()
            .dataDir(data).configFile(config).durability(durability).minFreeBytes(minFreeMb << 20).bind(bind).port(port).heartbeatIntervalMs(heartbeatMs)
            .sharedLoop(threads == Threads.SHARED).spinMicros(spinMicros);
        if (clockScale != 1 || clockAnchor != null)
        {
            long wall = System.currentTimeMillis();
            long exchangeTime = wall;
            if (clockAnchor != null)
            {
                final String[] parts = clockAnchor.split(":");
                if (parts.length != 2)
                {
                    throw new CommandLine.ParameterException(new CommandLine(this), "--clock-anchor is WALL_MS:EXCHANGE_MS");
                }
                wall = Long.parseLong(parts[0]);
                exchangeTime = Long.parseLong(parts[1]);
            }
            ctx.clock(new ScaledEpochClock(wall, exchangeTime, clockScale));
        }
        final Exchange exchange = Exchange.start(ctx);
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
        if (portFile != null)
        {
            writePrivate(portFile, exchange.port() + "\n");
        }
        System.out.println("gpux server: listening on " + bind + ":" + exchange.port() + ", data in " + data.toAbsolutePath());
        System.out.flush();
        stopped.await();
        return 0;
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

    public static void main(final String[] args)
    {
        final int status = new CommandLine(new ServerMain()).setCaseInsensitiveEnumValuesAllowed(true).execute(args);
        if (status != 0)
        {
            System.exit(status);
        }
    }
}
