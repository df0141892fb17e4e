package io.gpux.client.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpux.client.GpuxClient;
import io.gpux.common.Money;
import io.gpux.gateway.Exchange;
import io.gpux.gateway.ExchangeContext;
import io.gpux.proto.v1.Configure;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.TimeInForce;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web dashboard in a real browser: a real exchange serving it, headless Chromium driven by
 * Playwright (node), and a trade placed through {@link GpuxClient} that must be on the page within a
 * second of the exchange answering the order that made it; then the renter signs in with its API key
 * and sees its own lease, after a wrong key is refused with its reason. Screenshots before and after
 * the trade, and signed in, are kept under {@code target/dashboard-screenshots/}.
 *
 * <p>It needs node, Chromium ({@code /usr/bin/chromium}, or {@code GPUX_CHROMIUM}) and playwright-core
 * ({@code .ci/node_modules}, as {@code .ci/run} installs it, or {@code GPUX_PLAYWRIGHT}); without them it
 * is skipped, saying which is missing.
 */
class DashboardBrowserTest
{
    private static final String MARKET = "H200-141G";
    private static final long PRICE = Money.parsePrice("3.1415");

    @TempDir
    Path dir;

    private Exchange exchange;
    private Process browser;
    private final List<AutoCloseable> opened = new ArrayList<>();

    @AfterEach
    void tearDown()
    {
        if (browser != null)
        {
            browser.destroyForcibly();
        }
        E2e.closeAllQuietly(opened, exchange);
    }

    @Test
    void aTradePlacedThroughTheClientIsOnThePageWithinASecondAndTheRenterSeesItsLease() throws Exception
    {
        final Path node = onPath("node");
        assumeTrue(node != null, "node is not installed (apt-get install nodejs)");
        final Path chromium = Path.of(System.getenv().getOrDefault("GPUX_CHROMIUM", "/usr/bin/chromium"));
        assumeTrue(Files.isExecutable(chromium), chromium + " is missing (apt-get install chromium, or set GPUX_CHROMIUM)");
        final Path playwright = playwright();
        assumeTrue(playwright != null, "playwright-core is missing: run .ci/run, or npm install playwright-core in .ci/, " +
            "or set GPUX_PLAYWRIGHT");

        exchange = Exchange.start(new ExchangeContext().dataDir(dir.resolve("data")).port(0).httpPort(0).log(line -> { }));
        assertTrue(exchange.httpPort() > 0, "the dashboard listens");
        final GpuxClient admin = E2e.connect(exchange.port(), new E2e.Key(exchange.bootstrapKey().keyId(),
            exchange.bootstrapKey().secret()), new Recorder("admin"));
        opened.add(admin);
        E2e.ok(admin, Envelope.newBuilder().setConfigure(Configure.newBuilder().setHeartbeatTimeoutMs(0)));
        final GpuxClient owner = E2e.connect(exchange.port(), E2e.account(admin, "owner", Role.OWNER, 0), new Recorder("owner"));
        opened.add(owner);
        final E2e.Key renterKey = E2e.account(admin, "renter", Role.RENTER, 10_000_000_000L);
        final GpuxClient renter = E2e.connect(exchange.port(), renterKey, new Recorder("renter"));
        opened.add(renter);
        final long machine = E2e.ok(owner, Envelope.newBuilder().setRegisterMachine(RegisterMachine.newBuilder().setName("m1")
            .setMarket(MARKET).setGpus(8))).getAssignedId();
        E2e.ok(owner, Envelope.newBuilder().setMachineHeartbeat(MachineHeartbeat.newBuilder().setMachineId(machine)));

        final Path shots = Path.of("target", "dashboard-screenshots").toAbsolutePath();
        Files.createDirectories(shots);
        final Path script = E2e.resource("dashboard-browser.js", dir);
        final ProcessBuilder pb = new ProcessBuilder(node.toString(), script.toString()).redirectErrorStream(true);
        pb.environment().put("PLAYWRIGHT", playwright.toString());
        pb.environment().put("CHROMIUM", chromium.toString());
        pb.environment().put("URL", "http://127.0.0.1:" + exchange.httpPort() + "/");
        pb.environment().put("MARKET", MARKET);
        pb.environment().put("SHOTS", shots.toString());
        pb.environment().put("RENTER_KEY", renterKey.id() + ":" + renterKey.secret());
        browser = pb.start();
        final BufferedReader out = new BufferedReader(new InputStreamReader(browser.getInputStream(), StandardCharsets.UTF_8));
        final StringBuilder said = new StringBuilder();
        assertEquals("READY", until(out, said, "READY"), "the page shows the market live: " + said);

        E2e.ok(owner, Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder().setOrderId(1).setMachineId(machine)
            .setGpus(2).setPrice(PRICE)));
        E2e.ok(renter, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder().setOrderId(1).setMarket(MARKET)
            .setGpus(2).setPrice(PRICE).setTif(TimeInForce.IOC)));
        final long traded = System.nanoTime();
        final Writer in = new java.io.OutputStreamWriter(browser.getOutputStream(), StandardCharsets.UTF_8);
        in.write("TRADED " + Money.formatPrice(PRICE) + "\n");
        in.flush();
        final String seen = until(out, said, "SEEN");
        final long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - traded);
        assertEquals("SEEN", seen, "the trade is on the page: " + said);
        assertTrue(ms < 1_000, "the trade took " + ms + " ms to reach the page");
        assertEquals("SHOT", until(out, said, "SHOT"), said::toString);

        // signed in: a wrong key is refused with its reason, the renter's key shows the renter's own lease
        final String refused = until(out, said, "REFUSED unknown key or wrong secret (give KEY_ID:SECRET, as in the key file)");
        assertEquals("REFUSED unknown key or wrong secret (give KEY_ID:SECRET, as in the key file)", refused, said::toString);
        assertEquals("ACCOUNT", until(out, said, "ACCOUNT"), said::toString);
        assertTrue(browser.waitFor(30, TimeUnit.SECONDS), "the browser script ends");
        assertEquals(0, browser.exitValue(), said::toString);
        assertTrue(Files.size(shots.resolve("dashboard-after-trade.png")) > 0, "a screenshot is kept");
    }

    /** Reads the script's lines until {@code marker} or a FAILED line (returned), or its end (null). */
    private static String until(final BufferedReader out, final StringBuilder said, final String marker) throws Exception
    {
        String line;
        while ((line = out.readLine()) != null)
        {
            said.append(line).append('\n');
            if (line.equals(marker) || line.startsWith("FAILED"))
            {
                return line;
            }
        }
        return null;
    }

    private static Path playwright()
    {
        final String given = System.getenv("GPUX_PLAYWRIGHT");
        if (given != null)
        {
            return Files.isDirectory(Path.of(given)) ? Path.of(given).toAbsolutePath() : null;
        }
        // the tests run in the module's directory; .ci/ is at the root of the repository
        for (final Path root : new Path[] {Path.of("..").toAbsolutePath().normalize(), Path.of("").toAbsolutePath()})
        {
            final Path dir = root.resolve(".ci/node_modules/playwright-core");
            if (Files.isRegularFile(dir.resolve("package.json")))
            {
                return dir;
            }
        }
        return null;
    }

    private static Path onPath(final String program)
    {
        for (final String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
        {
            final Path p = Path.of(d, program);
            if (!d.isEmpty() && Files.isExecutable(p))
            {
                return p;
            }
        }
        return null;
    }
}
