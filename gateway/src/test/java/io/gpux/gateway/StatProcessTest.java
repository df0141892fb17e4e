package io.gpux.gateway;

import io.gpux.gateway.metrics.StatMain;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Role;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code gpux stat} end to end: a real server process with clients on it, read by {@code gpux stat} in
 * another process (and scraped on its metrics port, which agrees); after the server stops, stat shows
 * what its last run left; on a directory where no server ran, it fails in one line.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StatProcessTest
{
    private static final String MARKET = "A100-80G";
    private static final Pattern METRICS_URL = Pattern.compile("metrics on (http://127\\.0\\.0\\.1:\\d+/metrics)");
    private static final Pattern DASHBOARD_URL = Pattern.compile("dashboard on (http://127\\.0\\.0\\.1:\\d+/)");

    @TempDir
    Path dir;

    private Process server;

    @AfterEach
    void stopServer()
    {
        if (server != null)
        {
            server.destroyForcibly();
        }
    }

    @Test
    void statReadsARunningServersCountersAndWhatItsLastRunLeft() throws Exception
    {
        final Path data = dir.resolve("data");
        final Path portFile = dir.resolve("port");
        final Path keyFile = dir.resolve("admin.key");
        final Path serverOut = dir.resolve("server.out");
        server = new ProcessBuilder(ChildJvm.command(ServerMain.class, "--port", "0", "--data", data.toString(),
            "--port-file", portFile.toString(), "--admin-key-file", keyFile.toString(), "--metrics-port", "0",
            "--http-port", "0", "--heartbeat-ms", "60000"))
            .redirectErrorStream(true).redirectOutput(serverOut.toFile()).start();
        final int port = awaitPort(portFile, serverOut);
        final String[] admin = Files.readString(keyFile).trim().split(":");
        final Matcher url = METRICS_URL.matcher(Files.readString(serverOut));
        assertTrue(url.find(), Files.readString(serverOut));
        final Matcher dashboard = DASHBOARD_URL.matcher(Files.readString(serverOut));
        assertTrue(dashboard.find(), Files.readString(serverOut));

        try (RawConnection adminConn = new RawConnection(port))
        {
            assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, adminConn.login(Long.parseLong(admin[0]), admin[1]).getBodyCase());
            final TestExchange.Key key = TestExchange.account(adminConn, "renter", 1_000_000_000L, Role.RENTER);
            try (RawConnection renter = new RawConnection(port))
            {
                assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, renter.login(key.id(), key.secret()).getBodyCase());
                assertEquals(Reason.REASON_OK, TestExchange.response(renter, bid(1, 2, 4_000)).getReason());
                assertEquals(Reason.INSUFFICIENT_FUNDS, TestExchange.response(renter, bid(2, 1000, 900_000_000)).getReason());

                // gpux stat as a process of its own
                final Process stat = new ProcessBuilder(ChildJvm.command(StatMain.class, "--data", data.toString()))
                    .redirectErrorStream(true).start();
                final String printed = new String(stat.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(stat.waitFor(60, TimeUnit.SECONDS));
                assertEquals(0, stat.exitValue(), printed);
                assertTrue(printed.contains("server pid " + server.pid() + " running"), printed);
                assertEquals(2, value(printed, "gpux_sessions"), printed);
                assertEquals(1, value(printed, "gpux_engine_rejects{reason=INSUFFICIENT_FUNDS}"), printed);
                assertTrue(value(printed, "gpux_commands") >= 5, printed);
                assertTrue(printed.contains("gpux_egress_backlog_events"), printed);

                // the markets are read once a second: --filter shows the book once it is read
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                String market;
                while (!(market = stat("--data", data.toString(), "--filter", "market=" + MARKET))
                    .contains(" - gpux_market_best_bid{market=" + MARKET + "}") ||
                    value(market, "gpux_market_best_bid{market=" + MARKET + "}") != 4_000)
                {
                    assertTrue(System.nanoTime() < deadline, market);
                    Thread.sleep(100);
                }
                assertEquals(2, value(market, "gpux_market_bid_gpus{market=" + MARKET + "}"), market);
                assertTrue(!market.contains("gpux_sessions"), "--filter leaves the rest out");
                final String watched = stat("--data", data.toString(), "--watch", "1", "--count", "2", "--filter", "gpux_sessions");
                assertEquals(2, watched.lines().filter(l -> l.contains("server pid " + server.pid())).count(), watched);

                // the metrics endpoint serves the same counters
                final String scraped = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url.group(1))).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
                assertTrue(scraped.contains("gpux_sessions 2.0"), scraped);

                // and so does the dashboard the server prints
                final String state = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(dashboard.group(1) + "state"))
                    .build(), HttpResponse.BodyHandlers.ofString()).body();
                assertTrue(state.contains("\"sessions\":2"), state);
                assertTrue(scraped.contains("gpux_market_best_bid{market=\"" + MARKET + "\"} 4000.0"), scraped);
            }
        }

        server.destroy();
        assertTrue(server.waitFor(60, TimeUnit.SECONDS), "the server stops on SIGTERM");
        final String after = stat("--data", data.toString());
        assertTrue(after.contains("not running (the figures its last run left)"), after);
        assertEquals(1, value(after, "gpux_engine_rejects{reason=INSUFFICIENT_FUNDS}"), after);

        final StringWriter err = new StringWriter();
        final int status = StatMain.commandLine(new StatMain()).setErr(new PrintWriter(err)).setOut(new PrintWriter(new StringWriter()))
            .execute("--data", dir.resolve("nothing").toString());
        assertEquals(1, status);
        assertEquals(1, err.toString().lines().count(), err.toString());
        assertTrue(err.toString().startsWith("gpux stat: no counters in "), err.toString());
    }

    private static Envelope.Builder bid(final long orderId, final int gpus, final long price)
    {
        return Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder().setOrderId(orderId).setMarket(MARKET).setGpus(gpus)
            .setPrice(price));
    }

    /** gpux stat, in this JVM, reading the server's file; what it printed. */
    private static String stat(final String... args)
    {
        final StringWriter out = new StringWriter();
        final int status = StatMain.commandLine(new StatMain()).setOut(new PrintWriter(out)).execute(args);
        assertEquals(0, status, out::toString);
        return out.toString();
    }

    /** The value stat printed for the counter labelled {@code label}; fails if it printed none. */
    private static long value(final String printed, final String label)
    {
        for (final String line : printed.lines().toList())
        {
            final List<String> parts = List.of(line.split(" - ", 2));
            if (parts.size() == 2 && parts.get(1).equals(label))
            {
                final String number = parts.get(0).substring(parts.get(0).lastIndexOf(' ') + 1).replace(",", "");
                return Long.parseLong(number);
            }
        }
        throw new AssertionError("no " + label + " in:\n" + printed);
    }

    private int awaitPort(final Path portFile, final Path serverOut) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (!Files.exists(portFile) || !Files.readString(portFile).endsWith("\n"))
        {
            assertTrue(server.isAlive(), () -> "the server ended before listening: " + read(serverOut));
            assertTrue(System.nanoTime() < deadline, "the server did not listen in time");
            Thread.sleep(20);
        }
        return Integer.parseInt(Files.readString(portFile).trim());
    }

    private static String read(final Path file)
    {
        try
        {
            return Files.readString(file);
        }
        catch (final java.io.IOException ex)
        {
            return ex.toString();
        }
    }
}
