package io.gpux.client.cli;

import static io.gpux.client.cli.CliRuns.account;
import static io.gpux.client.cli.CliRuns.adminKey;
import static io.gpux.client.cli.CliRuns.cli;
import static io.gpux.client.cli.CliRuns.ok;
import static io.gpux.client.cli.CliRuns.raw;
import static io.gpux.client.cli.CliRuns.refused;
import static io.gpux.client.cli.CliRuns.registerMachine;
import static io.gpux.client.cli.CliRuns.usageError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.client.cli.CliRuns.Run;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** Bids, asks, quotes, cancels, replaces and releases through the commands, and the refusals that say the fix. */
@DisabledOnOs(OS.WINDOWS)
class GpuxCliOrdersTest
{
    private static final Pattern MONEY = Pattern.compile("[0-9]+\\.[0-9]{6}");

    @Test
    void tradesThroughTheCommands() throws Exception
    {
        final String owner = account("olga", "OWNER", null);
        final String renter = account("rita", "RENTER", "100");
        Run run = ok(cli("admin", "market", "create", "CLI-TEST", "--grace", "1s", "--fee-bps", "100", "--key-file", adminKey()));
        assertTrue(run.out().startsWith("OK admin market create market=CLI-TEST"), run.toString());
        final Map<String, Object> market = ok(cli("admin", "markets", "--json", "--key-file", adminKey())).json().stream()
            .filter(m -> "CLI-TEST".equals(m.get("symbol"))).findFirst().orElseThrow();
        assertEquals(1000L, market.get("grace_ms"));
        assertEquals(100L, market.get("fee_bps"));
        assertEquals("0.0001", market.get("tick"));
        assertEquals(0L, market.get("preempt_increment_bps"));
        assertEquals(false, market.get("fragment_first"));
        ok(cli("admin", "market", "create", "LEVERS-TEST", "--preempt-increment-bps", "500", "--fragment-first",
            "--key-file", adminKey()));
        final Map<String, Object> levers = ok(cli("admin", "markets", "--json", "--key-file", adminKey())).json().stream()
            .filter(m -> "LEVERS-TEST".equals(m.get("symbol"))).findFirst().orElseThrow();
        assertEquals(500L, levers.get("preempt_increment_bps"));
        assertEquals(true, levers.get("fragment_first"));
        assertTrue(ok(cli("admin", "markets", "--key-file", adminKey())).out().contains("H100-SXM-80G"));
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
    void aRenterReplacesItsBidAndReleasesItsLease() throws Exception
    {
        final String owner = account("rory", "OWNER", null);
        final String renter = account("rachel", "RENTER", "100");
        ok(cli("admin", "market", "create", "REPL-TEST", "--key-file", adminKey()));
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
        ok(cli("admin", "market", "create", "IOC-TEST", "--key-file", adminKey()));
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
        ok(cli("admin", "market", "create", "HINT-TEST", "--grace", "36s", "--max-gpus", "16", "--key-file", adminKey()));
        final Map<String, Object> market = ok(cli("admin", "markets", "--json", "--key-file", adminKey())).json().stream()
            .filter(m -> "HINT-TEST".equals(m.get("symbol"))).findFirst().orElseThrow();
        assertEquals(3_600_000L, market.get("prepay_ms"), "the default prepay period");

        // 2 GPUs x 1.0 x (1 h + 36 s) = 2.02
        Run run = refused("bid", "--market", "hint-test", "--gpus", "2", "--price", "1", "--key-file", renter);
        assertTrue(run.out().contains("REJECTED bid reason=INSUFFICIENT_FUNDS"), run.toString());
        assertTrue(run.out().contains(": needs 2.020000, available 0.000000 (the client's estimate of the hold: 2 GPUs x 1.0000"
            + " x 1.01 h of prepay and grace); deposit more"), run.toString());
        ok(cli("admin", "deposit", "paul", "1.5", "--key-file", adminKey()));
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
}
