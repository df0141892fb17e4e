package io.gpux.client.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.gateway.Exchange;
import io.gpux.gateway.ExchangeContext;
import io.gpux.gateway.tls.Certificates;
import io.gpux.gateway.tls.ServerTls;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The commands and the owner agent against a real exchange in process that speaks only TLS (self-signed). */
@DisabledOnOs(OS.WINDOWS)
class TlsCliTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    @TempDir
    static Path dir;
    static Exchange exchange;
    static String fingerprint;
    static String adminKey;

    @BeforeAll
    static void startExchange() throws Exception
    {
        final ServerTls tls = ServerTls.selfSigned(dir.resolve("data"), List.of("localhost", "127.0.0.1"), Instant.now());
        fingerprint = tls.fingerprint();
        exchange = Exchange.start(new ExchangeContext().dataDir(dir.resolve("data")).port(0).tls(tls)
            .heartbeatIntervalMs(5_000).loginTimeoutMs(10_000).log(line -> { }));
        final Exchange.Key key = exchange.bootstrapKey();
        adminKey = Files.writeString(dir.resolve("admin.key"), key.keyId() + ":" + key.secret() + "\n").toString();
        ok(cli(Map.of(), "admin", "config", "--heartbeat-timeout", "0", "--key-file", adminKey, "--tls-fingerprint", fingerprint));
    }

    @AfterAll
    static void stopExchange()
    {
        if (exchange != null)
        {
            exchange.close();
        }
    }

    @Test
    void ownerAgentAndRenterTradeOverTls() throws Exception
    {
        final String owner = account("tls-owner", "OWNER", null);
        final String renter = account("tls-renter", "RENTER", "100");
        ok(pinned("admin", "market", "create", "TLS-TEST", "--key-file", adminKey));

        final Background agent = new Background(Map.of(), "agent", "--nvidia-smi", CliRuns.fakeNvidiaSmi(dir), "--market",
            "TLS-TEST", "--name", "tls-node", "--interval", "100ms", "--reserve", "1.5", "--run-for", "20s", "--json",
            "--key-file", owner, "--tls-fingerprint", fingerprint);
        agent.awaitOut("\"event\":\"ask\"");

        // the renter's pin from the environment, as its key
        final Map<String, String> env = Map.of("GPUX_TLS_FINGERPRINT", fingerprint);
        final List<Map<String, Object>> lines = ok(cli(env, "bid", "--market", "TLS-TEST", "--gpus", "1", "--price", "2",
            "--json", "--key-file", renter)).json();
        assertEquals(List.of("ACCEPTED", "FILL", "LEASE_STARTED"), lines.subList(0, 3).stream().map(l -> l.get("kind")).toList(),
            lines.toString());
        assertEquals("1.5000", lines.get(1).get("price"), "the agent's ask");
        agent.stop();
    }

    @Test
    void aGatewayNotVerifiedIsRefusedInOneLine() throws Exception
    {
        final String other = Certificates.fingerprint(Certificates.selfSigned("other", List.of("localhost"), false,
            Instant.now(), Duration.ofDays(1)).certificate());
        CliRuns.Run run = cli(Map.of(), "leases", "--key-file", adminKey, "--tls-fingerprint", other);
        assertEquals(3, run.status(), run.toString());
        assertEquals("gpux leases: cannot reach the gateway at 127.0.0.1:" + exchange.port() + ": TLS handshake failed: " +
            "server certificate fingerprint " + fingerprint + " does not match the pinned " + other + "\n", run.err());

        run = cli(Map.of("GPUX_TLS", "1"), "leases", "--key-file", adminKey);
        assertEquals(3, run.status(), run.toString());
        assertTrue(run.err().contains("TLS handshake failed: the gateway's certificate is not signed by a trusted CA"),
            run.toString());
        oneLine(run);

        run = cli(Map.of(), "leases", "--key-file", adminKey);
        assertEquals(3, run.status(), run.toString());
        assertTrue(run.err().endsWith("(if the gateway uses TLS, connect with TLS)\n"), run.toString());
        oneLine(run);

        // an option wins over the environment, as for the key
        ok(cli(Map.of("GPUX_TLS_FINGERPRINT", other), "leases", "--key-file", adminKey, "--tls-fingerprint", fingerprint));
    }

    @Test
    void badTlsSettingsAreUsageErrors() throws Exception
    {
        final Path ca = dir.resolve("ca.pem");
        Certificates.writeCertificate(Certificates.selfSigned("ca", List.of(), true, Instant.now(), Duration.ofDays(1))
            .certificate(), ca);
        usage("verify the gateway by --tls-ca or by --tls-fingerprint (GPUX_TLS_CA or GPUX_TLS_FINGERPRINT), not both",
            Map.of(), "leases", "--key-file", adminKey, "--tls-ca", ca.toString(), "--tls-fingerprint", fingerprint);
        usage("a TLS fingerprint is SHA256: and the 32 bytes of the certificate's SHA-256 in hex (AB:CD:...), not 'SHA256:12'",
            Map.of(), "leases", "--key-file", adminKey, "--tls-fingerprint", "SHA256:12");
        usage("TLS CA file " + dir.resolve("nope.pem") + " does not exist", Map.of("GPUX_TLS_CA", dir.resolve("nope.pem")
            .toString()), "leases", "--key-file", adminKey);
        usage("GPUX_TLS must be 1 or 0 (true or false), not 'yes'", Map.of("GPUX_TLS", "yes"), "leases", "--key-file", adminKey);
        assertTrue(cli(Map.of(), "leases", "--help").out().contains("--tls-fingerprint"));
    }

    private static void usage(final String message, final Map<String, String> env, final String... args)
    {
        final CliRuns.Run run = cli(env, args);
        assertEquals(2, run.status(), run.toString());
        assertEquals("gpux " + args[0] + ": " + message + "\n", run.err());
    }

    private static void oneLine(final CliRuns.Run run)
    {
        assertEquals(1, run.err().split("\n").length, run.toString());
        assertFalse(run.err().contains("\tat ") || run.err().contains("Exception"), run.toString());
    }

    private static String account(final String name, final String roles, final String deposit) throws Exception
    {
        ok(pinned("admin", "account", "create", name, "--roles", roles, "--key-file", adminKey));
        final Path keyFile = dir.resolve(name + ".key");
        ok(pinned("admin", "key", "create", name, "--out", keyFile.toString(), "--key-file", adminKey));
        if (deposit != null)
        {
            ok(pinned("admin", "deposit", name, deposit, "--key-file", adminKey));
        }
        return keyFile.toString();
    }

    private static CliRuns.Run pinned(final String... args)
    {
        final String[] all = Arrays.copyOf(args, args.length + 2);
        all[args.length] = "--tls-fingerprint";
        all[args.length + 1] = fingerprint;
        return cli(Map.of(), all);
    }

    private static CliRuns.Run ok(final CliRuns.Run run)
    {
        assertEquals(0, run.status(), run.toString());
        return run;
    }

    /** {@code gpux ARGS --port <the exchange's port>} with the environment {@code env}. */
    private static CliRuns.Run cli(final Map<String, String> env, final String... args)
    {
        return CliRuns.raw(env, withPort(args));
    }

    private static String[] withPort(final String... args)
    {
        final String[] all = Arrays.copyOf(args, args.length + 2);
        all[args.length] = "--port";
        all[args.length + 1] = Integer.toString(exchange.port());
        return all;
    }

    /** A long-running command on a thread of its own, its output readable while it runs. */
    private static final class Background
    {
        private final StringWriter out = new StringWriter();
        private final CompletableFuture<Integer> status = new CompletableFuture<>();
        private final Thread thread;

        Background(final Map<String, String> env, final String... args)
        {
            final CommandLine cli = GpuxCli.commandLine(new GpuxCli(env)).setOut(new PrintWriter(out, true))
                .setErr(new PrintWriter(out, true));
            thread = new Thread(() -> status.complete(cli.execute(withPort(args))), "cli-" + args[0]);
            thread.setDaemon(true);
            thread.start();
        }

        void awaitOut(final String text) throws Exception
        {
            final long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (!out.toString().contains(text))
            {
                if (System.nanoTime() > deadline || status.isDone())
                {
                    throw new AssertionError("no '" + text + "' from the command: " + out);
                }
                Thread.sleep(10);
            }
        }

        /** Interrupts the command (its Ctrl-C) and waits for it to end. */
        void stop() throws Exception
        {
            thread.interrupt();
            status.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
    }
}
