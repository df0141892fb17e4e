package io.gpux.client.cli;

import static io.gpux.client.cli.CliRuns.adminKey;
import static io.gpux.client.cli.CliRuns.cli;
import static io.gpux.client.cli.CliRuns.dir;
import static io.gpux.client.cli.CliRuns.noStackTrace;
import static io.gpux.client.cli.CliRuns.ok;
import static io.gpux.client.cli.CliRuns.raw;
import static io.gpux.client.cli.CliRuns.usageError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.client.cli.CliRuns.Run;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import picocli.CommandLine;

/**
 * Accounts, keys and the exchange's settings through the admin commands, and the failures before any trade: bad input
 * is a usage error, an unreachable gateway or a refused login exits with 3, each without a stack trace.
 */
@DisabledOnOs(OS.WINDOWS)
class GpuxCliAccountsTest
{
    @Test
    void adminCreatesAccountsAndKeysThatWork() throws Exception
    {
        Run run = ok(cli("admin", "account", "create", "alice", "--roles", "renter", "--key-file", adminKey()));
        assertTrue(run.out().startsWith("OK admin account create account=alice roles=RENTER account_id="), run.toString());

        final Path keyFile = dir().resolve("alice.key");
        run = ok(cli("admin", "key", "create", "alice", "--out", keyFile.toString(), "--key-file", adminKey()));
        final String key = Files.readString(keyFile);
        assertTrue(key.matches("[0-9]+:[0-9a-f]{64}\n"), key);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(keyFile)));
        assertFalse(run.out().contains(key.substring(key.indexOf(':') + 1).trim()), "the secret is not printed");
        assertTrue(run.out().contains("key_id=" + key.substring(0, key.indexOf(':'))), run.toString());

        run = ok(cli("admin", "deposit", "alice", "1000.5", "--key-file", adminKey()));
        assertTrue(run.out().contains("amount=1000.500000"), run.toString());
        run = ok(cli("leases", "--key-file", keyFile.toString()));
        assertTrue(run.out().startsWith("account alice  balance 1000.500000  available 1000.500000\n"), run.toString());
        assertTrue(run.out().contains("no open orders") && run.out().contains("no leases"), run.toString());

        // a key printed instead of written, used from the environment
        run = ok(cli("admin", "key", "create", "alice", "--json", "--key-file", adminKey()));
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

        ok(cli("admin", "key", "revoke", created.get("key_id").toString(), "--key-file", adminKey()));
        run = cli(env, "leases");
        assertEquals(3, run.status(), run.toString());
        assertTrue(run.err().contains("AUTHENTICATION_FAILED"), run.toString());

        run = cli("admin", "deposit", "nobody", "5", "--key-file", adminKey());
        assertEquals(1, run.status(), run.toString());
        assertTrue(run.out().startsWith("REJECTED admin deposit reason=UNKNOWN_ACCOUNT"), run.toString());
        run = cli("admin", "deposit", "alice", "5", "--key-file", keyFile.toString());
        assertEquals(1, run.status(), run.toString());
        assertTrue(run.out().contains("reason=NOT_AUTHORIZED"), run.toString());
    }

    @Test
    void adminConfigSetsTheRestartWindow()
    {
        final Run run = ok(cli("admin", "config", "--restart-window", "2m", "--key-file", adminKey()));
        assertTrue(run.out().startsWith("OK admin config restart_window_ms=120000"), run.toString());
        // the engine checks the range: a refusal proves the setting reached it
        final Run refused = cli("admin", "config", "--restart-window", "31d", "--key-file", adminKey());
        assertEquals(1, refused.status(), refused.toString());
        assertTrue(refused.out().startsWith("REJECTED admin config reason=INVALID_PARAMETER"), refused.toString());
        usageError("give --heartbeat-interval, --heartbeat-timeout and/or --restart-window", "admin", "config",
            "--key-file", adminKey());
    }

    @Test
    void badInputIsAUsageErrorWithoutAStackTrace() throws Exception
    {
        usageError("more than 4 decimal places", "bid", "--market", "M", "--gpus", "1", "--price", "2.55555", "--key-file", adminKey());
        usageError("'--gpus'", "bid", "--market", "M", "--gpus", "one", "--price", "2", "--key-file", adminKey());
        usageError("must not be negative", "bid", "--market", "M", "--gpus", "1", "--price", "-1", "--key-file", adminKey());
        usageError("--gpus must be at least 1", "bid", "--market", "M", "--gpus", "0", "--price", "1", "--key-file", adminKey());
        usageError("a duration is like", "bid", "--market", "M", "--gpus", "1", "--price", "1", "--max-duration", "2x",
            "--key-file", adminKey());
        usageError("a reliability is a decimal from 0 to 1", "bid", "--market", "M", "--gpus", "1", "--price", "1",
            "--min-reliability", "1.5", "--key-file", adminKey());
        usageError("time in force is GTC, IOC or FOK", "bid", "--market", "M", "--gpus", "1", "--price", "1", "--tif", "DAY",
            "--key-file", adminKey());
        usageError("Unknown option: '--bogus'", "bid", "--market", "M", "--gpus", "1", "--price", "1", "--bogus");
        usageError("Missing required options: '--gpus=N', '--price=PRICE'", "bid", "--market", "M");
        usageError("give either --order-id N or --all", "cancel", "--key-file", adminKey());
        usageError("a role is RENTER, OWNER, MARKET_MAKER or ADMIN", "admin", "account", "create", "x", "--roles", "BOSS");
        usageError("an amount must be positive", "admin", "deposit", "x", "0", "--key-file", adminKey());
        usageError("no credentials: give --key-file FILE", "leases");
        usageError("GPUX_KEY_ID is set but GPUX_SECRET is not", Map.of("GPUX_KEY_ID", "1"), "leases");
        usageError("the secret must be 64 hex digits", Map.of("GPUX_KEY_ID", "1", "GPUX_SECRET", "abc"), "leases");
        final Path badKey = Files.writeString(dir().resolve("bad.key"), "not a key\n");
        usageError("must hold <keyId>:<secret hex>", "leases", "--key-file", badKey.toString());
        usageError("does not exist", "leases", "--key-file", dir().resolve("missing.key").toString());

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
        Run run = raw(Map.of(), "leases", "--port", Integer.toString(closedPort), "--key-file", adminKey());
        assertEquals(3, run.status(), run.toString());
        assertTrue(run.err().contains("cannot reach the gateway at 127.0.0.1:" + closedPort + ": "), run.toString());
        noStackTrace(run);

        run = cli(Map.of("GPUX_KEY_ID", "1", "GPUX_SECRET", "00".repeat(32)), "leases");
        assertEquals(3, run.status(), run.toString());
        assertTrue(run.err().contains("login refused: AUTHENTICATION_FAILED"), run.toString());
        noStackTrace(run);
    }
}
