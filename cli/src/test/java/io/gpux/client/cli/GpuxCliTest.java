package io.gpux.client.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.client.ClientContext;
import io.gpux.client.GpuxClient;
import io.gpux.gateway.Exchange;
import io.gpux.gateway.ExchangeContext;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Response;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/** The picocli commands run in process against a real exchange in process. */
@DisabledOnOs(OS.WINDOWS)
class GpuxCliTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Pattern MONEY = Pattern.compile("[0-9]+\\.[0-9]{6}");

    @TempDir
    static Path dir;
    static Exchange exchange;
    static String adminKey;

    /** What one run printed, and its exit status. */
    record Run(int status, String out, String err)
    {
        /** The --json lines, each checked against the rules every --json line follows (docs/cli.md). */
        List<Map<String, Object>> json()
        {
            final List<Map<String, Object>> lines = new ArrayList<>();
            for (final String line : out.split("\n"))
            {
                if (!line.isBlank())
                {
                    JsonRules.check(line);
                    lines.add(MiniJson.object(line));
                }
            }
            return lines;
        }

        Map<String, Object> last()
        {
            final List<Map<String, Object>> lines = json();
            return lines.get(lines.size() - 1);
        }

        @Override
        public String toString()
        {
            return "status " + status + "\n--- out\n" + out + "--- err\n" + err;
        }
    }

    @BeforeAll
    static void startExchange() throws Exception
    {
        // a generous session heartbeat: the gateway drops a connection that sends nothing for two intervals
        // before its Login, which a cold client on a busy 2-core machine can miss
        exchange = Exchange.start(new ExchangeContext().dataDir(dir.resolve("data")).port(0).heartbeatIntervalMs(5_000)
            .loginTimeoutMs(10_000).log(line -> { }));
        final Exchange.Key key = exchange.bootstrapKey();
        adminKey = Files.writeString(dir.resolve("admin.key"), key.keyId() + ":" + key.secret() + "\n").toString();
        // machines registered by hand here never heartbeat again: keep them online
        ok(cli("admin", "config", "--heartbeat-timeout", "0", "--key-file", adminKey));
    }

    @AfterAll
    static void stopExchange()
    {
        if (exchange != null)
        {
            exchange.close();
        }
    }

    // ------------------------------------------------------------------------------------------

    @Test
    void adminCreatesAccountsAndKeysThatWork() throws Exception
    {
        Run run = ok(cli("admin", "account", "create", "alice", "--roles", "renter", "--key-file", adminKey));
        assertTrue(run.out().startsWith("OK admin account create account=alice roles=RENTER account_id="), run.toString());

        final Path keyFile = dir.resolve("alice.key");
        run = ok(cli("admin", "key", "create", "alice", "--out", keyFile.toString(), "--key-file", adminKey));
        final String key = Files.readString(keyFile);
        assertTrue(key.matches("[0-9]+:[0-9a-f]{64}\n"), key);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(keyFile)));
        assertFalse(run.out().contains(key.substring(key.indexOf(':') + 1).trim()), "the secret is not printed");
        assertTrue(run.out().contains("key_id=" + key.substring(0, key.indexOf(':'))), run.toString());

        run = ok(cli("admin", "deposit", "alice", "1000.5", "--key-file", adminKey));
        assertTrue(run.out().contains("amount=1000.500000"), run.toString());
        run = ok(cli("leases", "--key-file", keyFile.toString()));
        assertTrue(run.out().startsWith("account alice  balance 1000.500000  available 1000.500000\n"), run.toString());
        assertTrue(run.out().contains("no open orders") && run.out().contains("no leases"), run.toString());

        // a key printed instead of written, used from the environment
        run = ok(cli("admin", "key", "create", "alice", "--json", "--key-file", adminKey));
        final Map<String, Object> created = run.last();
        assertEquals("result", created.get("type"));
        assertEquals(true, created.get("ok"));
        final String secret = (String)created.get("secret");
        assertTrue(secret.matches("[0-9a-f]{64}"), secret);
        final Map<String, String> env = Map.of("GPUX_KEY_ID", created.get("key_id").toString(), "GPUX_SECRET", secret);
        final Map<String, Object> account = ok(cli(env, "leases", "--json")).json().get(0);
        assertEquals("account", account.get("type"));
        assertEquals("alice", account.get("account"));
        assertEquals("1000.500000", account.get("balance"));

        ok(cli("admin", "key", "revoke", created.get("key_id").toString(), "--key-file", adminKey));
        run = cli(env, "leases");
        assertEquals(3, run.status(), run.toString());
        assertTrue(run.err().contains("AUTHENTICATION_FAILED"), run.toString());

        run = cli("admin", "deposit", "nobody", "5", "--key-file", adminKey);
        assertEquals(1, run.status(), run.toString());
        assertTrue(run.out().startsWith("REJECTED admin deposit reason=UNKNOWN_ACCOUNT"), run.toString());
        run = cli("admin", "deposit", "alice", "5", "--key-file", keyFile.toString());
        assertEquals(1, run.status(), run.toString());
        assertTrue(run.out().contains("reason=NOT_AUTHORIZED"), run.toString());
    }

    @Test
    void adminConfigSetsTheRestartWindow()
    {
        final Run run = ok(cli("admin", "config", "--restart-window", "2m", "--key-file", adminKey));
        assertTrue(run.out().startsWith("OK admin config restart_window_ms=120000"), run.toString());
        // the engine checks the range: a refusal proves the setting reached it
        final Run refused = cli("admin", "config", "--restart-window", "31d", "--key-file", adminKey);
        assertEquals(1, refused.status(), refused.toString());
        assertTrue(refused.out().startsWith("REJECTED admin config reason=INVALID_PARAMETER"), refused.toString());
        usageError("give --heartbeat-interval, --heartbeat-timeout and/or --restart-window", "admin", "config",
            "--key-file", adminKey);
    }

    @Test
    void tradesThroughTheCommands() throws Exception
    {
        final String owner = account("olga", "OWNER", null);
        final String renter = account("rita", "RENTER", "100");
        Run run = ok(cli("admin", "market", "create", "CLI-TEST", "--grace", "1s", "--fee-bps", "100", "--key-file", adminKey));
        assertTrue(run.out().startsWith("OK admin market create market=CLI-TEST"), run.toString());
        final Map<String, Object> market = ok(cli("admin", "markets", "--json", "--key-file", adminKey)).json().stream()
            .filter(m -> "CLI-TEST".equals(m.get("symbol"))).findFirst().orElseThrow();
        assertEquals(1000L, market.get("grace_ms"));
        assertEquals(100L, market.get("fee_bps"));
        assertEquals("0.0001", market.get("tick"));
        assertEquals(0L, market.get("preempt_increment_bps"));
        assertEquals(false, market.get("fragment_first"));
        ok(cli("admin", "market", "create", "LEVERS-TEST", "--preempt-increment-bps", "500", "--fragment-first",
            "--key-file", adminKey));
        final Map<String, Object> levers = ok(cli("admin", "markets", "--json", "--key-file", adminKey)).json().stream()
            .filter(m -> "LEVERS-TEST".equals(m.get("symbol"))).findFirst().orElseThrow();
        assertEquals(500L, levers.get("preempt_increment_bps"));
        assertEquals(true, levers.get("fragment_first"));
        assertTrue(ok(cli("admin", "markets", "--key-file", adminKey)).out().contains("H100-SXM-80G"));
        final long machine = registerMachine(owner, "m1", "CLI-TEST", 4);

        run = ok(cli("ask", "--machine", "m1", "--gpus", "4", "--price", "2", "--key-file", owner));
        assertTrue(Pattern.compile("(?m)^#[0-9]+  \\S+ \\S+  ACCEPTED +order=[0-9]+$").matcher(run.out()).find(), run.toString());
        assertTrue(run.out().contains("OK ask order_id="), run.toString());
        assertTrue(run.out().contains("machine_id=" + machine), run.toString());

        run = ok(cli("book", "--market", "CLI-TEST", "--key-file", renter));
        assertTrue(run.out().startsWith("CLI-TEST  (update "), run.toString());
        assertTrue(Pattern.compile("(?m)^SIDE   PRICE  GPUS\nask   2\\.0000     4$").matcher(run.out()).find(), run.toString());

        run = ok(cli("quote", "--market", "CLI-TEST", "--gpus", "2", "--price", "2.5", "--key-file", renter));
        assertTrue(run.out().contains("fills from open asks:"), run.toString());
        assertTrue(Pattern.compile("(?m)^ *" + machine + " +2 +2\\.0000$").matcher(run.out()).find(), run.toString());
        final Map<String, Object> quote = ok(cli("quote", "--market", "CLI-TEST", "--gpus", "2", "--price", "2.5", "--json",
            "--key-file", renter)).last();
        assertEquals("quote", quote.get("type"));
        assertEquals(2L, quote.get("filled_gpus"));
        assertEquals(0L, quote.get("resting_gpus"));
        assertTrue(MONEY.matcher((String)quote.get("hold")).matches(), quote.toString());
        assertEquals("2.0000", ((Map<?, ?>)((List<?>)quote.get("fills")).get(0)).get("price"));

        run = ok(cli("bid", "--market", "CLI-TEST", "--gpus", "2", "--price", "2.5", "--json", "--key-file", renter));
        final List<Map<String, Object>> lines = run.json();
        assertEquals(List.of("ACCEPTED", "FILL", "LEASE_STARTED"),
            lines.subList(0, 3).stream().map(l -> l.get("kind")).toList(), run.toString());
        assertEquals("2.0000", lines.get(1).get("price"), "the resting ask's price");
        assertEquals(2L, lines.get(1).get("gpus"));
        assertEquals(true, lines.get(2).get("renter"));
        final Map<String, Object> result = lines.get(3);
        assertEquals("result", result.get("type"));
        assertEquals("bid", result.get("command"));
        assertEquals(true, result.get("ok"));
        assertEquals(lines.get(0).get("order_id"), result.get("order_id"));
        assertEquals(lines.get(0).get("command_seq"), result.get("command_seq"));

        run = ok(cli("leases", "--key-file", renter));
        assertTrue(Pattern.compile("(?m)^ *[0-9]+  renter  CLI-TEST +" + machine + " +2  2\\.0000  ACTIVE ").matcher(run.out()).find(),
            run.toString());
        final List<Map<String, Object>> ownerView = ok(cli("leases", "--json", "--key-file", owner)).json();
        final Map<String, Object> ask = ownerView.stream().filter(l -> "order".equals(l.get("type"))).findFirst().orElseThrow();
        assertEquals("ASK", ask.get("side"));
        assertEquals(2L, ask.get("open_gpus"));
        final Map<String, Object> machineLine = ownerView.stream().filter(l -> "machine".equals(l.get("type"))).findFirst()
            .orElseThrow();
        assertEquals("m1", machineLine.get("name"));
        assertEquals(true, machineLine.get("online"));
        assertEquals(false, ownerView.stream().filter(l -> "lease".equals(l.get("type"))).findFirst().orElseThrow().get("renter"));

        ok(cli("bid", "--market", "CLI-TEST", "--gpus", "1", "--price", "1.5", "--order-id", "77", "--key-file", renter));
        final Map<String, Object> book = ok(cli("book", "--market", "CLI-TEST", "--json", "--key-file", owner)).last();
        assertEquals("1.5000", ((Map<?, ?>)((List<?>)book.get("bids")).get(0)).get("price"));
        assertEquals(2L, ((Map<?, ?>)((List<?>)book.get("asks")).get(0)).get("gpus"));
        run = ok(cli("cancel", "--order-id", "77", "--key-file", renter));
        assertTrue(Pattern.compile("CANCELLED +order=77 reason=USER remaining=1").matcher(run.out()).find(), run.toString());
        assertTrue(run.out().contains("OK cancel order_id=77"), run.toString());
        run = cli("cancel", "--order-id", "77", "--key-file", renter);
        assertEquals(1, run.status(), run.toString());
        assertTrue(run.out().contains("REJECTED cancel reason=UNKNOWN_ORDER order_id=77"), run.toString());

        ok(cli("bid", "--market", "CLI-TEST", "--gpus", "1", "--price", "1.5", "--order-id", "78", "--key-file", renter));
        run = ok(cli("cancel", "--all", "--market", "CLI-TEST", "--key-file", renter));
        assertTrue(run.out().contains("order=78 reason=MASS_CANCEL"), run.toString());

        run = cli("bid", "--market", "CLI-TEST", "--gpus", "4", "--price", "100", "--key-file", renter);
        assertEquals(1, run.status(), run.toString());
        assertTrue(run.out().contains("REJECTED bid reason=INSUFFICIENT_FUNDS"), run.toString());
        run = cli("quote", "--market", "CLI-TEST", "--gpus", "4", "--price", "100", "--key-file", renter);
        assertEquals(1, run.status(), run.toString());
        assertTrue(run.out().contains("would be REJECTED INSUFFICIENT_FUNDS"), run.toString());
        run = cli("book", "--market", "NO-SUCH-MARKET", "--key-file", renter);
        assertEquals(1, run.status(), run.toString());
        assertTrue(run.out().contains("reason=UNKNOWN_MARKET"), run.toString());

        // the owner reclaims: the renter's lease gets a notice, then ends after the market's 1 s grace
        final long askId = (Long)ask.get("order_id");
        run = ok(cli("cancel", "--order-id", Long.toString(askId), "--reclaim", "--key-file", owner));
        assertTrue(run.out().contains("reason=OWNER_RECLAIM"), run.toString());
        final List<Map<String, Object>> history = ok(cli("watch", "--from-seq", "1", "--max-events", "13", "--json",
            "--key-file", renter)).json().stream().filter(l -> "event".equals(l.get("type"))).toList();
        assertEquals(List.of("BALANCE", "ACCEPTED", "FILL", "LEASE_STARTED", "ACCEPTED", "CANCELLED", "REJECTED", "ACCEPTED",
            "CANCELLED", "REJECTED", "PREEMPT_NOTICE", "SETTLED", "LEASE_ENDED"),
            history.stream().map(l -> l.get("kind")).toList(), history.toString());
        for (int i = 0; i < history.size(); i++)
        {
            assertEquals(i + 1L, history.get(i).get("seq"), "numbered from 1 without gaps");
        }
        final Map<String, Object> notice = history.get(10);
        assertEquals("NOTICE_OWNER_RECLAIM", notice.get("reason"));
        assertEquals((Long)notice.get("time_ms") + 1000, notice.get("effective_ms"), "the market's grace");
        final Map<String, Object> ended = history.get(12);
        assertEquals("OWNER_RECLAIMED", ended.get("reason"));
        assertEquals(notice.get("effective_ms"), ended.get("time_ms"));
        assertTrue(MONEY.matcher((String)ended.get("cost")).matches(), ended.toString());
    }

    @Test
    void everyJsonLineFollowsTheConventions() throws Exception
    {
        final String owner = account("jo", "OWNER", null);
        final String renter = account("jules", "RENTER", "100");
        final String rival = account("jade", "RENTER", "100");
        final List<String> lines = new ArrayList<>();
        final java.util.function.Consumer<Run> keep = run -> lines.addAll(List.of(run.out().split("\n")));
        keep.accept(ok(cli("admin", "market", "create", "JSON-TEST", "--grace", "10m", "--json", "--key-file", adminKey)));
        keep.accept(ok(cli("admin", "deposit", "jules", "1", "--json", "--key-file", adminKey)));
        keep.accept(ok(cli("admin", "markets", "--json", "--key-file", adminKey)));
        final long machine = registerMachine(owner, "j1", "JSON-TEST", 4);
        keep.accept(ok(cli("ask", "--machine", "j1", "--gpus", "4", "--price", "2", "--json", "--key-file", owner)));
        keep.accept(ok(cli("quote", "--market", "JSON-TEST", "--gpus", "2", "--price", "2.5", "--duration", "1h", "--json",
            "--key-file", renter)));
        final Run bid = ok(cli("bid", "--market", "JSON-TEST", "--gpus", "2", "--price", "2.5", "--json", "--key-file", renter));
        keep.accept(bid);
        final long lease = (Long)bid.json().stream().filter(l -> "LEASE_STARTED".equals(l.get("kind"))).findFirst()
            .orElseThrow().get("lease_id");
        keep.accept(ok(cli("bid", "--market", "JSON-TEST", "--gpus", "1", "--price", "1.5", "--order-id", "901", "--json",
            "--key-file", renter)));
        keep.accept(ok(cli("replace", "901", "--price", "1.75", "--json", "--key-file", renter)));
        keep.accept(ok(cli("cancel", "--order-id", "901", "--json", "--key-file", renter)));
        keep.accept(ok(cli("offers", "--market", "JSON-TEST", "--json", "--key-file", renter)));
        // a rival outbids the running lease: a fill that preempts it
        keep.accept(ok(cli("quote", "--market", "JSON-TEST", "--gpus", "4", "--price", "3", "--json", "--key-file", rival)));
        keep.accept(ok(cli("bid", "--market", "JSON-TEST", "--gpus", "4", "--price", "3", "--json", "--key-file", rival)));
        keep.accept(ok(cli("book", "--market", "JSON-TEST", "--json", "--key-file", renter)));
        keep.accept(ok(cli("markets", "--json", "--key-file", renter)));
        keep.accept(ok(cli("history", "--market", "JSON-TEST", "--interval", "1m", "--json", "--key-file", renter)));
        keep.accept(ok(cli("leases", "--json", "--key-file", renter)));
        keep.accept(ok(cli("leases", "--json", "--key-file", owner)));
        keep.accept(ok(cli("release", Long.toString(lease), "--json", "--key-file", renter)));
        keep.accept(refused("release", Long.toString(lease), "--json", "--key-file", renter));
        keep.accept(ok(cli("statement", "--json", "--key-file", renter)));
        keep.accept(ok(cli("watch", "--from-seq", "1", "--max-events", "5", "--json", "--key-file", rival)));

        final List<String> types = new ArrayList<>();
        final List<String> kinds = new ArrayList<>();
        for (final String line : lines)
        {
            final com.fasterxml.jackson.databind.JsonNode node = JsonRules.check(line);
            types.add(node.get("type").asText());
            kinds.add(node.path("kind").asText());
        }
        assertTrue(types.containsAll(List.of("result", "event", "market", "quote", "book", "offers", "offer", "candle",
            "account", "order", "lease", "machine", "statement", "statement_line")), types.toString());
        assertTrue(kinds.containsAll(List.of("ACCEPTED", "FILL", "LEASE_STARTED", "CANCELLED", "BALANCE",
            "LEASE_ENDED")), kinds.toString());
        final List<Map<String, Object>> fills = lines.stream().map(MiniJson::object).filter(l -> "FILL".equals(l.get("kind")))
            .toList();
        assertTrue(fills.stream().anyMatch(f -> !f.containsKey("preempts_lease_id")), "a fill that preempts nothing: " + fills);
        assertTrue(fills.stream().anyMatch(f -> Long.valueOf(lease).equals(f.get("preempts_lease_id"))),
            "the rival's fill names the lease it preempts: " + fills);
        assertEquals(machine, MiniJson.object(lines.stream().filter(l -> l.contains("\"type\":\"offer\"")).findFirst()
            .orElseThrow()).get("machine_id"));
    }

    @Test
    void aRenterReplacesItsBidAndReleasesItsLease() throws Exception
    {
        final String owner = account("rory", "OWNER", null);
        final String renter = account("rachel", "RENTER", "100");
        ok(cli("admin", "market", "create", "REPL-TEST", "--key-file", adminKey));
        final long machine = registerMachine(owner, "r1", "REPL-TEST", 4);
        ok(cli("ask", "--machine", "r1", "--gpus", "4", "--price", "2", "--key-file", owner));
        ok(cli("bid", "--market", "repl-test", "--gpus", "1", "--price", "1.5", "--order-id", "501", "--key-file", renter));

        Run run = ok(cli("replace", "501", "--price", "1.75", "--key-file", renter));
        assertTrue(run.out().contains("OK replace order_id=501 price=1.7500"), run.toString());
        Map<String, Object> result = ok(cli("replace", "501", "--gpus", "2", "--json", "--key-file", renter)).last();
        assertEquals("replace", result.get("command"));
        assertEquals(true, result.get("ok"));
        assertEquals(2L, result.get("gpus"));
        final Map<String, Object> order = ok(cli("leases", "--json", "--key-file", renter)).json().stream()
            .filter(l -> "order".equals(l.get("type"))).findFirst().orElseThrow();
        assertEquals("1.7500", order.get("price"));
        assertEquals(2L, order.get("open_gpus"));

        // a new price that crosses the ask fills at once
        final List<Map<String, Object>> filled = ok(cli("replace", "501", "--price", "2", "--json", "--key-file", renter)).json();
        assertEquals(List.of("ACCEPTED", "FILL", "LEASE_STARTED"), filled.subList(0, 3).stream().map(l -> l.get("kind")).toList(),
            filled.toString());
        final long lease = (Long)filled.get(2).get("lease_id");
        assertEquals(machine, filled.get(2).get("machine_id"));
        assertEquals(2L, filled.get(2).get("gpus"));

        run = ok(cli("release", Long.toString(lease), "--key-file", renter));
        assertTrue(Pattern.compile("LEASE_ENDED +lease=" + lease + " reason=RELEASED").matcher(run.out()).find(), run.toString());
        assertTrue(run.out().contains("OK release lease_id=" + lease), run.toString());
        run = refused("release", Long.toString(lease), "--key-file", renter);
        assertTrue(run.out().contains("REJECTED release reason=UNKNOWN_LEASE lease_id=" + lease), run.toString());
        assertTrue(run.out().endsWith(": no running lease " + lease + " rented by this account: see the leases with: gpux leases\n"),
            run.toString());
        result = cli("release", Long.toString(lease), "--json", "--key-file", renter).last();
        assertEquals("UNKNOWN_LEASE", result.get("reason"));
        assertTrue(((String)result.get("hint")).startsWith("no running lease "), result.toString());

        run = refused("replace", "501", "--price", "1", "--key-file", renter);
        assertTrue(run.out().contains("REJECTED replace reason=UNKNOWN_ORDER order_id=501"), run.toString());
        assertTrue(run.out().contains(": no open order 501 in this account: see the open orders with: gpux leases"), run.toString());
        usageError("give --price and/or --gpus", "replace", "501", "--key-file", renter);
        usageError("Missing required parameter: 'LEASE'", "release", "--key-file", renter);
    }

    @Test
    void anIocOrFokBidThatFillsNothingExitsWithStatus4() throws Exception
    {
        final String renter = account("ivy", "RENTER", "100");
        ok(cli("admin", "market", "create", "IOC-TEST", "--key-file", adminKey));
        for (final String tif : List.of("IOC", "FOK"))
        {
            final Run run = cli("bid", "--market", "IOC-TEST", "--gpus", "2", "--price", "1", "--tif", tif, "--key-file", renter);
            assertEquals(4, run.status(), run.toString());
            assertTrue(run.out().contains("reason=CANCEL_" + tif + " remaining=2"), run.toString());
            assertTrue(run.out().contains("OK bid order_id="), run.toString());
            assertTrue(Pattern.compile("^gpux bid: nothing filled: the " + tif + " bid [0-9]+ for 2 GPUs at 1\\.0000 found no ")
                .matcher(run.err()).find(), run.toString());
            assertTrue(run.err().endsWith("and is cancelled; see the offers with: gpux book --market IOC-TEST\n"), run.toString());
            assertEquals(1, run.err().split("\n").length, "one line: " + run);
        }
        final Run json = cli("bid", "--market", "IOC-TEST", "--gpus", "1", "--price", "1", "--tif", "IOC", "--json",
            "--key-file", renter);
        assertEquals(4, json.status(), json.toString());
        assertEquals("CANCEL_IOC", json.json().get(1).get("reason"), json.toString());
        assertTrue(json.err().contains("nothing filled"), json.toString());
        assertTrue(ok(raw(Map.of(), "bid", "--help")).out().contains("4 an IOC or FOK bid that filled nothing"));
    }

    @Test
    void refusalsSayTheNumbersAndTheFix() throws Exception
    {
        final String owner = account("nina", "OWNER", null);
        final String renter = account("paul", "RENTER", null);
        ok(cli("admin", "market", "create", "HINT-TEST", "--grace", "36s", "--max-gpus", "16", "--key-file", adminKey));
        final Map<String, Object> market = ok(cli("admin", "markets", "--json", "--key-file", adminKey)).json().stream()
            .filter(m -> "HINT-TEST".equals(m.get("symbol"))).findFirst().orElseThrow();
        assertEquals(3_600_000L, market.get("prepay_ms"), "the default prepay period");

        // 2 GPUs x 1.0 x (1 h + 36 s) = 2.02
        Run run = refused("bid", "--market", "hint-test", "--gpus", "2", "--price", "1", "--key-file", renter);
        assertTrue(run.out().contains("REJECTED bid reason=INSUFFICIENT_FUNDS"), run.toString());
        assertTrue(run.out().contains(": needs 2.020000, available 0.000000 (the client's estimate of the hold: 2 GPUs x 1.0000"
            + " x 1.01 h of prepay and grace); deposit more"), run.toString());
        ok(cli("admin", "deposit", "paul", "1.5", "--key-file", adminKey));
        Map<String, Object> result = cli("bid", "--market", "HINT-TEST", "--gpus", "2", "--price", "1", "--json",
            "--key-file", renter).last();
        assertEquals("INSUFFICIENT_FUNDS", result.get("reason"));
        assertTrue(((String)result.get("hint")).startsWith("needs 2.020000, available 1.500000 "), result.toString());
        run = refused("quote", "--market", "HINT-TEST", "--gpus", "2", "--price", "1", "--key-file", renter);
        assertTrue(run.out().contains("would be REJECTED INSUFFICIENT_FUNDS: needs 2.020000, available 1.500000"), run.toString());

        run = refused("bid", "--market", "HINT-TEST", "--gpus", "17", "--price", "0.01", "--key-file", renter);
        assertTrue(run.out().contains("reason=INVALID_QUANTITY"), run.toString());
        assertTrue(run.out().contains(": at most 16 GPUs per order in HINT-TEST, asked 17: split it into several orders"),
            run.toString());

        run = refused("bid", "--market", "HINT-TEST", "--gpus", "1", "--price", "1", "--key-file", owner);
        assertTrue(run.out().contains("reason=NOT_AUTHORIZED"), run.toString());
        assertTrue(run.out().contains(": needs the RENTER role: use the key of a renter account"), run.toString());

        run = refused("bid", "--market", "HINT-TST", "--gpus", "1", "--price", "1", "--key-file", renter);
        assertTrue(run.out().contains("REJECTED bid reason=UNKNOWN_MARKET"), run.toString());
        assertTrue(Pattern.compile(": unknown market \"HINT-TST\"; did you mean HINT-TEST\\?; markets: .*H100-SXM-80G.*\n$")
            .matcher(run.out()).find(), run.toString());
        run = refused("book", "--market", "hint-tset", "--key-file", renter);
        assertTrue(run.out().contains("did you mean HINT-TEST?"), run.toString());
        assertTrue(ok(cli("book", "--market", "hint-test", "--key-file", renter)).out().startsWith("HINT-TEST  (update "));

        // replacing a bid to a size the funds do not cover: the extra over the current hold
        ok(cli("bid", "--market", "HINT-TEST", "--gpus", "1", "--price", "1", "--order-id", "601", "--key-file", renter));
        run = refused("replace", "601", "--gpus", "2", "--key-file", renter);
        assertTrue(run.out().contains("REJECTED replace reason=INSUFFICIENT_FUNDS order_id=601 gpus=2"), run.toString());
        assertTrue(run.out().contains(": needs 1.010000 more, available 0.490000 (the client's estimate: 2 GPUs x 1.0000 x "
            + "1.01 h of prepay and grace = 2.020000, less the 1.010000 the order holds)"), run.toString());
        run = refused("replace", "601", "--gpus", "17", "--key-file", renter);
        assertTrue(run.out().contains(": at most 16 GPUs per order in HINT-TEST, asked 17"), run.toString());
    }

    @Test
    void watchAndBookFollowStreamUntilTheirLimit() throws Exception
    {
        final String renter = account("wendy", "RENTER", "50");
        ok(cli("admin", "market", "create", "FOLLOW-TEST", "--key-file", adminKey));
        final Background book = new Background("book", "--market", "FOLLOW-TEST", "--follow", "--max-events", "1",
            "--json", "--key-file", renter);
        final Background watch = new Background("watch", "--max-events", "1", "--key-file", renter);
        book.awaitOut("\"type\":\"book\"");
        watch.awaitErr("watching account");
        ok(cli("bid", "--market", "FOLLOW-TEST", "--gpus", "3", "--price", "0.25", "--key-file", renter));

        final Run followed = ok(book.result());
        final List<Map<String, Object>> lines = followed.json();
        assertEquals("book", lines.get(0).get("type"), followed.toString());
        assertEquals(List.of(), lines.get(0).get("bids"));
        assertEquals("book_update", lines.get(1).get("type"));
        assertEquals((Long)lines.get(0).get("update_seq") + 1, lines.get(1).get("update_seq"));
        final Map<?, ?> level = (Map<?, ?>)((List<?>)lines.get(1).get("bids")).get(0);
        assertEquals("0.2500", level.get("price"));
        assertEquals(3L, level.get("gpus"));

        final Run watched = ok(watch.result());
        assertTrue(watched.out().startsWith("#2  "), watched.toString());
        assertTrue(watched.out().contains("ACCEPTED"), watched.toString());
        assertTrue(watched.err().startsWith("watching account wendy (last event #1)"), watched.toString());
    }

    @Test
    void agentCommandRunsTheOwnerAgent() throws Exception
    {
        final String owner = account("oscar", "OWNER", null);
        final String renter = account("ron", "RENTER", null);
        ok(cli("admin", "market", "create", "AGENT-TEST", "--key-file", adminKey));
        final String smi = fakeNvidiaSmi(dir);
        final Run run = ok(cli("agent", "--nvidia-smi", smi, "--market", "AGENT-TEST", "--name", "cli-node", "--interval",
            "100ms", "--reserve", "1.5", "--undercut", "--run-for", "1500ms", "--json", "--key-file", owner));
        final List<Object> events = run.json().stream().map(l -> l.get("event")).toList();
        assertEquals(List.of("started", "discovered", "registered", "online", "ask"), events.subList(0, 5), run.toString());
        assertEquals(List.of("stopping", "reclaimed", "stop_done", "stopped"), events.subList(events.size() - 4, events.size()),
            "--run-for ending stops gracefully: the ask is cancelled with reclaim, no lease is left: " + run);
        final Map<String, Object> ask = run.json().get(4);
        assertEquals("1.5000", ask.get("price"));
        assertEquals(1L, ask.get("gpus"));
        assertEquals(ask.get("order_id"), run.json().get(events.size() - 3).get("order_id"));
        final String help = ok(raw(Map.of(), "agent", "--help")).out();
        assertTrue(help.contains("--reclaim-file") && help.contains("--stop-margin")
            && help.contains("Stopping: Ctrl-C, SIGTERM"), help);

        final Run refused = cli("agent", "--nvidia-smi", smi, "--market", "AGENT-TEST", "--reserve", "1", "--run-for", "5s",
            "--key-file", renter);
        assertEquals(1, refused.status(), refused.toString());
        assertTrue(refused.err().contains("NOT_AUTHORIZED"), refused.toString());
    }

    @Test
    void agentWithoutAGpuExitsWithStatus5AndSaysWhatToDo() throws Exception
    {
        final String owner = account("nadia", "OWNER", null);
        // the discovery query's header and no GPU row
        final Path noRows = script("nvidia-smi-no-rows", "echo 'name, uuid, serial, pci.bus_id, driver_version, "
            + "memory.total [MiB], memory.used [MiB], memory.free [MiB], utilization.gpu [%], utilization.memory [%], "
            + "temperature.gpu, power.draw [W], power.limit [W], clocks.current.sm [MHz], clocks.max.sm [MHz], "
            + "ecc.errors.uncorrected.volatile.total, pstate, compute_cap'");
        // what nvidia-smi says where the driver finds no GPU
        final Path noDevices = script("nvidia-smi-no-devices", "echo 'No devices were found'; exit 6");
        final Path missing = dir.resolve("no-such-dir/nvidia-smi");
        // each case: the nvidia-smi, and what the line says of it
        for (final Map.Entry<Path, String> smi : Map.of(noRows, "no GPU lines after the header",
            noDevices, "exited with status 6: No devices were found", missing, "cannot run " + missing).entrySet())
        {
            final Run run = cli("agent", "--nvidia-smi", smi.getKey().toString(), "--name", "gpuless", "--reserve", "1",
                "--run-for", "5s", "--key-file", owner);
            assertEquals(5, run.status(), run.toString());
            assertEquals("", run.out(), "nothing starts: " + run);
            final String line = run.err().strip();
            assertFalse(line.contains("\n") || line.contains("Exception"), "one line, no stack trace: " + run);
            assertTrue(line.startsWith("gpux agent: no GPU found (") && line.contains(smi.getValue()), run.toString());
            assertTrue(line.endsWith("install the NVIDIA driver so that nvidia-smi lists the GPUs (or name it with "
                + "--nvidia-smi), or try the agent without a GPU with --recorded-gpus h200"), run.toString());
        }
        final Run machines = ok(cli("leases", "--json", "--key-file", owner));
        assertFalse(machines.out().contains("gpuless"), "no machine registered: " + machines);
    }

    @Test
    void agentRunsOnRecordedGpusWithoutNvidiaSmi() throws Exception
    {
        final String owner = account("oona", "OWNER", null);
        final Run run = ok(cli("agent", "--recorded-gpus", "h200", "--name", "recorded-node", "--interval", "100ms",
            "--reserve", "2", "--run-for", "1500ms", "--json", "--key-file", owner));
        final List<Object> events = run.json().stream().map(l -> l.get("event")).toList();
        assertEquals(List.of("started", "discovered", "registered", "online", "ask"), events.subList(0, 5), run.toString());
        assertEquals("NVIDIA H200", run.json().get(1).get("gpu_name"), run.toString());
        assertEquals("H200-141G", run.json().get(2).get("market"), "the market from the recorded GPU: " + run);
        assertFalse(run.json().stream().anyMatch(l -> "nvidia_smi_failed".equals(l.get("event"))), run.toString());

        usageError("no recording named 'a100'; known: h200", "agent", "--recorded-gpus", "a100", "--reserve", "1",
            "--key-file", owner);
        usageError("--recorded-gpus and --nvidia-smi exclude each other", "agent", "--recorded-gpus", "h200",
            "--nvidia-smi", "/bin/true", "--reserve", "1", "--key-file", owner);
    }

    @Test
    void badInputIsAUsageErrorWithoutAStackTrace() throws Exception
    {
        usageError("more than 4 decimal places", "bid", "--market", "M", "--gpus", "1", "--price", "2.55555", "--key-file", adminKey);
        usageError("'--gpus'", "bid", "--market", "M", "--gpus", "one", "--price", "2", "--key-file", adminKey);
        usageError("must not be negative", "bid", "--market", "M", "--gpus", "1", "--price", "-1", "--key-file", adminKey);
        usageError("--gpus must be at least 1", "bid", "--market", "M", "--gpus", "0", "--price", "1", "--key-file", adminKey);
        usageError("a duration is like", "bid", "--market", "M", "--gpus", "1", "--price", "1", "--max-duration", "2x",
            "--key-file", adminKey);
        usageError("a reliability is a decimal from 0 to 1", "bid", "--market", "M", "--gpus", "1", "--price", "1",
            "--min-reliability", "1.5", "--key-file", adminKey);
        usageError("time in force is GTC, IOC or FOK", "bid", "--market", "M", "--gpus", "1", "--price", "1", "--tif", "DAY",
            "--key-file", adminKey);
        usageError("Unknown option: '--bogus'", "bid", "--market", "M", "--gpus", "1", "--price", "1", "--bogus");
        usageError("Missing required options: '--gpus=N', '--price=PRICE'", "bid", "--market", "M");
        usageError("give either --order-id N or --all", "cancel", "--key-file", adminKey);
        usageError("a role is RENTER, OWNER, MARKET_MAKER or ADMIN", "admin", "account", "create", "x", "--roles", "BOSS");
        usageError("an amount must be positive", "admin", "deposit", "x", "0", "--key-file", adminKey);
        usageError("no credentials: give --key-file FILE", "leases");
        usageError("GPUX_KEY_ID is set but GPUX_SECRET is not", Map.of("GPUX_KEY_ID", "1"), "leases");
        usageError("the secret must be 64 hex digits", Map.of("GPUX_KEY_ID", "1", "GPUX_SECRET", "abc"), "leases");
        final Path badKey = Files.writeString(dir.resolve("bad.key"), "not a key\n");
        usageError("must hold <keyId>:<secret hex>", "leases", "--key-file", badKey.toString());
        usageError("does not exist", "leases", "--key-file", dir.resolve("missing.key").toString());

        Run run = raw(Map.of(), "admin");
        assertEquals(2, run.status(), run.toString());
        assertTrue(run.err().contains("a subcommand is missing"), run.toString());
        run = raw(Map.of(), "frobnicate");
        assertEquals(2, run.status(), run.toString());

        // a plain picocli CommandLine, as a test or another program would build it
        final StringWriter err = new StringWriter();
        assertEquals(2, new CommandLine(new GpuxCli(Map.of())).setErr(new PrintWriter(err)).execute("leases", "--bogus"));
        assertTrue(err.toString().contains("Unknown option: '--bogus'"), err.toString());
    }

    @Test
    void connectionAndLoginFailuresExitWith3() throws Exception
    {
        final int closedPort;
        try (ServerSocket socket = new ServerSocket(0))
        {
            closedPort = socket.getLocalPort();
        }
        Run run = raw(Map.of(), "leases", "--port", Integer.toString(closedPort), "--key-file", adminKey);
        assertEquals(3, run.status(), run.toString());
        assertTrue(run.err().contains("cannot reach the gateway at 127.0.0.1:" + closedPort + ": "), run.toString());
        noStackTrace(run);

        run = cli(Map.of("GPUX_KEY_ID", "1", "GPUX_SECRET", "00".repeat(32)), "leases");
        assertEquals(3, run.status(), run.toString());
        assertTrue(run.err().contains("login refused: AUTHENTICATION_FAILED"), run.toString());
        noStackTrace(run);
    }

    // ------------------------------------------------------------------------------------------

    /** Creates an account (comma-separated roles) with a key file and optionally money; returns the key file. */
    private static String account(final String name, final String roles, final String deposit) throws Exception
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

    /** Registers a machine and brings it online (what the owner agent does), with the owner's key file. */
    private static long registerMachine(final String keyFile, final String name, final String market, final int gpus)
        throws Exception
    {
        final String[] key = Files.readString(Path.of(keyFile)).trim().split(":");
        try (GpuxClient c = new GpuxClient(new ClientContext().port(exchange.port()).keyId(Long.parseLong(key[0]))
            .secretHex(key[1])))
        {
            c.connect();
            final Response r = c.call(Envelope.newBuilder().setRegisterMachine(RegisterMachine.newBuilder().setName(name)
                .setMarket(market).setGpus(gpus)), TIMEOUT);
            assertEquals(Reason.REASON_OK, r.getReason(), r.toString());
            assertEquals(Reason.REASON_OK, c.call(Envelope.newBuilder().setMachineHeartbeat(
                MachineHeartbeat.newBuilder().setMachineId(r.getAssignedId())), TIMEOUT).getReason());
            return r.getAssignedId();
        }
    }

    /**
     * Two owners' agents with the process runtime, started together, each stopping by itself at the end of its
     * {@code --run-for}: on one a renter launches a job on its lease and reads its status and log, on the other a
     * renter runs a job to the end and a failing job that gives up. The two renters work at once, within the agents'
     * {@code --run-for}, and share the wait for the agents' ends.
     */
    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void rentersLaunchAndRunJobsOnAgentsThatStopAtTheEndOfTheirRunFor() throws Exception
    {
        final String launchOwner = account("wanda", "OWNER", null);
        final String launchRenter = account("walt", "RENTER", "1000");
        ok(cli("admin", "market", "create", "WL-CLI", "--grace", "500ms", "--key-file", adminKey));
        final String runOwner = account("rowan", "OWNER", null);
        final String runRenter = account("rhea", "RENTER", "1000");
        ok(cli("admin", "market", "create", "RUN-CLI", "--grace", "500ms", "--key-file", adminKey));
        // each agent takes SIGINT and SIGTERM and puts back what it found, in whichever order the two end: the JVM's
        // own handlers go back after them
        final Map<Signal, SignalHandler> jvmSignals = new LinkedHashMap<>();
        for (final String name : new String[] {"INT", "TERM"})
        {
            final Signal signal = new Signal(name);
            final SignalHandler handler = Signal.handle(signal, SignalHandler.SIG_DFL);
            Signal.handle(signal, handler);
            jvmSignals.put(signal, handler);
        }
        final Background launchAgent = new Background("agent", "--nvidia-smi", fakeNvidiaSmi(dir), "--market", "WL-CLI",
            "--name", "wl-node", "--interval", "100ms", "--reserve", "1", "--runtime", "process", "--state-dir",
            dir.resolve("wanda-agent").toString(), "--run-for", "12s", "--key-file", launchOwner);
        final Background runAgent = new Background("agent", "--nvidia-smi", fakeNvidiaSmi(dir), "--market", "RUN-CLI",
            "--name", "run-node", "--interval", "100ms", "--reserve", "1", "--runtime", "process", "--state-dir",
            dir.resolve("rowan-agent").toString(), "--run-for", "12s", "--key-file", runOwner);

        final CompletableFuture<Void> launched = CompletableFuture.runAsync(() ->
        {
            try
            {
                aRenterLaunchesAJobOnItsLeaseAndReadsItsStatusAndLog(launchOwner, launchRenter);
            }
            catch (final Exception ex)
            {
                throw new AssertionError(ex);
            }
        });
        aRenterRunsAJobToTheEndAndAFailingJobGivesUp(runRenter);
        launched.get(1, TimeUnit.MINUTES);

        assertEquals(0, launchAgent.status.get(1, TimeUnit.MINUTES), () -> "the agent stops gracefully at the end of --run-for: "
            + launchAgent.out + launchAgent.err);
        assertEquals(0, runAgent.status.get(1, TimeUnit.MINUTES), () -> "the agent stops at the end of --run-for: "
            + runAgent.out + runAgent.err);
        jvmSignals.forEach(Signal::handle);
    }

    private static void aRenterLaunchesAJobOnItsLeaseAndReadsItsStatusAndLog(final String owner, final String renter)
        throws Exception
    {
        ok(cli("bid", "--market", "WL-CLI", "--gpus", "1", "--price", "1.0", "--key-file", renter));
        final long lease = (Long)poll("the lease", () -> cli("leases", "--json", "--key-file", renter).json().stream()
            .filter(l -> "lease".equals(l.get("type"))).map(l -> l.get("lease_id")).findFirst().orElse(null));

        final Path job = Files.writeString(dir.resolve("count.yaml"), """
            name: count
            resources: {market: WL-CLI, gpus: 1, maxPrice: 1.0}
            run: {runtime: process, command: 'echo "visible=$CUDA_VISIBLE_DEVICES"; echo "step=$STEP"; echo done'}
            env: {STEP: "7"}
            """);
        Run run = ok(cli("launch", "--lease", Long.toString(lease), job.toString(), "--key-file", renter));
        assertEquals("launched count (process, attempt 1) on lease " + lease + "\n", run.out(), run.toString());
        final Map<String, Object> exited = poll("the job's exit", () ->
        {
            final Map<String, Object> s = ok(cli("status", "--lease", Long.toString(lease), "--json", "--key-file", renter)).last();
            return "EXITED".equals(s.get("state")) ? s : null;
        });
        assertEquals(0L, exited.get("exit_code"), exited.toString());
        run = ok(cli("status", "--lease", Long.toString(lease), "--key-file", renter));
        assertTrue(run.out().startsWith("lease " + lease + ": EXITED with status 0 (since "), run.toString());

        run = ok(cli("logs", "--lease", Long.toString(lease), "--lines", "3", "--key-file", renter));
        assertEquals("visible=GPU-5f1d0c2e-0000-4000-8000-000000000001\nstep=7\ndone\n", run.out(), run.toString());
        assertEquals(List.of("step=7", "done"),
            ok(cli("logs", "--lease", Long.toString(lease), "--lines", "2", "--json", "--key-file", renter)).last().get("lines"));

        run = cli("launch", "--lease", Long.toString(lease), job.toString(), "--key-file", renter);
        assertEquals(1, run.status(), run.toString());
        assertEquals("gpux launch: refused: DUPLICATE_ID: lease " + lease + " already has a workload\n", run.err());
        run = cli("logs", "--lease", Long.toString(lease), "--key-file", owner);
        assertEquals(1, run.status(), run.toString());
        assertTrue(run.err().contains("refused: NOT_AUTHORIZED: lease " + lease + " is not rented by this account"), run.toString());
        run = cli("status", "--lease", "999999", "--key-file", renter);
        assertEquals("gpux status: refused: UNKNOWN_LEASE: lease 999999 is not live\n", run.err(), run.toString());
        final Path bad = Files.writeString(dir.resolve("bad.yaml"), Files.readString(job).replace("gpus: 1", "gpus: 0"));
        usageError("resources.gpus: must be 1 to 1024, got 0", "launch", "--lease", "1", bad.toString(), "--key-file", renter);
    }

    private static void aRenterRunsAJobToTheEndAndAFailingJobGivesUp(final String renter) throws Exception
    {
        final Path job = Files.writeString(dir.resolve("run.yaml"), """
            name: three
            resources: {market: RUN-CLI, gpus: 1, maxPrice: 1.5}
            run: {runtime: process, command: 'for i in 1 2 3; do echo "count $i of attempt $GPUX_ATTEMPT"; sleep 0.3; done'}
            """);

        Run run = ok(cli("run", job.toString(), "--log-interval", "100ms", "--key-file", renter));
        final String out = run.out();
        assertTrue(out.startsWith("running three: 1 GPU(s) of RUN-CLI up to 1.5000/GPU-h; Ctrl-C cancels\n"), out);
        final long lease = Long.parseLong(out.replaceAll("(?s).*attempt 1 launched on lease (\\d+)\n.*", "$1"));
        assertTrue(out.contains("attempt 1 on lease " + lease + ": RUNNING\n"), out);
        assertTrue(out.contains("| count 1 of attempt 1\n") || out.contains("| count 2 of attempt 1\n"), out);
        assertTrue(out.contains("attempt 1 on lease " + lease + ": EXITED 0\n"), out);
        assertTrue(out.contains("succeeded: the workload exited 0\n1 attempt(s), 0 failed, 0 interrupted; "), out);
        assertTrue(out.contains("\n  attempt 1 on lease " + lease + ": running "), out);
        assertTrue(out.contains("lease " + lease + " ended: RELEASED\n"), "released at once: " + out);

        final Path failing = Files.writeString(dir.resolve("fail.yaml"), """
            name: fails
            resources: {market: RUN-CLI, gpus: 1, maxPrice: 1.5}
            run: {runtime: process, command: 'echo broken; exit 3'}
            maxFailures: 1
            """);
        run = cli("run", failing.toString(), "--json", "--log-interval", "0", "--key-file", renter);
        assertEquals(1, run.status(), run.toString());
        final Map<String, Object> report = run.last();
        assertEquals("report", report.get("type"), run.toString());
        assertEquals("gave up", report.get("outcome"));
        assertEquals("2 attempts failed (maxFailures 1); the last exited 3", report.get("reason"));
        assertEquals(2L, report.get("failures"));
        assertEquals(2, ((List<?>)report.get("attempts")).size(), run.toString());
        assertTrue(run.json().stream().filter(l -> "launched".equals(l.get("type"))).map(l -> l.get("attempt")).toList()
            .equals(List.of(1L, 2L)), run.toString());

        usageError("resources.gpus: must be 1 to 1024, got 0", "run",
            Files.writeString(dir.resolve("bad-run.yaml"), Files.readString(job).replace("gpus: 1", "gpus: 0")).toString(),
            "--key-file", renter);
    }

    /** Polls until the supplier gives a value (not null), up to twice the timeout. */
    private static <T> T poll(final String what, final java.util.function.Supplier<T> value) throws InterruptedException
    {
        final long deadline = System.nanoTime() + 2 * TIMEOUT.toNanos();
        T v;
        while ((v = value.get()) == null)
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(50);
        }
        return v;
    }

    /** An executable shell script in {@code dir} that runs the command. */
    private static Path script(final String name, final String command) throws IOException
    {
        final Path script = dir.resolve(name);
        Files.writeString(script, "#!/bin/sh\n" + command + "\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return script;
    }

    /** An nvidia-smi stand-in in {@code dir} that prints the H200 fixtures. */
    static String fakeNvidiaSmi(final Path dir) throws IOException
    {
        Path fixtures = null;
        for (Path d = Path.of("").toAbsolutePath(); d != null && fixtures == null; d = d.getParent())
        {
            for (final Path candidate : new Path[] {d.resolve("shared/fixtures/gpu-h200"), d.resolve("../shared/fixtures/gpu-h200")})
            {
                if (fixtures == null && Files.isDirectory(candidate))
                {
                    fixtures = candidate.normalize();
                }
            }
        }
        assertTrue(fixtures != null, "shared/fixtures/gpu-h200 not found above the working directory");
        final Path script = dir.resolve("nvidia-smi");
        Files.writeString(script, "#!/bin/sh\ncase \"$1\" in\n"
            + "  --query-gpu=timestamp,*) head -n 2 '" + fixtures.resolve("telemetry-load.csv") + "' ;;\n"
            + "  *) cat '" + fixtures.resolve("query-idle.csv") + "' ;;\nesac\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return script.toString();
    }

    private static void usageError(final String message, final String... args)
    {
        usageError(message, Map.of(), args);
    }

    private static void usageError(final String message, final Map<String, String> env, final String... args)
    {
        final Run run = cli(env, args);
        assertEquals(2, run.status(), Arrays.toString(args) + ": " + run);
        assertTrue(run.err().contains(message), Arrays.toString(args) + ": " + run);
        noStackTrace(run);
    }

    private static void noStackTrace(final Run run)
    {
        assertFalse(run.err().contains("\tat ") || run.err().contains("Exception"), run.toString());
    }

    /** Runs a command the exchange refuses: exit status 1. */
    private static Run refused(final String... args)
    {
        final Run run = cli(args);
        assertEquals(1, run.status(), run.toString());
        return run;
    }

    private static Run ok(final Run run)
    {
        assertEquals(0, run.status(), run.toString());
        return run;
    }

    /** A streaming command run on a thread of its own, its output readable while it runs. */
    static final class Background
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final CompletableFuture<Integer> status = new CompletableFuture<>();

        Background(final String... args)
        {
            final String[] all = Arrays.copyOf(args, args.length + 2);
            all[args.length] = "--port";
            all[args.length + 1] = Integer.toString(exchange.port());
            final Thread t = new Thread(() -> status.complete(GpuxCli.commandLine(new GpuxCli(Map.of()))
                .setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true)).execute(all)), "cli-" + args[0]);
            t.setDaemon(true);
            t.start();
        }

        void awaitOut(final String text) throws Exception
        {
            await(out, text);
        }

        void awaitErr(final String text) throws Exception
        {
            await(err, text);
        }

        private void await(final StringWriter w, final String text) throws Exception
        {
            final long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (!w.toString().contains(text))
            {
                if (System.nanoTime() > deadline || status.isDone())
                {
                    throw new AssertionError("no '" + text + "' from the command: " + out + err);
                }
                Thread.sleep(10);
            }
        }

        Run result() throws Exception
        {
            return new Run(status.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS), out.toString(), err.toString());
        }
    }

    /** Runs {@code gpux ARGS --port <the exchange's port>} with no environment. */
    static Run cli(final String... args)
    {
        return cli(Map.of(), args);
    }

    static Run cli(final Map<String, String> env, final String... args)
    {
        final String[] all = Arrays.copyOf(args, args.length + 2);
        all[args.length] = "--port";
        all[args.length + 1] = Integer.toString(exchange.port());
        return raw(env, all);
    }

    static Run raw(final Map<String, String> env, final String... args)
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int status = GpuxCli.commandLine(new GpuxCli(env))
            .setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true)).execute(args);
        return new Run(status, out.toString(), err.toString());
    }
}
