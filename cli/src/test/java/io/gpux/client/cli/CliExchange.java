package io.gpux.client.cli;

import io.gpux.gateway.Exchange;
import io.gpux.gateway.ExchangeContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The exchange in process that the command-line test classes of one test JVM share ({@link #shared()}): started by
 * the first command a test runs against it, closed and its directory removed when the JVM exits. One start per test
 * JVM, not one per class: each test opens accounts and markets of its own names, so that no test sees another's
 * orders, machines or leases.
 */
final class CliExchange
{
    private static CliExchange shared;

    private final Path dir;
    private final Exchange exchange;
    private final String adminKey;

    private CliExchange() throws Exception
    {
        dir = Files.createTempDirectory("gpux-cli-");
        // a generous session heartbeat: the gateway drops a connection that sends nothing for two intervals
        // before its Login, which a cold client on a busy 2-core machine can miss
        exchange = Exchange.start(new ExchangeContext().dataDir(dir.resolve("data")).port(0).heartbeatIntervalMs(5_000)
            .loginTimeoutMs(10_000).log(line -> { }));
        Runtime.getRuntime().addShutdownHook(new Thread(this::close, "cli-exchange-close"));
        final Exchange.Key key = exchange.bootstrapKey();
        adminKey = Files.writeString(dir.resolve("admin.key"), key.keyId() + ":" + key.secret() + "\n").toString();
        // machines registered by hand never heartbeat again: keep them online
        CliRuns.ok(CliRuns.raw(Map.of(), "admin", "config", "--heartbeat-timeout", "0", "--key-file", adminKey,
            "--port", Integer.toString(exchange.port())));
    }

    /** This JVM's exchange, started at the first call. */
    static synchronized CliExchange shared()
    {
        if (shared == null)
        {
            try
            {
                shared = new CliExchange();
            }
            catch (final Exception ex)
            {
                throw new IllegalStateException("the command-line tests' exchange did not start", ex);
            }
        }
        return shared;
    }

    int port()
    {
        return exchange.port();
    }

    /** The exchange's admin key file. */
    String adminKey()
    {
        return adminKey;
    }

    /** A directory of the tests' files (key files, scripts, job files), removed with the exchange. */
    Path dir()
    {
        return dir;
    }

    private void close()
    {
        exchange.close();
        try (Stream<Path> paths = Files.walk(dir))
        {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
