package io.gpux.gateway;

import io.gpux.proto.v1.Cancel;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Login;
import io.gpux.proto.v1.MarketsRequest;
import io.gpux.proto.v1.PortfolioRequest;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.SessionErrorCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A thousand hostile connections against one running exchange, 50 at a time: random bytes, random
 * Envelopes (before and after a real Login, as a trader and as the admin), truncated, mutated,
 * zero-length and oversized frames, garbage before and after a Login, a Login sent a byte at a time,
 * connections dropped mid-frame. Then a fresh, well-behaved session must get its answers, nothing
 * must have failed inside the gateway, and every server-side connection and file descriptor must be
 * gone again.
 *
 * <p>What a connection closed by the server must have received first: a SessionError with a code,
 * always, including for bytes that cannot form a frame (an oversized length prefix is
 * FRAME_TOO_LARGE as soon as its four bytes arrive; a frame that is not an Envelope is
 * MALFORMED_FRAME; an incomplete frame is waited for until the login deadline (NOT_LOGGED_IN) or
 * two heartbeat intervals of silence (HEARTBEAT_TIMEOUT)). The only closes without one are the
 * client's own: a Logout, or a client that hangs up (with or without a reset). The seed is printed;
 * {@code -Dgpux.fuzz.seed=N} replays a run. A plain build runs {@value #CONNECTIONS_DEFAULT} connections,
 * {@code -Pstress} three times as many; {@code -Dgpux.fuzz.connections=N} sets the number.
 */
@Isolated // counts the JVM's open file descriptors before and after
class LiveFuzzTest
{
    private static final int CONNECTIONS_DEFAULT = 1000;
    private static final int CONNECTIONS = Integer.getInteger("gpux.fuzz.connections",
        Boolean.getBoolean("gpux.stress") ? 3 * CONNECTIONS_DEFAULT : CONNECTIONS_DEFAULT);
    private static final int CONCURRENCY = 50;
    private static final Set<String> ADMIN_EXCLUDED = Set.of("revoke_key");

    enum Kind
    {
        RANDOM_BYTES, RANDOM_ENVELOPE_BEFORE_LOGIN, LOGIN_THEN_RANDOM_ENVELOPES, ADMIN_THEN_RANDOM_ENVELOPES,
        LOGIN_THEN_GARBAGE, GARBAGE_THEN_LOGIN, TRUNCATED_FRAME, HUGE_LENGTH_PREFIX, ZERO_LENGTH_FRAME, MUTATED_FRAME,
        LOGIN_A_BYTE_AT_A_TIME, DROPPED_MID_FRAME
    }

    /** How often each kind is drawn (a byte-at-a-time Login takes the whole login deadline). */
    private static final int[] WEIGHTS = {12, 10, 12, 6, 10, 6, 8, 8, 5, 12, 1, 5};

    private TestExchange ex;
    private TestExchange.Key trader;
    private final Map<Kind, AtomicInteger> kinds = new EnumMap<>(Kind.class);
    private final Map<SessionErrorCode, AtomicInteger> codes = new EnumMap<>(SessionErrorCode.class);
    private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    private final AtomicInteger lateLogins = new AtomicInteger();

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void thousandsOfHostileConnectionsLeaveTheServerHealthy() throws Exception
    {
        final long seed = Long.getLong("gpux.fuzz.seed", System.nanoTime());
        System.err.println("LiveFuzzTest seed " + seed + " (-Dgpux.fuzz.seed=" + seed + " replays it)");
        for (final Kind k : Kind.values())
        {
            kinds.put(k, new AtomicInteger());
        }
        for (final SessionErrorCode c : SessionErrorCode.values())
        {
            codes.put(c, new AtomicInteger());
        }
        // hostile connections fail logins by the thousand from this one address: the login throttle
        // (LoginFloodTest's subject) is opened wide, so that the good connections among them get in
        ex = TestExchange.start(c -> c.loginTimeoutMs(1000).heartbeatIntervalMs(500)
            .loginFailureBurst(1_000_000).loginFailuresPerSecond(1_000_000));
        try
        {
            try (RawConnection admin = ex.login(ex.admin))
            {
                trader = TestExchange.account(admin, "fuzzer", 1_000_000_000_000L, Role.RENTER, Role.OWNER, Role.MARKET_MAKER);
            }
            ex.login(trader).close();
            final boolean probe = SocketProbe.available();
            final int fdsBefore = SocketProbe.openFileDescriptors();

            final ExecutorService pool = Executors.newFixedThreadPool(CONCURRENCY);
            final AtomicInteger next = new AtomicInteger();
            final long started = System.nanoTime();
            for (int t = 0; t < CONCURRENCY; t++)
            {
                pool.execute(() ->
                {
                    int i;
                    while ((i = next.getAndIncrement()) < CONNECTIONS && failures.size() < 20)
                    {
                        final Random random = new Random(seed * 1_000_003L + i);
                        final Kind kind = pick(random);
                        kinds.get(kind).incrementAndGet();
                        try
                        {
                            connection(kind, new RandomFrames(random));
                        }
                        catch (final LoginTooLate late)
                        {
                            lateLogins.incrementAndGet();
                        }
                        catch (final Throwable failure)
                        {
                            failures.add("connection " + i + " (" + kind + ", seed " + seed + "): " + failure);
                        }
                    }
                });
            }
            pool.shutdown();
            assertTrue(pool.awaitTermination(120, TimeUnit.SECONDS), "the fuzz connections did not finish");
            System.err.printf("LiveFuzzTest: %d connections in %.1f s; kinds %s; session errors %s; logins beaten by the deadline %d%n",
                CONNECTIONS, (System.nanoTime() - started) / 1e9, kinds, codes, lateLogins.get());
            assertTrue(lateLogins.get() < CONNECTIONS / 10, "most logins got in");
            assertTrue(failures.isEmpty(), () -> String.join("\n", failures));

            // the exchange is whole: a fresh account, a fresh session, answers to a query, a query through
            // the engine and a journaled command
            assertFalse(ex.exchange.pipeline().failed(), "the exchange core stopped");
            try (RawConnection admin = ex.login(ex.admin))
            {
                final TestExchange.Key fresh = TestExchange.account(admin, "after-the-storm", 1_000_000, Role.RENTER);
                try (RawConnection c = ex.login(fresh))
                {
                    assertEquals(Envelope.BodyCase.MARKETS, c.responseTo(c.request(Envelope.newBuilder()
                        .setMarketsRequest(MarketsRequest.getDefaultInstance()))).getBodyCase());
                    assertEquals(1_000_000, c.responseTo(c.request(Envelope.newBuilder()
                        .setPortfolioRequest(PortfolioRequest.getDefaultInstance()))).getPortfolio().getBalance());
                    final var r = TestExchange.response(c, Envelope.newBuilder().setCancel(Cancel.newBuilder().setOrderId(1)));
                    assertEquals(Reason.UNKNOWN_ORDER, r.getReason());
                    assertTrue(r.getCommandSeq() > 0);
                    if (probe)
                    {
                        assertTrue(SocketProbe.await(() -> SocketProbe.serverConnections(ex.port()) == 2, 15_000),
                            () -> "server-side connections left open: " + SocketProbe.serverConnections(ex.port()) + ", expected 2");
                    }
                }
            }
            // "connection ... failed:" (an exception in the gateway handler), "query ... failed:" (one on the core thread)
            assertTrue(ex.logLines("failed:").isEmpty(), () -> "the gateway failed on a connection:\n"
                + String.join("\n", ex.logLines("failed:")));
            assertTrue(ex.logLines("egress error").isEmpty(), () -> String.join("\n", ex.logLines("egress error")));
            if (probe)
            {
                assertTrue(SocketProbe.await(() -> SocketProbe.serverConnections(ex.port()) == 0, 15_000),
                    "server-side connections left open");
                final int allowed = fdsBefore + 16;
                assertTrue(SocketProbe.await(() -> SocketProbe.openFileDescriptors() <= allowed, 15_000),
                    () -> "file descriptors: " + fdsBefore + " before, " + SocketProbe.openFileDescriptors() + " after");
            }
        }
        finally
        {
            ex.close();
        }
    }

    private static Kind pick(final Random random)
    {
        int total = 0;
        for (final int w : WEIGHTS)
        {
            total += w;
        }
        int x = random.nextInt(total);
        for (int k = 0; k < WEIGHTS.length; k++)
        {
            x -= WEIGHTS[k];
            if (x < 0)
            {
                return Kind.values()[k];
            }
        }
        throw new AssertionError();
    }

    private byte[] login(final TestExchange.Key key)
    {
        return RandomFrames.frame(Envelope.newBuilder().setLogin(
            RawConnection.login(key.id(), key.secret(), System.currentTimeMillis())).build());
    }

    /** Thrown when the login deadline beat a login on a loaded machine: the server did right, the scenario did not happen. */
    private static final class LoginTooLate extends Exception
    {
        LoginTooLate()
        {
            super(null, null, false, false);
        }
    }

    private static void loggedIn(final RawConnection c, final TestExchange.Key key) throws IOException, LoginTooLate
    {
        final Envelope e = c.login(key.id(), key.secret());
        if (e != null && e.getBodyCase() == Envelope.BodyCase.SESSION_ERROR
            && e.getSessionError().getCode() == SessionErrorCode.NOT_LOGGED_IN && e.getSessionError().getMessage().startsWith("no Login within"))
        {
            throw new LoginTooLate();
        }
        assertTrue(e != null && e.getBodyCase() == Envelope.BodyCase.LOGIN_ACCEPTED, "login refused: " + e);
    }

    /** One hostile connection; throws if the server's answer breaks the rules in the class comment. */
    private void connection(final Kind kind, final RandomFrames f) throws Exception
    {
        final Random r = f.random();
        SessionErrorCode expected = null;
        boolean loggedOut = false;
        byte[] sent = new byte[0];
        try (RawConnection c = new RawConnection(ex.port()))
        {
            c.socket.setSoTimeout(15_000);
            try
            {
                switch (kind)
                {
                    case RANDOM_BYTES -> sent = f.bytes(r.nextBoolean() ? 12 : 4000);
                    case RANDOM_ENVELOPE_BEFORE_LOGIN ->
                    {
                        final byte[] payload = f.envelope(Set.of());
                        final Envelope.BodyCase body = Envelope.parseFrom(payload).getBodyCase();
                        expected = body == Envelope.BodyCase.LOGIN ? SessionErrorCode.AUTHENTICATION_FAILED
                            : SessionErrorCode.NOT_LOGGED_IN;
                        sent = RandomFrames.frame(payload);
                    }
                    case LOGIN_THEN_RANDOM_ENVELOPES, ADMIN_THEN_RANDOM_ENVELOPES ->
                    {
                        final boolean asAdmin = kind == Kind.ADMIN_THEN_RANDOM_ENVELOPES;
                        loggedIn(c, asAdmin ? ex.admin : trader);
                        final List<byte[]> frames = new ArrayList<>();
                        final int n = 1 + r.nextInt(20);
                        for (int i = 0; i < n; i++)
                        {
                            final byte[] payload = f.envelope(asAdmin ? ADMIN_EXCLUDED : Set.of());
                            loggedOut |= Envelope.parseFrom(payload).getBodyCase() == Envelope.BodyCase.LOGOUT;
                            frames.add(RandomFrames.frame(payload));
                        }
                        sent = RandomFrames.concat(frames.toArray(new byte[0][]));
                    }
                    case LOGIN_THEN_GARBAGE ->
                    {
                        loggedIn(c, trader);
                        sent = r.nextBoolean() ? f.bytes(2000) : f.mutate(RandomFrames.frame(f.envelope(Set.of("logout"))));
                        // garbage can, by chance, hold a well-formed Logout: then a close without a reason is right
                        loggedOut |= holdsLogout(sent);
                    }
                    case GARBAGE_THEN_LOGIN -> sent = RandomFrames.concat(f.bytes(64), login(trader));
                    case TRUNCATED_FRAME ->
                    {
                        if (r.nextBoolean())
                        {
                            loggedIn(c, trader);
                        }
                        final byte[] whole = RandomFrames.frame(f.envelope(Set.of("logout")));
                        sent = java.util.Arrays.copyOf(whole, r.nextInt(whole.length));
                    }
                    case HUGE_LENGTH_PREFIX ->
                    {
                        if (r.nextBoolean())
                        {
                            loggedIn(c, trader);
                        }
                        expected = SessionErrorCode.FRAME_TOO_LARGE;
                        sent = RandomFrames.concat(f.hugeLengthPrefix(), f.bytes(r.nextBoolean() ? 0 : 3000));
                    }
                    case ZERO_LENGTH_FRAME ->
                    {
                        final boolean in = r.nextBoolean();
                        if (in)
                        {
                            loggedIn(c, trader);
                        }
                        expected = in ? SessionErrorCode.PROTOCOL_VIOLATION : SessionErrorCode.NOT_LOGGED_IN;
                        sent = new byte[4 * (1 + r.nextInt(3))];
                    }
                    case MUTATED_FRAME ->
                    {
                        if (r.nextBoolean())
                        {
                            loggedIn(c, trader);
                            sent = f.mutate(RandomFrames.frame(f.envelope(Set.of("logout"))));
                            // a mutation can, by chance, make a well-formed Logout (seed 32432235760514 turned a
                            // ResendComplete's tag 0x7a into Logout's 0x6a): then a close without a reason is right
                            loggedOut |= holdsLogout(sent);
                        }
                        else
                        {
                            sent = f.mutate(login(trader));
                        }
                    }
                    case LOGIN_A_BYTE_AT_A_TIME ->
                    {
                        // slower than the login deadline allows
                        expected = SessionErrorCode.NOT_LOGGED_IN;
                        final byte[] frame = login(trader);
                        for (final byte b : frame)
                        {
                            c.sendRaw(new byte[] {b});
                            Thread.sleep(25);
                        }
                    }
                    case DROPPED_MID_FRAME ->
                    {
                        if (r.nextBoolean())
                        {
                            loggedIn(c, trader);
                        }
                        final byte[] whole = RandomFrames.frame(f.envelope(Set.of()));
                        c.sendRaw(java.util.Arrays.copyOf(whole, 1 + r.nextInt(whole.length - 1)));
                        if (r.nextBoolean())
                        {
                            c.socket.setSoLinger(true, 0);
                        }
                        return;
                    }
                }
                c.sendRaw(sent);
            }
            catch (final java.net.SocketException closedWhileWriting)
            {
                // the server may close (on the first bad frame) before it has everything we send
            }

            final List<Envelope> frames = new ArrayList<>();
            Envelope e;
            try
            {
                while ((e = c.read()) != null)
                {
                    frames.add(e);
                }
            }
            catch (final SocketTimeoutException ex)
            {
                throw new AssertionError("the server neither answered nor closed within 15 s; frames " + frames
                    + "; sent " + RandomFrames.hex(sent, 64));
            }
            final List<Envelope> errors = frames.stream().filter(x -> x.getBodyCase() == Envelope.BodyCase.SESSION_ERROR).toList();
            for (final Envelope err : errors)
            {
                assertTrue(err.getSessionError().getCode() != SessionErrorCode.SESSION_ERROR_CODE_UNSPECIFIED
                    && err.getSessionError().getCode() != SessionErrorCode.UNRECOGNIZED, err::toString);
                codes.get(err.getSessionError().getCode()).incrementAndGet();
            }
            if (!loggedOut)
            {
                final byte[] what = sent;
                assertFalse(errors.isEmpty(), () -> "closed without a SessionError; read " + frames + "; sent "
                    + RandomFrames.hex(what, 64));
            }
            if (expected != null)
            {
                final var first = errors.get(0).getSessionError();
                // on a loaded machine a deadline (login, or two heartbeat intervals) may come first: also a right answer
                final boolean deadline = first.getCode() == SessionErrorCode.NOT_LOGGED_IN && !first.getMessage().contains("must be Login")
                    || first.getCode() == SessionErrorCode.HEARTBEAT_TIMEOUT;
                if (!deadline)
                {
                    assertEquals(expected, first.getCode(), "sent " + RandomFrames.hex(sent, 64) + ", answered " + first);
                }
            }
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theLargestEnvelopeIsMaxFrameBytesNotCountingItsLengthPrefix() throws Exception
    {
        try (TestExchange t = TestExchange.start(c -> c))
        {
            ex = t;
            final int max = 64 * 1024;
            for (final int payload : new int[] {max, max + 1})
            {
                try (RawConnection c = t.connect())
                {
                    final Envelope e = sized(payload);
                    assertEquals(payload, e.getSerializedSize());
                    c.send(e);
                    final Envelope answer = c.readNonHeartbeat();
                    // a Login that fits is read and checked (and refused: it is signed with nothing); one byte more is not read
                    assertEquals(payload <= max ? SessionErrorCode.AUTHENTICATION_FAILED : SessionErrorCode.FRAME_TOO_LARGE,
                        answer.getSessionError().getCode(), "a payload of " + payload + " bytes");
                }
            }
        }
    }

    /** A Login envelope of exactly {@code size} bytes. */
    private static Envelope sized(final int size)
    {
        int pad = size;
        while (true)
        {
            final Envelope e = Envelope.newBuilder().setLogin(Login.newBuilder().setKeyId(1).setClientName("x".repeat(pad))).build();
            final int over = e.getSerializedSize() - size;
            if (over == 0)
            {
                return e;
            }
            pad -= over > 0 ? Math.max(1, over) : -1;
        }
    }

    /** Whether the bytes, read as frames from the start, hold a frame that decodes to a Logout. */
    private static boolean holdsLogout(final byte[] stream)
    {
        int at = 0;
        while (stream.length - at >= 4)
        {
            final int length = java.nio.ByteBuffer.wrap(stream, at, 4).getInt();
            if (length < 0 || length > stream.length - at - 4)
            {
                return false;
            }
            try
            {
                if (Envelope.parseFrom(java.util.Arrays.copyOfRange(stream, at + 4, at + 4 + length)).getBodyCase()
                    == Envelope.BodyCase.LOGOUT)
                {
                    return true;
                }
            }
            catch (final com.google.protobuf.InvalidProtocolBufferException ex)
            {
                return false;
            }
            at += 4 + length;
        }
        return false;
    }
}
