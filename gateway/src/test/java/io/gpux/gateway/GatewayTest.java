package io.gpux.gateway;

import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Cancel;
import io.gpux.proto.v1.CreateAccount;
import io.gpux.proto.v1.CreateKey;
import io.gpux.proto.v1.Deposit;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Login;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.PortfolioRequest;
import io.gpux.proto.v1.QuoteRequest;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.SessionErrorCode;
import io.gpux.proto.v1.Subscribe;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The gateway in process, driven over loopback by raw frames. */
class GatewayTest
{
    @TempDir
    Path dir;
    Exchange exchange;
    Exchange.Key admin;

    /** The thread layout under test: the core and the egress on the event loop (the default) or their own threads. */
    boolean sharedLoop()
    {
        return true;
    }

    Exchange start() throws Exception
    {
        return Exchange.start(new ExchangeContext().dataDir(dir).port(0).heartbeatIntervalMs(1500).loginTimeoutMs(1000)
            .sharedLoop(sharedLoop()).log(line -> { }));
    }

    @BeforeEach
    void setUp() throws Exception
    {
        exchange = start();
        admin = exchange.bootstrapKey();
        assertNotNull(admin, "a fresh exchange makes an admin key");
    }

    @AfterEach
    void tearDown()
    {
        exchange.close();
    }

    RawConnection connect() throws IOException
    {
        return new RawConnection(exchange.port());
    }

    RawConnection loggedIn(final long keyId, final String secret) throws IOException
    {
        final RawConnection c = connect();
        final Envelope accepted = c.login(keyId, secret);
        // the message lazily: a first protobuf toString() can take longer than two 300 ms heartbeat intervals
        assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, accepted.getBodyCase(), accepted::toString);
        // a test busy with another connection must not get this one timed out
        c.startHeartbeats(100);
        return c;
    }

    /** Creates an account with a key and money; returns [keyId, secret]. */
    static String[] account(final RawConnection adminConn, final String name, final Role role, final long money)
        throws IOException
    {
        Response r = adminConn.responseTo(adminConn.request(Envelope.newBuilder().setCreateAccount(
            CreateAccount.newBuilder().setName(name).addRoles(role)))).getResponse();
        assertOk(r);
        if (money > 0)
        {
            r = adminConn.responseTo(adminConn.request(Envelope.newBuilder().setDeposit(
                Deposit.newBuilder().setAccount(name).setAmount(money)))).getResponse();
            assertOk(r);
        }
        r = adminConn.responseTo(adminConn.request(Envelope.newBuilder().setCreateKey(
            CreateKey.newBuilder().setAccount(name)))).getResponse();
        assertOk(r);
        assertEquals(64, r.getSecret().length());
        return new String[] {Long.toString(r.getAssignedId()), r.getSecret()};
    }

    static void assertOk(final Response r)
    {
        assertEquals(Reason.REASON_OK, r.getReason(), r::toString);
    }

    static long key(final String[] k)
    {
        return Long.parseLong(k[0]);
    }

    /** Reads frames until the response to the request, collecting the account events before it. */
    static Response collect(final RawConnection c, final long requestId, final List<AccountEvent> events) throws IOException
    {
        while (true)
        {
            final Envelope e = c.readNonHeartbeat();
            assertNotNull(e, "connection closed");
            if (e.getBodyCase() == Envelope.BodyCase.EVENT)
            {
                events.add(e.getEvent());
            }
            else if (e.getRequestId() == requestId && e.getBodyCase() == Envelope.BodyCase.RESPONSE)
            {
                return e.getResponse();
            }
        }
    }

    @Test
    void ownerAndRenterTradeAndEventsAreNumberedWithoutGaps() throws Exception
    {
        try (RawConnection adminConn = loggedIn(admin.keyId(), admin.secret()))
        {
            final String[] bobKey = account(adminConn, "bob", Role.OWNER, 0);
            final String[] aliceKey = account(adminConn, "alice", Role.RENTER, 1_000_000_000L);
            try (RawConnection bob = loggedIn(key(bobKey), bobKey[1]);
                 RawConnection alice = loggedIn(key(aliceKey), aliceKey[1]))
            {
                final List<AccountEvent> bobEvents = new ArrayList<>();
                Response r = collect(bob, bob.request(Envelope.newBuilder().setRegisterMachine(RegisterMachine.newBuilder()
                    .setName("node-1").setMarket("H100-SXM-80G").setGpus(8).setRegion("eu"))), bobEvents);
                assertOk(r);
                final long machine = r.getAssignedId();
                r = collect(bob, bob.request(Envelope.newBuilder().setMachineHeartbeat(
                    MachineHeartbeat.newBuilder().setMachineId(machine))), bobEvents);
                assertEquals(Reason.REASON_OK, r.getReason());
                assertEquals(AccountEvent.KindCase.MACHINE_ONLINE, bobEvents.get(0).getKindCase());
                r = collect(bob, bob.request(Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder()
                    .setOrderId(1).setMachineId(machine).setGpus(8).setPrice(20_000))), bobEvents);
                assertEquals(Reason.REASON_OK, r.getReason());

                final List<AccountEvent> aliceEvents = new ArrayList<>();
                final long quoteId = alice.request(Envelope.newBuilder().setQuoteRequest(QuoteRequest.newBuilder()
                    .setMarket("H100-SXM-80G").setGpus(4).setPrice(25_000)));
                final Envelope quote = alice.responseTo(quoteId);
                assertEquals(4, quote.getQuoteResult().getFilledGpus(), quote::toString);
                assertEquals(20_000, quote.getQuoteResult().getFills(0).getPrice());

                r = collect(alice, alice.request(Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
                    .setOrderId(7).setMarket("H100-SXM-80G").setGpus(4).setPrice(25_000))), aliceEvents);
                assertEquals(Reason.REASON_OK, r.getReason());
                assertTrue(r.getCommandSeq() > 0);
                final List<AccountEvent.KindCase> kinds = aliceEvents.stream().map(AccountEvent::getKindCase).toList();
                // her deposit's BALANCE (seq 1) came before she logged in: a login without last_seq is live only
                assertEquals(List.of(AccountEvent.KindCase.ACCEPTED, AccountEvent.KindCase.FILL,
                    AccountEvent.KindCase.LEASE_STARTED), kinds);
                for (int i = 0; i < aliceEvents.size(); i++)
                {
                    assertEquals(i + 2, aliceEvents.get(i).getSeq(), "gap-free per-account numbering");
                }
                assertEquals(20_000, aliceEvents.get(1).getFill().getPrice());
                assertTrue(aliceEvents.get(2).getLeaseStarted().getRenter());

                final Envelope portfolio = alice.responseTo(alice.request(
                    Envelope.newBuilder().setPortfolioRequest(PortfolioRequest.getDefaultInstance())));
                assertEquals(1, portfolio.getPortfolio().getLeasesCount());
                assertEquals(4, portfolio.getPortfolio().getLeases(0).getGpus());
            }
        }
    }

    @Test
    void aResumeAfterARestartResendsWhatWasMissedAndTheRestartReadsNoHistory() throws Exception
    {
        final String[] aliceKey;
        final List<AccountEvent> seen = new ArrayList<>();
        try (RawConnection adminConn = loggedIn(admin.keyId(), admin.secret()))
        {
            aliceKey = account(adminConn, "alice", Role.RENTER, 1_000_000_000L);
            try (RawConnection alice = loggedIn(key(aliceKey), aliceKey[1]))
            {
                for (int i = 1; i <= 100; i++)
                {
                    collect(alice, alice.request(Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
                        .setOrderId(i).setMarket("A100-80G").setGpus(1).setPrice(1000 + i))), seen);
                }
            }
        }
        exchange.close();
        final List<String> log = new java.util.concurrent.CopyOnWriteArrayList<>();
        exchange = Exchange.start(new ExchangeContext().dataDir(dir).port(0).heartbeatIntervalMs(1500).loginTimeoutMs(1000)
            .sharedLoop(sharedLoop()).log(log::add));
        final String started = log.stream().filter(l -> l.startsWith("egress: tailing")).findFirst().orElseThrow();
        final java.util.regex.Matcher read = java.util.regex.Pattern.compile("\\((\\d+) documents read\\)").matcher(started);
        assertTrue(read.find() && Long.parseLong(read.group(1)) <= 2, started);
        try (RawConnection alice = connect())
        {
            alice.send(Envelope.newBuilder().setLogin(RawConnection.login(key(aliceKey), aliceKey[1],
                System.currentTimeMillis()).setLastSeq(51)).build());
            assertEquals(101, alice.readNonHeartbeat().getLoginAccepted().getLastSeq());
            for (long seq = 52; seq <= 101; seq++)
            {
                final Envelope e = alice.readNonHeartbeat();
                assertEquals(seen.get((int)seq - 2), e.getEvent(), "resent exactly as first sent");
            }
            assertEquals(50, alice.readNonHeartbeat().getResendComplete().getEventsResent());
            final List<AccountEvent> live = new ArrayList<>();
            collect(alice, alice.request(Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
                .setOrderId(101).setMarket("A100-80G").setGpus(1).setPrice(2000))), live);
            assertEquals(102, live.get(0).getSeq(), "live after the resend, numbered on from the engine's state");
        }
    }

    @Test
    void resumeResendsEverythingAfterTheLastSequenceHeld() throws Exception
    {
        try (RawConnection adminConn = loggedIn(admin.keyId(), admin.secret()))
        {
            final String[] aliceKey = account(adminConn, "alice", Role.RENTER, 1_000_000_000L);
            final List<AccountEvent> seen = new ArrayList<>();
            try (RawConnection alice = loggedIn(key(aliceKey), aliceKey[1]))
            {
                for (int i = 1; i <= 200; i++)
                {
                    collect(alice, alice.request(Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
                        .setOrderId(i).setMarket("A100-80G").setGpus(1).setPrice(1000 + i))), seen);
                }
            }
            // 200 ACCEPTED, seq 2 to 201 (the deposit's BALANCE, seq 1, came before the login)
            assertEquals(200, seen.size());
            for (int i = 0; i < 100; i++)
            {
                adminConn.responseTo(adminConn.request(Envelope.newBuilder().setDeposit(
                    Deposit.newBuilder().setAccount("alice").setAmount(1))));
            }
            try (RawConnection alice = connect())
            {
                alice.send(Envelope.newBuilder().setLogin(RawConnection.login(key(aliceKey), aliceKey[1],
                    System.currentTimeMillis()).setLastSeq(37)).build());
                final Envelope accepted = alice.readNonHeartbeat();
                assertEquals(301, accepted.getLoginAccepted().getLastSeq());
                long expect = 38;
                while (true)
                {
                    final Envelope e = alice.readNonHeartbeat();
                    if (e.getBodyCase() == Envelope.BodyCase.RESEND_COMPLETE)
                    {
                        assertEquals(264, e.getResendComplete().getEventsResent());
                        break;
                    }
                    assertEquals(expect++, e.getEvent().getSeq());
                    if (e.getEvent().getSeq() >= 2 && e.getEvent().getSeq() <= 201)
                    {
                        assertEquals(seen.get((int)e.getEvent().getSeq() - 2), e.getEvent(), "resent exactly as first sent");
                    }
                }
                assertEquals(302, expect);
            }
        }
    }

    @Test
    void restartKeepsKeysAccountsAndNumbering() throws Exception
    {
        final String[] aliceKey;
        try (RawConnection adminConn = loggedIn(admin.keyId(), admin.secret()))
        {
            aliceKey = account(adminConn, "alice", Role.RENTER, 5_000_000L);
        }
        exchange.close();
        exchange = start();
        assertEquals(null, exchange.bootstrapKey(), "no new admin key on restart");
        try (RawConnection alice = loggedIn(key(aliceKey), aliceKey[1]))
        {
            final List<AccountEvent> events = new ArrayList<>();
            final Response r = collect(alice, alice.request(Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
                .setOrderId(1).setMarket("L40S-48G").setGpus(1).setPrice(100))), events);
            assertEquals(Reason.REASON_OK, r.getReason());
            assertEquals(2, events.get(0).getSeq(), "numbering carries on from the journal");
        }
    }

    @Test
    void badLoginsAreRefusedWithTheirReason() throws Exception
    {
        try (RawConnection c = connect())
        {
            final Envelope e = c.login(admin.keyId(), "00".repeat(32));
            assertEquals(SessionErrorCode.AUTHENTICATION_FAILED, e.getSessionError().getCode());
            assertTrue(c.closedByServer());
        }
        try (RawConnection c = connect())
        {
            final Envelope e = c.login(999, admin.secret());
            assertEquals(SessionErrorCode.AUTHENTICATION_FAILED, e.getSessionError().getCode());
        }
        try (RawConnection c = connect())
        {
            c.send(Envelope.newBuilder().setLogin(RawConnection.login(admin.keyId(), admin.secret(),
                System.currentTimeMillis() - 120_000)).build());
            assertEquals(SessionErrorCode.STALE_TIMESTAMP, c.readNonHeartbeat().getSessionError().getCode());
        }
        final Login replayed = RawConnection.login(admin.keyId(), admin.secret(), System.currentTimeMillis()).build();
        try (RawConnection c = connect())
        {
            c.send(Envelope.newBuilder().setLogin(replayed).build());
            assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, c.readNonHeartbeat().getBodyCase());
        }
        try (RawConnection c = connect())
        {
            c.send(Envelope.newBuilder().setLogin(replayed).build());
            assertEquals(SessionErrorCode.REPLAYED_NONCE, c.readNonHeartbeat().getSessionError().getCode());
        }
    }

    /** The two deadlines (no Login in time, no heartbeat in time) run out while the other cases are tried. */
    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void misbehavingConnectionsAreClosedWithAReason() throws Exception
    {
        try (RawConnection idle = connect();
             RawConnection silent = loggedIn(admin.keyId(), admin.secret()))
        {
            // send nothing: the server heartbeats, then cuts us off after two intervals of silence
            silent.stopHeartbeats();
            silent.socket.setSoTimeout(10_000);
            try (RawConnection c = connect())
            {
                c.send(Envelope.newBuilder().setRequestId(1).setPlaceBid(PlaceBid.getDefaultInstance()).build());
                assertEquals(SessionErrorCode.NOT_LOGGED_IN, c.readNonHeartbeat().getSessionError().getCode());
                assertTrue(c.closedByServer());
            }
            try (RawConnection c = connect())
            {
                c.sendRaw(new byte[] {0x7f, (byte)0xff, (byte)0xff, (byte)0xff});
                final Envelope e = c.readNonHeartbeat();
                assertEquals(SessionErrorCode.FRAME_TOO_LARGE, e.getSessionError().getCode(), "2 GiB prefix refused at once");
            }
            try (RawConnection c = connect())
            {
                c.sendRaw(new byte[] {0, 0, 0, 3, (byte)0xff, (byte)0xff, (byte)0xff});
                assertEquals(SessionErrorCode.MALFORMED_FRAME, c.readNonHeartbeat().getSessionError().getCode());
            }
            try (RawConnection c = loggedIn(admin.keyId(), admin.secret()))
            {
                c.send(Envelope.newBuilder().setLogin(Login.getDefaultInstance()).build());
                assertEquals(SessionErrorCode.PROTOCOL_VIOLATION, c.readUntil(Envelope.BodyCase.SESSION_ERROR)
                    .getSessionError().getCode());
            }
            final Envelope notLoggedIn = idle.readNonHeartbeat();
            assertEquals(SessionErrorCode.NOT_LOGGED_IN, notLoggedIn.getSessionError().getCode(), "no login in time");
            final Envelope timedOut = silent.readUntil(Envelope.BodyCase.SESSION_ERROR);
            assertEquals(SessionErrorCode.HEARTBEAT_TIMEOUT, timedOut.getSessionError().getCode());
        }
    }

    @Test
    void accountsActOnlyOnWhatIsTheirs() throws Exception
    {
        try (RawConnection adminConn = loggedIn(admin.keyId(), admin.secret()))
        {
            final String[] bobKey = account(adminConn, "bob", Role.OWNER, 0);
            final String[] eveKey = account(adminConn, "eve", Role.MARKET_MAKER, 1_000_000_000L);
            try (RawConnection bob = loggedIn(key(bobKey), bobKey[1]);
                 RawConnection eve = loggedIn(key(eveKey), eveKey[1]))
            {
                final long machine = bob.responseTo(bob.request(Envelope.newBuilder().setRegisterMachine(
                    RegisterMachine.newBuilder().setName("n1").setMarket("H200-141G").setGpus(4))))
                    .getResponse().getAssignedId();
                bob.responseTo(bob.request(Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder()
                    .setOrderId(5).setMachineId(machine).setGpus(4).setPrice(30_000))));

                assertEquals(Reason.NOT_OWNER, eve.responseTo(eve.request(Envelope.newBuilder().setMachineHeartbeat(
                    MachineHeartbeat.newBuilder().setMachineId(machine)))).getResponse().getReason());
                assertEquals(Reason.NOT_OWNER, eve.responseTo(eve.request(Envelope.newBuilder().setPlaceAsk(
                    PlaceAsk.newBuilder().setOrderId(1).setMachineId(machine).setGpus(1).setPrice(10_000))))
                    .getResponse().getReason());
                assertEquals(Reason.UNKNOWN_ORDER, eve.responseTo(eve.request(Envelope.newBuilder().setCancel(
                    Cancel.newBuilder().setOrderId(5)))).getResponse().getReason());
                assertEquals(Reason.NOT_AUTHORIZED, eve.responseTo(eve.request(Envelope.newBuilder().setDeposit(
                    Deposit.newBuilder().setAccount("eve").setAmount(1)))).getResponse().getReason());
                assertEquals(Reason.NOT_AUTHORIZED, bob.responseTo(bob.request(Envelope.newBuilder().setPlaceBid(
                    PlaceBid.newBuilder().setOrderId(9).setMarket("H200-141G").setGpus(1).setPrice(40_000))))
                    .getResponse().getReason());
            }
        }
    }

    @Test
    void marketDataIsASnapshotThenUpdates() throws Exception
    {
        try (RawConnection adminConn = loggedIn(admin.keyId(), admin.secret()))
        {
            final String[] aliceKey = account(adminConn, "alice", Role.RENTER, 1_000_000_000L);
            try (RawConnection alice = loggedIn(key(aliceKey), aliceKey[1]);
                 RawConnection watcher = loggedIn(admin.keyId(), admin.secret()))
            {
                final long sub = watcher.request(Envelope.newBuilder().setSubscribe(Subscribe.newBuilder().setMarket("RTX4090-24G")));
                final Envelope snapshot = watcher.responseTo(sub);
                assertEquals(0, snapshot.getBookSnapshot().getBidsCount());
                alice.responseTo(alice.request(Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
                    .setOrderId(1).setMarket("RTX4090-24G").setGpus(3).setPrice(2_500))));
                final Envelope update = watcher.readUntil(Envelope.BodyCase.BOOK_UPDATE);
                assertEquals(snapshot.getBookSnapshot().getUpdateSeq() + 1, update.getBookUpdate().getUpdateSeq());
                assertEquals(2_500, update.getBookUpdate().getBids(0).getPrice());
                assertEquals(3, update.getBookUpdate().getBids(0).getGpus());
            }
        }
    }
}
