package io.gpux.gateway;

import io.gpux.proto.v1.CreateAccount;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.PortfolioRequest;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RevokeKey;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.SessionErrorCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Revoking a key ends its sessions at once: each gets the answers to what it sent before the revoke,
 * then a KEY_REVOKED SessionError, then the close; nothing it sent after the revoke is applied.
 */
class RevokeKeyTest
{
    private static final long MONEY = 1_000_000_000_000L;

    private TestExchange ex;
    private RawConnection admin;

    @BeforeEach
    void start() throws Exception
    {
        ex = TestExchange.start(this::settings);
        admin = ex.login(ex.admin);
    }

    /** The exchange's settings: the default thread layout here. */
    ExchangeContext settings(final ExchangeContext ctx)
    {
        return ctx;
    }

    @AfterEach
    void stop() throws IOException
    {
        admin.close();
        ex.close();
    }

    @Test
    void aRevokedKeysSessionsAreToldAndClosedAndWhatTheySendAfterIsNotApplied() throws Exception
    {
        final TestExchange.Key key = TestExchange.account(admin, "renter", MONEY, Role.RENTER);
        final TestExchange.Key other = TestExchange.account(admin, "renter-2", 0, Role.RENTER);
        final TestExchange.Key sameAccount = new TestExchange.Key(TestExchange.ok(admin, Envelope.newBuilder()
            .setCreateKey(io.gpux.proto.v1.CreateKey.newBuilder().setAccount("renter"))).getAssignedId(), null);
        try (RawConnection first = ex.login(key); RawConnection second = ex.login(key); RawConnection bystander = ex.login(other))
        {
            TestExchange.ok(first, bid(1));
            TestExchange.ok(admin, Envelope.newBuilder().setRevokeKey(RevokeKey.newBuilder().setKeyId(key.id())));

            for (final RawConnection c : new RawConnection[] {first, second})
            {
                c.send(bid(2).setRequestId(99).build());
                final Envelope e = c.readUntil(Envelope.BodyCase.SESSION_ERROR);
                assertNotNull(e, "a SessionError before the close");
                assertEquals(SessionErrorCode.KEY_REVOKED, e.getSessionError().getCode(), e::toString);
                assertTrue(e.getSessionError().getMessage().contains("revoked"), e::toString);
                assertTrue(c.closedByServer(), "closed after the SessionError");
            }
            assertEquals(1, openOrders(sameAccount), "only the bid before the revoke was applied");
            assertEquals(Envelope.BodyCase.PORTFOLIO, bystander.responseTo(bystander.request(
                Envelope.newBuilder().setPortfolioRequest(PortfolioRequest.getDefaultInstance()))).getBodyCase(),
                "another account's session carries on");
            try (RawConnection again = ex.connect())
            {
                assertEquals(SessionErrorCode.AUTHENTICATION_FAILED,
                    again.login(key.id(), key.secret()).getSessionError().getCode(), "the key no longer logs in");
            }
        }
    }

    @Test
    void ordersRacingTheRevokeAreAppliedOnlyIfAnsweredBeforeTheSessionError() throws Exception
    {
        final TestExchange.Key key = TestExchange.account(admin, "racer", MONEY, Role.RENTER);
        final TestExchange.Key sameAccount = new TestExchange.Key(TestExchange.ok(admin, Envelope.newBuilder()
            .setCreateKey(io.gpux.proto.v1.CreateKey.newBuilder().setAccount("racer"))).getAssignedId(), null);
        try (RawConnection racer = ex.login(key))
        {
            final Set<Long> applied = race(racer, this::bid, () -> TestExchange.ok(admin,
                Envelope.newBuilder().setRevokeKey(RevokeKey.newBuilder().setKeyId(key.id()))));
            assertTrue(!applied.isEmpty(), "some bids went in before the revoke");
            assertEquals(applied.size(), openOrders(sameAccount), "every bid applied was answered before the SessionError");
        }
    }

    @Test
    void aRevokedAdminSessionCreatesNoAccount() throws Exception
    {
        final TestExchange.Key deputy = TestExchange.account(admin, "deputy", 0, Role.ADMIN);
        try (RawConnection session = ex.login(deputy))
        {
            final Set<Long> created = race(session,
                i -> Envelope.newBuilder().setCreateAccount(CreateAccount.newBuilder().setName("made-" + i).addRoles(Role.ADMIN)),
                () -> TestExchange.ok(admin, Envelope.newBuilder().setRevokeKey(RevokeKey.newBuilder().setKeyId(deputy.id()))));
            final long last = created.stream().mapToLong(Long::longValue).max().orElse(-1);
            for (long i = 0; i <= last + 200; i++)
            {
                final Reason r = TestExchange.response(admin, Envelope.newBuilder().setCreateAccount(
                    CreateAccount.newBuilder().setName("made-" + i).addRoles(Role.RENTER))).getReason();
                assertEquals(created.contains(i) ? Reason.DUPLICATE_ID : Reason.REASON_OK, r,
                    "account made-" + i + " exists only if the deputy was told it made it before its SessionError");
            }
        }
        try (RawConnection late = ex.connect())
        {
            assertEquals(SessionErrorCode.AUTHENTICATION_FAILED,
                late.login(deputy.id(), deputy.secret()).getSessionError().getCode());
        }
    }

    /**
     * Sends {@code request(i)} (request id i + 1) for i = 0, 1, ... on {@code c} from another thread, until it is closed,
     * while {@code revoke} runs here, then reads c to its end: the numbers i answered REASON_OK before
     * the KEY_REVOKED SessionError (asserted to come, and to come last).
     */
    private static Set<Long> race(final RawConnection c, final LongFunction<Envelope.Builder> request, final Revoke revoke)
        throws Exception
    {
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicLong sent = new AtomicLong();
        final Thread pump = new Thread(() ->
        {
            try
            {
                for (long i = 0; !stop.get(); i++)
                {
                    c.send(request.apply(i).setRequestId(i + 1).build());
                    sent.set(i + 1);
                }
            }
            catch (final IOException closed)
            {
                // the server closed it: the point of the test
            }
        }, "revoke-race-pump");
        pump.start();
        while (sent.get() < 50)
        {
            Thread.onSpinWait();
        }
        revoke.run();
        // on a loaded machine the pump may not have run since: let it send past the revoke (or find the connection gone)
        final long sentAtRevoke = sent.get();
        final long pumped = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (sent.get() == sentAtRevoke && pump.isAlive() && System.nanoTime() < pumped)
        {
            Thread.onSpinWait();
        }
        final Set<Long> ok = new HashSet<>();
        Envelope e;
        while ((e = c.read()) != null && e.getBodyCase() != Envelope.BodyCase.SESSION_ERROR)
        {
            if (e.getBodyCase() == Envelope.BodyCase.RESPONSE && e.getResponse().getReason() == Reason.REASON_OK)
            {
                ok.add(e.getRequestId() - 1);
            }
        }
        stop.set(true);
        pump.join(10_000);
        assertTrue(sent.get() > ok.size(), "the session was still sending when the revoke ended it");
        assertNotNull(e, "a SessionError before the close");
        assertEquals(SessionErrorCode.KEY_REVOKED, e.getSessionError().getCode(), e::toString);
        assertTrue(c.closedByServer(), "nothing after the SessionError but the close");
        return ok;
    }

    private interface Revoke
    {
        void run() throws Exception;
    }

    private Envelope.Builder bid(final long i)
    {
        return Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
            .setOrderId(i + 1).setMarket("A100-80G").setGpus(1).setPrice(1000));
    }

    /** The account's open orders, read through a fresh session of another of its keys. */
    private long openOrders(final TestExchange.Key key) throws IOException
    {
        final String secret = ex.exchange.authenticator.secretHex(key.id());
        try (RawConnection c = ex.login(new TestExchange.Key(key.id(), secret)))
        {
            final Envelope e = c.responseTo(c.request(Envelope.newBuilder().setPortfolioRequest(PortfolioRequest.getDefaultInstance())));
            final Portfolio p = e.getPortfolio();
            return p.getOrdersCount();
        }
    }
}
