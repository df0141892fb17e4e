package io.gpux.client.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.client.ClientContext;
import io.gpux.client.GpuxClient;
import io.gpux.client.RequestFailedException;
import io.gpux.client.cli.CliRuns.Run;
import io.gpux.gateway.Exchange;
import io.gpux.gateway.ExchangeContext;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.GpuTelemetry;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.Offers;
import io.gpux.proto.v1.OffersRequest;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Response;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpux offers}, {@code statement}, {@code leases} and {@code quote} run in process against a real
 * exchange whose clock the test moves: costs, prepaid time and telemetry ages come out exact.
 */
@DisabledOnOs(OS.WINDOWS)
class MarketSearchCliTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final long START = Instant.parse("2026-12-01T00:00:00Z").toEpochMilli();
    private static final long HOUR = 3_600_000;

    @TempDir
    static Path dir;
    static Exchange exchange;
    static String adminKey;
    static final AtomicLong now = new AtomicLong(START);

    @BeforeAll
    static void startExchange() throws Exception
    {
        exchange = Exchange.start(new ExchangeContext().dataDir(dir.resolve("data")).port(0).heartbeatIntervalMs(5_000)
            .loginTimeoutMs(10_000).clock(now::get).log(line -> { }));
        final Exchange.Key key = exchange.bootstrapKey();
        adminKey = Files.writeString(dir.resolve("admin.key"), key.keyId() + ":" + key.secret() + "\n").toString();
        ok(cli("admin", "config", "--heartbeat-timeout", "0", "--key-file", adminKey));
        ok(cli("admin", "market", "create", "OFF-TEST", "--fee-bps", "100", "--prepay", "1h", "--key-file", adminKey));
        ok(cli("admin", "market", "create", "OFF-OTHER", "--key-file", adminKey));
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
    void offersAreFilteredSortedAndAnonymous() throws Exception
    {
        final String olga = account("olga", "OWNER", null);
        final String otto = account("otto", "OWNER", null);
        final String rita = account("rita", "RENTER", "100");
        final long eu8 = registerMachine(olga, "eu8", "OFF-TEST", 8, "eu", "nvlink", 80, true);
        final long us8 = registerMachine(olga, "us8", "OFF-TEST", 8, "us", "pcie", 80, false);
        final long eu4 = registerMachine(otto, "eu4", "OFF-TEST", 4, "eu", "pcie", 40, false);
        registerMachine(otto, "other", "OFF-OTHER", 8, "eu", "", 0, false);
        ok(cli("ask", "--machine", "eu8", "--gpus", "4", "--price", "2", "--key-file", olga));
        ok(cli("ask", "--machine", "eu8", "--gpus", "2", "--price", "2.2", "--key-file", olga));
        ok(cli("ask", "--machine", "us8", "--gpus", "8", "--price", "1.5", "--key-file", olga));
        ok(cli("ask", "--machine", "eu4", "--gpus", "4", "--price", "1.8", "--key-file", otto));
        ok(cli("ask", "--machine", "other", "--gpus", "8", "--price", "1", "--key-file", otto));
        advance(90_000);

        Run run = ok(cli("offers", "--market", "off-test", "--min-gpus", "4", "--region", "eu", "--sort", "price",
            "--key-file", rita));
        assertTrue(run.out().startsWith("MACHINE  MODEL     FREE  GPUS   PRICE  RELIABILITY  REGION  INTERCONNECT  VRAM_GB  "
            + "TELEMETRY_AGE  OWNER_MACHINES\n"), run.toString());
        assertTrue(Pattern.compile("(?m)^ *" + eu4 + "  OFF-TEST +4 +4  1\\.8000 +0\\.950000  eu +pcie +40 +- +2$")
            .matcher(run.out()).find(), run.toString());
        assertTrue(Pattern.compile("(?m)^ *" + eu8 + "  OFF-TEST +6 +8  2\\.0000 +0\\.950000  eu +nvlink +80 +1m30s +2$")
            .matcher(run.out()).find(), run.toString());
        assertTrue(run.out().indexOf(" " + eu4 + "  ") < run.out().indexOf(" " + eu8 + "  "), "cheapest first: " + run);
        assertFalse(run.out().contains(" " + us8 + "  "), "us is filtered out: " + run);
        assertFalse(run.out().contains("olga") || run.out().contains("otto"), "no owner identity: " + run);

        final List<Map<String, Object>> json = lines(ok(cli("offers", "--market", "OFF-TEST", "--sort", "gpus", "--json",
            "--key-file", rita)), "offer");
        assertEquals(List.of(us8, eu8, eu4), json.stream().map(o -> o.get("machine_id")).toList(), json.toString());
        final Map<String, Object> first = json.get(0);
        assertEquals("1.5000", first.get("price"));
        assertEquals(8L, first.get("free_gpus"));
        assertEquals("us", first.get("region"));
        assertEquals("pcie", first.get("interconnect"));
        assertEquals(80L, first.get("vram_gb"));
        assertFalse(first.containsKey("telemetry_age_ms"), "no telemetry yet: " + first);
        assertEquals(90_000L, json.get(1).get("telemetry_age_ms"));
        assertEquals("OFF-TEST", first.get("market"));
        assertFalse(first.containsKey("owner") || first.containsKey("account"), first.toString());

        final Run all = ok(cli("offers", "--limit", "2", "--json", "--key-file", rita));
        assertEquals(2, lines(all, "offer").size(), all.toString());
        assertTrue((Long)lines(all, "offers").get(0).get("matched") >= 4, all.toString());

        run = ok(cli("offers", "--market", "OFF-TEST", "--min-reliability", "0.99", "--key-file", rita));
        assertEquals("no offers match in OFF-TEST\n", run.out(), "a new machine measures 0.95");
        run = ok(cli("offers", "--market", "OFF-TEST", "--interconnect", "nvlink", "--max-price", "1.9", "--key-file", rita));
        assertEquals("no offers match in OFF-TEST\n", run.out(), run.toString());
        run = cli("offers", "--market", "NOPE", "--key-file", rita);
        assertEquals(1, run.status(), run.toString());
        assertTrue(run.err().contains("unknown market \"NOPE\""), run.toString());
        run = cli("offers", "--limit", "0", "--key-file", rita);
        assertEquals(2, run.status(), run.toString());
        assertTrue(run.err().contains("--limit must be 1 to 1000"), run.toString());
    }

    @Test
    void quoteTotalsADurationAndWarnsWhenABidCanNeverFill() throws Exception
    {
        final String owner = account("quinn", "OWNER", null);
        final String renter = account("quentin", "RENTER", "1000");
        ok(cli("admin", "market", "create", "QUOTE-TEST", "--key-file", adminKey));
        registerMachine(owner, "q8", "QUOTE-TEST", 8, "eu", "", 0, false);
        registerMachine(owner, "q4", "QUOTE-TEST", 4, "us", "", 0, false);
        ok(cli("ask", "--machine", "q4", "--gpus", "2", "--price", "1.5", "--key-file", owner));

        Run run = ok(cli("quote", "--market", "QUOTE-TEST", "--gpus", "3", "--price", "2.5", "--duration", "2h",
            "--key-file", renter));
        // 2 GPUs from the ask at 1.5 and 1 at the bid's 2.5, for 2 hours: 6 + 5
        assertTrue(run.out().contains("total for 2h: 11.000000 (fills at their asks' prices, the rest at 2.5000)"),
            run.toString());
        assertFalse(run.out().contains("warning"), run.toString());

        run = ok(cli("quote", "--market", "QUOTE-TEST", "--gpus", "10", "--gang", "--price", "2.5", "--key-file", renter));
        assertTrue(run.out().contains("warning: a gang of 10 GPUs is larger than any machine of QUOTE-TEST (the largest has 8): "
            + "it can never fill whole"), run.toString());
        final Map<String, Object> q = ok(cli("quote", "--market", "QUOTE-TEST", "--gpus", "6", "--gang", "--region", "us",
            "--price", "2.5", "--duration", "30m", "--json", "--key-file", renter)).json().get(0);
        assertEquals("a gang of 6 GPUs is larger than any machine of QUOTE-TEST in region us (the largest has 4): "
            + "it can never fill whole", q.get("warning"));
        assertEquals(4L, q.get("largest_machine_gpus"));
        assertEquals(4L, q.get("market_gpus"));
        assertEquals("7.500000", q.get("total"), "a gang that cannot fill: all 6 GPUs at the bid's 2.5 for half an hour");
        assertEquals(1_800_000L, q.get("duration_ms"));
        run = ok(cli("quote", "--market", "QUOTE-TEST", "--gpus", "13", "--price", "2.5", "--key-file", renter));
        assertTrue(run.out().contains("warning: 13 GPUs are more than all the machines of QUOTE-TEST have together (12)"),
            run.toString());
    }

    @Test
    void leasesShowWhenTheyEndWhatTheyCostAndTheStatementSettlesThem() throws Exception
    {
        final String owner = account("lena", "OWNER", null);
        final String renter = account("leo", "RENTER", "1000");
        ok(cli("admin", "market", "create", "LEASE-TEST", "--fee-bps", "100", "--prepay", "1h", "--key-file", adminKey));
        final long machine = registerMachine(owner, "l8", "LEASE-TEST", 8, "eu", "", 0, true);
        ok(cli("ask", "--machine", "l8", "--gpus", "8", "--price", "1.5", "--key-file", owner));
        final long firstStart = now.get();
        final long first = leaseOf(ok(cli("bid", "--market", "LEASE-TEST", "--gpus", "2", "--price", "2", "--max-duration", "3h",
            "--json", "--key-file", renter)));
        advance(10 * 60_000);
        final long second = leaseOf(ok(cli("bid", "--market", "LEASE-TEST", "--gpus", "1", "--price", "2", "--json",
            "--key-file", renter)));
        advance(20 * 60_000);

        Run run = ok(cli("leases", "--key-file", renter));
        // 2 GPUs at 1.5 for 30 minutes: 1.5; 1 GPU for 20 minutes: 0.5
        assertTrue(Pattern.compile("(?m)^ *" + first + "  renter  LEASE-TEST +" + machine + " +2  1\\.5000  ACTIVE  "
            + Pattern.quote(Format.time(firstStart)) + "  " + Pattern.quote(Format.time(firstStart + 3 * HOUR))
            + "  expiry  1\\.500000 +30m$").matcher(run.out()).find(),
            run.toString());
        assertTrue(Pattern.compile("(?m)^ *" + second + "  renter  LEASE-TEST +" + machine + " +1  1\\.5000  ACTIVE  "
            + Pattern.quote(Format.time(firstStart + 10 * 60_000)) + "  - +- +0\\.500000 +40m$").matcher(run.out()).find(),
            run.toString());
        assertTrue(run.out().indexOf(first + "  renter") < run.out().indexOf(second + "  renter"), "oldest first: " + run);

        final List<Map<String, Object>> ownerView = ok(cli("leases", "--json", "--key-file", owner)).json();
        final Map<String, Object> lease = ownerView.stream().filter(l -> "lease".equals(l.get("type"))
            && Long.valueOf(first).equals(l.get("lease_id"))).findFirst().orElseThrow();
        assertEquals(firstStart + 3 * HOUR, lease.get("ends_ms"));
        assertEquals("expiry", lease.get("ends_by"));
        assertEquals("1.500000", lease.get("cost"));
        assertEquals("0.015000", lease.get("fee"));
        assertEquals(firstStart + HOUR, lease.get("prepaid_until_ms"));
        assertEquals(30 * 60_000L, lease.get("prepaid_left_ms"));
        final Map<String, Object> machineLine = ownerView.stream().filter(l -> "machine".equals(l.get("type"))).findFirst()
            .orElseThrow();
        assertEquals(30 * 60_000L, machineLine.get("telemetry_age_ms"));
        run = ok(cli("leases", "--key-file", owner));
        assertTrue(Pattern.compile("(?m)^ +" + machine + "  GPU-0 .* 30m$").matcher(run.out()).find(), run.toString());

        // the first period ends at 1h and settles; the release at 1h30m settles the rest
        advance(30 * 60_000);
        advance(30 * 60_000);
        ok(cli("release", Long.toString(first), "--key-file", renter));
        final long endedAt = now.get();

        final List<CSVRecord> rows = CSVFormat.RFC4180.builder().setHeader().setSkipHeaderRecord(true).get()
            .parse(new StringReader(ok(cli("statement", "--csv", "--key-file", renter)).out())).getRecords();
        final CSVRecord row = rows.stream().filter(r -> r.get("lease_id").equals(Long.toString(first))).findFirst().orElseThrow();
        assertEquals(List.of(StatementCommand.COLUMNS), rows.get(0).getParser().getHeaderNames());
        assertEquals("renter", row.get("role"));
        assertEquals("LEASE-TEST", row.get("market"));
        assertEquals(Instant.ofEpochMilli(firstStart).toString(), row.get("started"));
        assertEquals(Instant.ofEpochMilli(endedAt).toString(), row.get("ended"));
        assertEquals("RELEASED", row.get("end_reason"));
        assertEquals("2", row.get("settlements"));
        assertEquals(Long.toString(90 * 60_000L), row.get("billed_ms"));
        assertEquals("4.500000", row.get("charge"), "2 GPUs at 1.5 for 90 minutes");
        assertEquals("0.045000", row.get("fee"));
        assertEquals("-4.500000", row.get("net"));

        final Run ownerStatement = ok(cli("statement", "--json", "--key-file", owner));
        final Map<String, Object> earned = lines(ownerStatement, "statement_line").stream()
            .filter(l -> Long.valueOf(first).equals(l.get("lease_id"))).findFirst().orElseThrow();
        assertEquals("owner", earned.get("role"));
        assertEquals("4.500000", earned.get("charge"));
        assertEquals("4.455000", earned.get("net"), "the charge less the 1% fee");
        final Map<String, Object> total = lines(ownerStatement, "statement").get(0);
        assertEquals("lena", total.get("account"));
        assertEquals("0.000000", total.get("spend"));

        // only the settlement at 1h falls in [30m, 1h10m)
        final Run window = ok(cli("statement", "--from", Long.toString(firstStart + 30 * 60_000), "--to",
            Instant.ofEpochMilli(firstStart + 70 * 60_000).toString(), "--key-file", renter));
        assertTrue(Pattern.compile("(?m)^ *" + first + "  renter .* 1h +3\\.000000  0\\.030000  -3\\.000000$")
            .matcher(window.out()).find(), window.toString());
        assertTrue(window.out().contains("spend 3.000000  earnings 0.000000"), window.toString());
        run = ok(cli("statement", "--from", "2027-01-01", "--key-file", renter));
        assertTrue(run.out().endsWith("no settlements\n"), run.toString());
        run = cli("statement", "--from", "yesterday", "--key-file", renter);
        assertEquals(2, run.status(), run.toString());
        assertTrue(run.err().contains("a time is 2026-12-01"), run.toString());
        run = cli("statement", "--csv", "--json", "--key-file", renter);
        assertEquals(2, run.status(), run.toString());
    }

    @Test
    void theGatewayRefusesABadSearchWithTheReason() throws Exception
    {
        final String key = account("sam", "RENTER", null);
        try (GpuxClient c = client(key))
        {
            assertRefused(Reason.UNKNOWN_MARKET, "NO-SUCH", c, OffersRequest.newBuilder().setMarket("NO-SUCH"));
            assertRefused(Reason.INVALID_REQUEST, "limit is 1 to 1000, got 1001", c, OffersRequest.newBuilder().setLimit(1001));
            assertRefused(Reason.INVALID_REQUEST, "min_reliability_ppm is 0 to 1000000", c,
                OffersRequest.newBuilder().setMinReliabilityPpm(1_000_001));
            assertRefused(Reason.INVALID_REQUEST, "max_price must not be negative", c, OffersRequest.newBuilder().setMaxPrice(-1));
            assertRefused(Reason.INVALID_REQUEST, "unknown sort 7", c, OffersRequest.newBuilder().setSortValue(7));
            final Offers none = c.offers(OffersRequest.newBuilder().setMarket("OFF-TEST").setMinGpus(1_000).build(), TIMEOUT);
            assertEquals(0, none.getOffersCount());
            assertEquals(0, none.getMatched());
            assertTrue(none.getTimeMs() >= START && none.getTimeMs() <= now.get(), "the exchange's time of the copy");
        }
    }

    private static void assertRefused(final Reason reason, final String message, final GpuxClient c,
        final OffersRequest.Builder request) throws Exception
    {
        final RequestFailedException ex = assertThrows(RequestFailedException.class, () -> c.offers(request.build(), TIMEOUT));
        assertEquals(reason, ex.response().getReason(), ex.response().toString());
        assertTrue(ex.response().getMessage().contains(message), ex.response().toString());
    }

    // ------------------------------------------------------------------------------------------

    /** Moves the exchange's clock, then makes the engine see the new time (a command stamps it). */
    private static void advance(final long ms)
    {
        now.addAndGet(ms);
        ok(cli("admin", "config", "--heartbeat-timeout", "0", "--key-file", adminKey));
    }

    private static long leaseOf(final Run bid)
    {
        return (Long)bid.json().stream().filter(l -> "LEASE_STARTED".equals(l.get("kind"))).findFirst().orElseThrow()
            .get("lease_id");
    }

    private static String account(final String name, final String roles, final String deposit)
    {
        ok(cli("admin", "account", "create", name, "--roles", roles, "--key-file", adminKey));
        final Path keyFile = dir.resolve(name + ".key");
        ok(cli("admin", "key", "create", name, "--out", keyFile.toString(), "--key-file", adminKey));
        if (deposit != null)
        {
            ok(cli("admin", "deposit", name, deposit, "--key-file", adminKey));
        }
        return keyFile.toString();
    }

    /** Registers a machine and heartbeats it, with one GPU's telemetry if asked, as the owner agent does. */
    private static long registerMachine(final String keyFile, final String name, final String market, final int gpus,
        final String region, final String interconnect, final int vramGb, final boolean telemetry) throws Exception
    {
        try (GpuxClient c = client(keyFile))
        {
            final Response r = c.call(Envelope.newBuilder().setRegisterMachine(RegisterMachine.newBuilder().setName(name)
                .setMarket(market).setGpus(gpus).setRegion(region).setInterconnect(interconnect).setVramGb(vramGb)), TIMEOUT);
            assertEquals(Reason.REASON_OK, r.getReason(), r.toString());
            final MachineHeartbeat.Builder heartbeat = MachineHeartbeat.newBuilder().setMachineId(r.getAssignedId());
            if (telemetry)
            {
                heartbeat.addGpus(GpuTelemetry.newBuilder().setUuid("GPU-0").setUtilizationPct(50).setMemoryTotalMib(81_559));
            }
            assertEquals(Reason.REASON_OK, c.call(Envelope.newBuilder().setMachineHeartbeat(heartbeat), TIMEOUT).getReason());
            return r.getAssignedId();
        }
    }

    /** A client logged in with the key in this file. */
    private static GpuxClient client(final String keyFile) throws Exception
    {
        final String[] key = Files.readString(Path.of(keyFile)).trim().split(":");
        final GpuxClient c = new GpuxClient(new ClientContext().port(exchange.port()).keyId(Long.parseLong(key[0]))
            .secretHex(key[1]));
        c.connect();
        return c;
    }

    private static Run ok(final Run run)
    {
        assertEquals(0, run.status(), run.toString());
        return run;
    }

    private static Run cli(final String... args)
    {
        final String[] all = Arrays.copyOf(args, args.length + 2);
        all[args.length] = "--port";
        all[args.length + 1] = Integer.toString(exchange.port());
        return CliRuns.raw(Map.of(), all);
    }

    /** The JSON lines of one type. */
    private static List<Map<String, Object>> lines(final Run run, final String type)
    {
        return run.json().stream().filter(l -> type.equals(l.get("type"))).toList();
    }
}
