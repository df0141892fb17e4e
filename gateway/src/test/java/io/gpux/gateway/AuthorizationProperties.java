package io.gpux.gateway;

import io.gpux.engine.StressTries;
import io.gpux.proto.v1.Cancel;
import io.gpux.proto.v1.Configure;
import io.gpux.proto.v1.CreateAccount;
import io.gpux.proto.v1.CreateKey;
import io.gpux.proto.v1.CreateMarket;
import io.gpux.proto.v1.Deposit;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.HaltMarket;
import io.gpux.proto.v1.LeaseInfo;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.MachineInfo;
import io.gpux.proto.v1.MassCancel;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.PortfolioRequest;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Release;
import io.gpux.proto.v1.Replace;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.ResumeMarket;
import io.gpux.proto.v1.RevokeKey;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.SessionErrorCode;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Nobody acts on what is not theirs. Each try makes two fresh accounts with random roles through the
 * admin key, a target (with, as its roles allow, a resting bid, a machine with an ask, a lease) and
 * an actor; the actor tries one thing on the target's orders, machine or lease, or an admin request
 * without the ADMIN role. It must be refused with the reason docs/protocol.md gives, and leave the
 * target's state (its Portfolio: funds, orders, leases, machines, event count) exactly as it was;
 * then the same thing done by the target (or, for admin requests, by the admin) works.
 *
 * <p>One exchange serves every try of the run (started before the container, closed after it).
 *
 * <p>Ten times the tries under {@code -Pstress} ({@link StressTries}).
 */
@AddLifecycleHook(StressTries.class)
class AuthorizationProperties
{
    private static final String MARKET = "AUTHZ-1";
    private static final String HALT_MARKET = "AUTHZ-HALT";
    private static final List<Role> ROLES = List.of(Role.RENTER, Role.OWNER, Role.MARKET_MAKER, Role.ADMIN);
    private static final long LEASE_PRICE = 10_000;
    private static final long RESTING_BID_PRICE = 1_000;
    private static final long ASK_PRICE = 900_000;

    private static final AtomicInteger TRIES = new AtomicInteger();
    private static TestExchange ex;
    private static RawConnection admin;
    private static RawConnection house;

    enum Action
    {
        CANCEL, CANCEL_RECLAIM, REPLACE, MASS_CANCEL, HEARTBEAT_MACHINE, ASK_ON_MACHINE, REGISTER_SAME_MACHINE_NAME, RELEASE,
        DEPOSIT, CREATE_KEY, REVOKE_KEY, HALT_MARKET, CREATE_ACCOUNT, CREATE_MARKET, CONFIGURE
    }

    record Case(Set<Role> actor, Set<Role> target, Action action, long orderId)
    {
    }

    /** What the target was given to be protected. 0: none (its roles do not allow it). */
    record Holdings(long bidId, long askId, long machineId, long leaseId, TestExchange.Key key)
    {
    }

    @BeforeContainer
    static void startExchange() throws Exception
    {
        ex = TestExchange.start(c -> c.heartbeatIntervalMs(5_000).loginTimeoutMs(10_000));
        admin = ex.login(ex.admin);
        admin.startHeartbeats(1_000);
        TestExchange.ok(admin, Envelope.newBuilder().setCreateMarket(CreateMarket.newBuilder().setSymbol(MARKET)));
        TestExchange.ok(admin, Envelope.newBuilder().setCreateMarket(CreateMarket.newBuilder().setSymbol(HALT_MARKET)));
        house = ex.login(TestExchange.account(admin, "house", 0, Role.OWNER));
        house.startHeartbeats(1_000);
    }

    @AfterContainer
    static void stopExchange() throws IOException
    {
        try
        {
            if (house != null)
            {
                house.close();
            }
            if (admin != null)
            {
                admin.close();
            }
        }
        finally
        {
            if (ex != null)
            {
                ex.close();
            }
        }
    }

    static boolean canBid(final Set<Role> roles)
    {
        return roles.contains(Role.RENTER) || roles.contains(Role.MARKET_MAKER);
    }

    static boolean canAsk(final Set<Role> roles)
    {
        return roles.contains(Role.OWNER) || roles.contains(Role.MARKET_MAKER);
    }

    /** The actions that make sense for the pair: the target has something to protect; admin requests only from non-admins. */
    static List<Action> applicable(final Set<Role> actor, final Set<Role> target)
    {
        final List<Action> actions = new ArrayList<>();
        actions.add(Action.MASS_CANCEL);
        if (canBid(target) || canAsk(target))
        {
            actions.add(Action.CANCEL);
            actions.add(Action.REPLACE);
        }
        if (canAsk(target))
        {
            actions.addAll(List.of(Action.CANCEL_RECLAIM, Action.HEARTBEAT_MACHINE, Action.ASK_ON_MACHINE,
                Action.REGISTER_SAME_MACHINE_NAME));
        }
        if (canBid(target))
        {
            actions.add(Action.RELEASE);
        }
        if (!actor.contains(Role.ADMIN))
        {
            actions.addAll(List.of(Action.DEPOSIT, Action.CREATE_KEY, Action.REVOKE_KEY, Action.HALT_MARKET,
                Action.CREATE_ACCOUNT, Action.CREATE_MARKET, Action.CONFIGURE));
        }
        return actions;
    }

    @Provide
    Arbitrary<Case> cases()
    {
        final Arbitrary<Set<Role>> roles = Arbitraries.of(ROLES).set().ofMinSize(1).ofMaxSize(ROLES.size());
        // order ids are the client's uint64: the high half (negative as a Java long) too
        final Arbitrary<Long> orderIds = Arbitraries.oneOf(
            Arbitraries.longs().between(1, 1_000), Arbitraries.longs().between(1, Long.MAX_VALUE - 3),
            Arbitraries.longs().between(Long.MIN_VALUE, -4));
        return Combinators.combine(roles, roles, orderIds).flatAs((actor, target, id) ->
            Arbitraries.of(applicable(actor, target)).map(action -> new Case(actor, target, action, id)));
    }

    @Property(tries = 50)
    void nobodyActsOnWhatIsNotTheirs(@ForAll("cases") final Case c) throws Exception
    {
        Statistics.collect(c.action());
        final int n = TRIES.incrementAndGet();
        final TestExchange.Key targetKey = TestExchange.account(admin, "target-" + n, 1_000_000_000_000L, roles(c.target()));
        final TestExchange.Key actorKey = TestExchange.account(admin, "actor-" + n, 1_000_000_000_000L, roles(c.actor()));
        try (RawConnection target = ex.login(targetKey); RawConnection actor = ex.login(actorKey))
        {
            final Holdings h = holdings(target, targetKey, c, n);
            final Portfolio before = portfolio(target);

            attempt(actor, c, h, n);

            assertEquals(comparable(before), comparable(portfolio(target)), "the target's state did not change");
            if (c.action() == Action.REVOKE_KEY)
            {
                try (RawConnection again = ex.login(targetKey))
                {
                    assertNotNull(again, "the target's key still works");
                }
            }

            ownerDoes(target, c, h, n, before);
        }
    }

    private static Role[] roles(final Set<Role> roles)
    {
        return roles.toArray(new Role[0]);
    }

    /** Gives the target what its roles allow: a resting bid and a lease (bidders), a machine with an ask (askers). */
    private static Holdings holdings(final RawConnection target, final TestExchange.Key key, final Case c, final int n)
        throws IOException
    {
        long bidId = 0;
        long askId = 0;
        long machineId = 0;
        long leaseId = 0;
        if (canAsk(c.target()))
        {
            machineId = TestExchange.ok(target, Envelope.newBuilder().setRegisterMachine(RegisterMachine.newBuilder()
                .setName("rig").setMarket(MARKET).setGpus(8))).getAssignedId();
            TestExchange.ok(target, Envelope.newBuilder().setMachineHeartbeat(MachineHeartbeat.newBuilder().setMachineId(machineId)));
            askId = c.orderId() + 1;
            TestExchange.ok(target, Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder()
                .setOrderId(askId).setMachineId(machineId).setGpus(4).setPrice(ASK_PRICE)));
        }
        if (canBid(c.target()))
        {
            bidId = c.orderId();
            TestExchange.ok(target, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
                .setOrderId(bidId).setMarket(MARKET).setGpus(1).setPrice(RESTING_BID_PRICE)));
            // a lease: the house offers one GPU, the target takes it at once
            final long houseMachine = TestExchange.ok(house, Envelope.newBuilder().setRegisterMachine(RegisterMachine.newBuilder()
                .setName("h" + n).setMarket(MARKET).setGpus(1))).getAssignedId();
            TestExchange.ok(house, Envelope.newBuilder().setMachineHeartbeat(MachineHeartbeat.newBuilder().setMachineId(houseMachine)));
            TestExchange.ok(house, Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder()
                .setOrderId(n).setMachineId(houseMachine).setGpus(1).setPrice(LEASE_PRICE)));
            TestExchange.ok(target, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
                .setOrderId(c.orderId() + 2).setMarket(MARKET).setGpus(1).setPrice(LEASE_PRICE)));
            final List<LeaseInfo> leases = portfolio(target).getLeasesList();
            assertEquals(1, leases.size(), leases::toString);
            assertTrue(leases.get(0).getRenter());
            leaseId = leases.get(0).getLeaseId();
        }
        return new Holdings(bidId, askId, machineId, leaseId, key);
    }

    private static long anOrder(final Holdings h)
    {
        return h.bidId() != 0 ? h.bidId() : h.askId();
    }

    /**
     * The price a REPLACE of {@link #anOrder} moves it to: a step away on its own side of the book. An ask
     * moved down to a bid's price would stay in the book after its try and trade with a later try's bids
     * (one run did: a later target's resting bid took it, and that target had two leases instead of one).
     */
    private static long replacedPrice(final Holdings h)
    {
        return h.bidId() != 0 ? RESTING_BID_PRICE - 1 : ASK_PRICE - 1;
    }

    /** The actor's attempt; asserts the refusal. */
    private static void attempt(final RawConnection actor, final Case c, final Holdings h, final int n) throws IOException
    {
        final Response r;
        switch (c.action())
        {
            case CANCEL -> refused(actor, Reason.UNKNOWN_ORDER, Envelope.newBuilder().setCancel(Cancel.newBuilder().setOrderId(anOrder(h))));
            case CANCEL_RECLAIM -> refused(actor, Reason.UNKNOWN_ORDER, Envelope.newBuilder().setCancel(
                Cancel.newBuilder().setOrderId(h.askId()).setReclaim(true)));
            case REPLACE -> refused(actor, Reason.UNKNOWN_ORDER, Envelope.newBuilder().setReplace(
                Replace.newBuilder().setOrderId(anOrder(h)).setPrice(replacedPrice(h)).setGpus(1)));
            case MASS_CANCEL ->
            {
                r = TestExchange.response(actor, Envelope.newBuilder().setMassCancel(MassCancel.getDefaultInstance()));
                assertEquals(Reason.REASON_OK, r.getReason(), "a mass cancel is of the actor's own orders: " + r);
            }
            case HEARTBEAT_MACHINE -> refused(actor, Reason.NOT_OWNER, Envelope.newBuilder().setMachineHeartbeat(
                MachineHeartbeat.newBuilder().setMachineId(h.machineId())));
            case ASK_ON_MACHINE -> refused(actor, canAsk(c.actor()) ? Reason.NOT_OWNER : Reason.NOT_AUTHORIZED,
                Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder().setOrderId(7).setMachineId(h.machineId())
                    .setGpus(1).setPrice(ASK_PRICE)));
            case REGISTER_SAME_MACHINE_NAME ->
            {
                final Envelope.Builder register = Envelope.newBuilder().setRegisterMachine(RegisterMachine.newBuilder()
                    .setName("rig").setMarket(MARKET).setGpus(8));
                if (canAsk(c.actor()))
                {
                    r = TestExchange.ok(actor, register);
                    assertNotEquals(h.machineId(), r.getAssignedId(), "machine names are per owner");
                }
                else
                {
                    refused(actor, Reason.NOT_AUTHORIZED, register);
                }
            }
            case RELEASE ->
            {
                refused(actor, Reason.NOT_AUTHORIZED, Envelope.newBuilder().setRelease(Release.newBuilder().setLeaseId(h.leaseId())));
                refused(house, Reason.NOT_AUTHORIZED, Envelope.newBuilder().setRelease(Release.newBuilder().setLeaseId(h.leaseId())));
                refused(actor, Reason.UNKNOWN_LEASE, Envelope.newBuilder().setRelease(Release.newBuilder().setLeaseId(h.leaseId() + 1_000_000)));
            }
            default -> refused(actor, Reason.NOT_AUTHORIZED, adminRequest(c.action(), h, n));
        }
    }

    private static void refused(final RawConnection c, final Reason expected, final Envelope.Builder request) throws IOException
    {
        final String asked = request.getBodyCase().toString();
        final Response r = TestExchange.response(c, request);
        assertEquals(expected, r.getReason(), () -> asked + " answered " + r);
    }

    private static Envelope.Builder adminRequest(final Action action, final Holdings h, final int n)
    {
        return switch (action)
        {
            case DEPOSIT -> Envelope.newBuilder().setDeposit(Deposit.newBuilder().setAccount("target-" + n).setAmount(5_000_000));
            case CREATE_KEY -> Envelope.newBuilder().setCreateKey(CreateKey.newBuilder().setAccount("target-" + n));
            case REVOKE_KEY -> Envelope.newBuilder().setRevokeKey(RevokeKey.newBuilder().setKeyId(h.key().id()));
            case HALT_MARKET -> Envelope.newBuilder().setHaltMarket(HaltMarket.newBuilder().setMarket(HALT_MARKET));
            case CREATE_ACCOUNT -> Envelope.newBuilder().setCreateAccount(CreateAccount.newBuilder()
                .setName("made-" + n).addRoles(Role.ADMIN));
            case CREATE_MARKET -> Envelope.newBuilder().setCreateMarket(CreateMarket.newBuilder().setSymbol("AZ-" + n));
            // the values the exchange already has (default-markets.scn)
            case CONFIGURE -> Envelope.newBuilder().setConfigure(Configure.newBuilder()
                .setHeartbeatIntervalMs(5_000).setHeartbeatTimeoutMs(15_000));
            default -> throw new IllegalArgumentException(action.toString());
        };
    }

    /** The same action by its rightful party works. */
    private static void ownerDoes(final RawConnection target, final Case c, final Holdings h, final int n, final Portfolio before)
        throws IOException
    {
        switch (c.action())
        {
            case CANCEL ->
            {
                TestExchange.ok(target, Envelope.newBuilder().setCancel(Cancel.newBuilder().setOrderId(anOrder(h))));
                assertTrue(portfolio(target).getOrdersList().stream().noneMatch(o -> o.getOrderId() == anOrder(h)));
            }
            case CANCEL_RECLAIM ->
            {
                TestExchange.ok(target, Envelope.newBuilder().setCancel(Cancel.newBuilder().setOrderId(h.askId()).setReclaim(true)));
                assertTrue(portfolio(target).getOrdersList().stream().noneMatch(o -> o.getOrderId() == h.askId()));
            }
            case REPLACE ->
            {
                TestExchange.ok(target, Envelope.newBuilder().setReplace(
                    Replace.newBuilder().setOrderId(anOrder(h)).setPrice(replacedPrice(h)).setGpus(1)));
                assertTrue(portfolio(target).getOrdersList().stream()
                    .anyMatch(o -> o.getOrderId() == anOrder(h) && o.getPrice() == replacedPrice(h)));
            }
            case MASS_CANCEL ->
            {
                TestExchange.ok(target, Envelope.newBuilder().setMassCancel(MassCancel.getDefaultInstance()));
                assertEquals(0, portfolio(target).getOrdersCount());
            }
            case HEARTBEAT_MACHINE -> TestExchange.ok(target, Envelope.newBuilder().setMachineHeartbeat(
                MachineHeartbeat.newBuilder().setMachineId(h.machineId())));
            case ASK_ON_MACHINE ->
            {
                // an id none of the target's orders has (its orders are c.orderId() to c.orderId() + 2)
                TestExchange.ok(target, Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder().setOrderId(c.orderId() + 3)
                    .setMachineId(h.machineId()).setGpus(1).setPrice(ASK_PRICE)));
                assertEquals(before.getOrdersCount() + 1, portfolio(target).getOrdersCount());
            }
            case REGISTER_SAME_MACHINE_NAME -> assertEquals(h.machineId(), TestExchange.ok(target, Envelope.newBuilder()
                .setRegisterMachine(RegisterMachine.newBuilder().setName("rig").setMarket(MARKET).setGpus(8))).getAssignedId());
            case RELEASE ->
            {
                TestExchange.ok(target, Envelope.newBuilder().setRelease(Release.newBuilder().setLeaseId(h.leaseId())));
                assertEquals(0, portfolio(target).getLeasesCount());
            }
            case DEPOSIT ->
            {
                TestExchange.ok(admin, adminRequest(c.action(), h, n));
                assertEquals(before.getBalance() + 5_000_000, portfolio(target).getBalance());
            }
            case HALT_MARKET ->
            {
                TestExchange.ok(admin, adminRequest(c.action(), h, n));
                TestExchange.ok(admin, Envelope.newBuilder().setResumeMarket(ResumeMarket.newBuilder().setMarket(HALT_MARKET)));
            }
            case REVOKE_KEY ->
            {
                TestExchange.ok(admin, adminRequest(c.action(), h, n));
                try (RawConnection refused = ex.connect())
                {
                    final Envelope e = refused.login(h.key().id(), h.key().secret());
                    assertEquals(SessionErrorCode.AUTHENTICATION_FAILED, e.getSessionError().getCode(), e::toString);
                }
            }
            default -> TestExchange.ok(admin, adminRequest(c.action(), h, n));
        }
    }

    private static Portfolio portfolio(final RawConnection c) throws IOException
    {
        final Envelope e = c.responseTo(c.request(Envelope.newBuilder().setPortfolioRequest(PortfolioRequest.getDefaultInstance())));
        assertEquals(Envelope.BodyCase.PORTFOLIO, e.getBodyCase(), e::toString);
        return e.getPortfolio();
    }

    /** A portfolio without what changes by itself with time (a machine's online flag, reliability, telemetry). */
    private static Portfolio comparable(final Portfolio p)
    {
        // what moves with time alone: the read's time, the leases' costs so far, the machines' state
        final Portfolio.Builder b = p.toBuilder().clearMachines().clearLeases().clearTimeMs();
        for (final LeaseInfo l : p.getLeasesList())
        {
            b.addLeases(l.toBuilder().clearCost().clearFee());
        }
        for (final MachineInfo m : p.getMachinesList())
        {
            b.addMachines(m.toBuilder().clearOnline().clearReliabilityPpm().clearTelemetry().clearTelemetryMs());
        }
        return b.build();
    }
}
