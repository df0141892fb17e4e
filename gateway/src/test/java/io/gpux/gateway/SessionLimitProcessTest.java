package io.gpux.gateway;

import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.PortfolioRequest;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.SessionErrorCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real server in a child JVM with a small heap ({@code -Xmx96m}): one account opens sessions up
 * to its limit (more than such a heap held when each session took its largest tables at login), the
 * next is refused with SESSION_LIMIT, another account is still served, the server's own limit
 * holds too, and the server never runs out of memory.
 */
class SessionLimitProcessTest
{
    private static final int PER_ACCOUNT = 300;
    private static final int TOTAL = 400;

    @TempDir
    Path dir;
    private Process server;
    private final List<RawConnection> open = new ArrayList<>();

    @AfterEach
    void stop() throws Exception
    {
        for (final RawConnection c : open)
        {
            c.close();
        }
        if (server != null)
        {
            server.destroy();
            if (!server.waitFor(30, TimeUnit.SECONDS))
            {
                server.destroyForcibly().waitFor();
            }
        }
    }

    @Test
    void sessionsUpToTheLimitsFitASmallHeapAndTheNextIsRefused() throws Exception
    {
        final int port = startServer();
        final String[] adminKey = Files.readString(dir.resolve("admin.key")).trim().split(":");
        final RawConnection admin = login(port, new TestExchange.Key(Long.parseLong(adminKey[0]), adminKey[1]));
        final TestExchange.Key crowd = TestExchange.account(admin, "crowd", 0, Role.RENTER);
        final TestExchange.Key other = TestExchange.account(admin, "other", 0, Role.RENTER);

        logins(port, crowd, PER_ACCOUNT);
        final Envelope refused = refusedLogin(port, crowd);
        assertTrue(refused.getSessionError().getMessage().contains("account crowd has its maximum of " + PER_ACCOUNT),
            refused::toString);

        final RawConnection served = login(port, other);
        assertEquals(Envelope.BodyCase.PORTFOLIO, served.responseTo(served.request(
            Envelope.newBuilder().setPortfolioRequest(PortfolioRequest.getDefaultInstance()))).getBodyCase(),
            "another account is still served");
        logins(port, other, TOTAL - open.size());
        final Envelope full = refusedLogin(port, other);
        assertTrue(full.getSessionError().getMessage().contains("the server has its maximum of " + TOTAL), full::toString);

        open.remove(open.size() - 1).close();
        awaitLogin(port, other);

        assertTrue(server.isAlive(), "the server runs on");
        final String log = Files.readString(dir.resolve("server.log"));
        assertFalse(log.contains("OutOfMemoryError"), log);
        assertTrue(log.contains("logins: 0 failed, 0 throttled, 1 over a session limit"), "the first refusal is logged: " + log);
    }

    private int startServer() throws IOException, InterruptedException
    {
        final List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        final List<String> in = ManagementFactory.getRuntimeMXBean().getInputArguments();
        for (int i = 0; i < in.size(); i++)
        {
            final String arg = in.get(i);
            if ((arg.equals("--add-opens") || arg.equals("--add-exports")) && i + 1 < in.size())
            {
                cmd.add(arg);
                cmd.add(in.get(++i));
            }
            else if (arg.startsWith("--add-") || arg.startsWith("-D") && !arg.startsWith("-Djava.class.path="))
            {
                cmd.add(arg);
            }
        }
        cmd.addAll(List.of("-Xmx96m", "-XX:+ExitOnOutOfMemoryError", "-cp", System.getProperty("java.class.path"),
            "io.gpux.gateway.ServerMain", "--port", "0", "--data", dir.resolve("data").toString(),
            "--port-file", dir.resolve("port").toString(), "--admin-key-file", dir.resolve("admin.key").toString(),
            "--heartbeat-ms", "60000", "--max-sessions-per-account", Integer.toString(PER_ACCOUNT),
            "--max-sessions", Integer.toString(TOTAL)));
        server = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("server.log").toFile()).start();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        final Path portFile = dir.resolve("port");
        while (!Files.exists(portFile) || !Files.readString(portFile).endsWith("\n"))
        {
            assertTrue(server.isAlive(), () -> "the server exited: " + read(dir.resolve("server.log")));
            assertTrue(System.nanoTime() - deadline < 0, "the server did not start");
            Thread.sleep(20);
        }
        return Integer.parseInt(Files.readString(portFile).trim());
    }

    private RawConnection login(final int port, final TestExchange.Key key) throws IOException
    {
        final RawConnection c = new RawConnection(port);
        open.add(c);
        final Envelope e = c.login(key.id(), key.secret());
        assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, e.getBodyCase(), () -> "session " + open.size() + ": " + e);
        return c;
    }

    /** Opens {@code n} sessions, the Logins all sent before the first answer is read. */
    private void logins(final int port, final TestExchange.Key key, final int n) throws IOException
    {
        final List<RawConnection> sent = new ArrayList<>();
        for (int i = 0; i < n; i++)
        {
            final RawConnection c = new RawConnection(port);
            open.add(c);
            sent.add(c);
            // its answer may wait behind all the Logins sent before it
            c.socket.setSoTimeout(60_000);
            c.send(Envelope.newBuilder().setLogin(RawConnection.login(key.id(), key.secret(), System.currentTimeMillis())).build());
        }
        for (int i = 0; i < n; i++)
        {
            final Envelope e = sent.get(i).readNonHeartbeat();
            final int session = i + 1;
            assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, e.getBodyCase(), () -> "session " + session + " of " + n + ": " + e);
        }
    }

    private static Envelope refusedLogin(final int port, final TestExchange.Key key) throws IOException
    {
        try (RawConnection c = new RawConnection(port))
        {
            final Envelope e = c.login(key.id(), key.secret());
            assertEquals(SessionErrorCode.SESSION_LIMIT, e.getSessionError().getCode(), e::toString);
            assertTrue(c.closedByServer());
            return e;
        }
    }

    /** Logs in as soon as a place is free (a closed session's place is given back when the server sees the close). */
    private void awaitLogin(final int port, final TestExchange.Key key) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true)
        {
            try (RawConnection c = new RawConnection(port))
            {
                final Envelope e = c.login(key.id(), key.secret());
                if (e.getBodyCase() == Envelope.BodyCase.LOGIN_ACCEPTED)
                {
                    return;
                }
                assertEquals(SessionErrorCode.SESSION_LIMIT, e.getSessionError().getCode(), e::toString);
            }
            assertTrue(System.nanoTime() - deadline < 0, "the closed session's place was not given back");
            Thread.sleep(20);
        }
    }

    private static String read(final Path file)
    {
        try
        {
            return Files.readString(file);
        }
        catch (final IOException ex)
        {
            return "(no log: " + ex.getMessage() + ")";
        }
    }
}
