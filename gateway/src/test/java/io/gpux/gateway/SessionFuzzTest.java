package io.gpux.gateway;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.SilentCloseable;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.SessionErrorCode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.io.IOException;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real gateway (one exchange for the whole class, over a real socket, so the pipeline is
 * exactly the Initializer's and the login and session logic the real LoginHandler's and SessionHandler's) fed arbitrary bytes.
 * The first byte chooses the state they arrive in: odd, after a real Login as a trader (so the
 * bytes reach the request handling, not just the login gate); even, on a fresh connection. The
 * client then half-closes and reads what the server sends until it closes. Whatever the bytes: what
 * the server sends is well-framed Envelopes, a SessionError carries a real code, nothing fails
 * inside the gateway (no "failed:" in its log: an unexpected exception in a handler, or in a query
 * on the core thread), and the exchange core keeps running.
 *
 * <p>A plain {@code mvn test} runs {@link #session} on its regression inputs only, from
 * {@code src/test/resources/io/gpux/gateway/SessionFuzzTestInputs/session/}. To fuzz (findings are
 * written to that directory):
 * <pre>
 *   JAZZER_FUZZ=1 ./mvnw -pl gateway test -Dtest=SessionFuzzTest#session -Djazzer.max_duration=5m
 * </pre>
 * (About 900 inputs a second here, each a real connection; no finding in a 60-second run.)
 */
class SessionFuzzTest
{
    private static TestExchange ex;
    private static TestExchange.Key trader;

    @BeforeAll
    static void start() throws Exception
    {
        ex = TestExchange.start(c -> c.loginTimeoutMs(2_000).heartbeatIntervalMs(2_000));
        try (RawConnection admin = ex.login(ex.admin))
        {
            trader = TestExchange.account(admin, "fuzzer", 1_000_000_000L, Role.RENTER, Role.OWNER, Role.MARKET_MAKER);
        }
    }

    @AfterAll
    static void stop()
    {
        if (ex != null)
        {
            ex.close();
        }
    }

    @FuzzTest
    void session(final byte[] data) throws Exception
    {
        if (data.length == 0)
        {
            return;
        }
        final boolean loggedIn = (data[0] & 1) != 0;
        final byte[] bytes = Arrays.copyOfRange(data, 1, data.length);
        final List<Envelope> frames = new ArrayList<>();
        // connecting to our own exchange is the point, not a server-side request forgery
        final SilentCloseable allowed = BugDetectors.allowNetworkConnections(
            (host, port) -> port == ex.port() && ("127.0.0.1".equals(host) || "localhost".equals(host)));
        try (allowed; RawConnection c = new RawConnection(ex.port()))
        {
            c.socket.setSoTimeout(15_000);
            if (loggedIn)
            {
                final Envelope accepted = c.login(trader.id(), trader.secret());
                assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, accepted.getBodyCase(), accepted::toString);
            }
            try
            {
                c.sendRaw(bytes);
                c.socket.shutdownOutput();
            }
            catch (final SocketException closedAlready)
            {
                // the server may close on the first bad frame, before it has everything
            }
            Envelope e;
            while ((e = c.read()) != null)
            {
                frames.add(e);
            }
        }
        catch (final IOException ex)
        {
            throw new AssertionError("what the server sent is not frames of Envelopes: " + frames, ex);
        }
        for (final Envelope e : frames)
        {
            if (e.getBodyCase() == Envelope.BodyCase.SESSION_ERROR)
            {
                assertNotEquals(SessionErrorCode.SESSION_ERROR_CODE_UNSPECIFIED, e.getSessionError().getCode());
                assertNotEquals(SessionErrorCode.UNRECOGNIZED, e.getSessionError().getCode());
            }
        }
        assertFalse(ex.exchange.pipeline().failed(), "the exchange core stopped");
        assertTrue(ex.logLines("failed:").isEmpty(), () -> String.join("\n", ex.logLines("failed:")));
    }
}
