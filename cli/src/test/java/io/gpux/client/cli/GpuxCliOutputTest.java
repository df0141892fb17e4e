package io.gpux.client.cli;

import static io.gpux.client.cli.CliRuns.account;
import static io.gpux.client.cli.CliRuns.adminKey;
import static io.gpux.client.cli.CliRuns.cli;
import static io.gpux.client.cli.CliRuns.ok;
import static io.gpux.client.cli.CliRuns.refused;
import static io.gpux.client.cli.CliRuns.registerMachine;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.client.cli.CliRuns.Background;
import io.gpux.client.cli.CliRuns.Run;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** What the commands print: every --json line follows the conventions; watch and book --follow stream to their limit. */
@DisabledOnOs(OS.WINDOWS)
class GpuxCliOutputTest
{
    @Test
    void everyJsonLineFollowsTheConventions() throws Exception
    {
        final String owner = account("jo", "OWNER", null);
        final String renter = account("jules", "RENTER", "100");
        final String rival = account("jade", "RENTER", "100");
        final List<String> lines = new ArrayList<>();
        final java.util.function.Consumer<Run> keep = run -> lines.addAll(List.of(run.out().split("\n")));
        keep.accept(ok(cli("admin", "market", "create", "JSON-TEST", "--grace", "10m", "--json", "--key-file", adminKey())));
        keep.accept(ok(cli("admin", "deposit", "jules", "1", "--json", "--key-file", adminKey())));
        keep.accept(ok(cli("admin", "markets", "--json", "--key-file", adminKey())));
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
    void watchAndBookFollowStreamUntilTheirLimit() throws Exception
    {
        final String renter = account("wendy", "RENTER", "50");
        ok(cli("admin", "market", "create", "FOLLOW-TEST", "--key-file", adminKey()));
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
}
