package io.gpux.gateway;

import io.gpux.engine.StressTries;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.PortfolioRequest;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.WorkloadLogRequest;
import io.gpux.proto.v1.WorkloadState;
import io.gpux.proto.v1.WorkloadStatusRequest;
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
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * Nobody launches on, reports for, or reads the workload of a lease that is not theirs, and nobody
 * but its renter sees its status. Each try leases one GPU of a fresh owner to a fresh renter and
 * picks an actor (another renter, another owner, an account with both roles, the admin, the lease's
 * owner acting as its renter, the lease's renter acting as its owner) and a request; the actor's
 * request is refused NOT_AUTHORIZED, the rightful party's works, and up to a marker (the actor's own
 * Portfolio answer, after the renter has seen the status) the actor was sent no workload message.
 *
 * <p>Ten times the tries under {@code -Pstress} ({@link StressTries}).
 */
@AddLifecycleHook(StressTries.class)
class WorkloadAuthorizationProperties
{
    private static final AtomicInteger TRIES = new AtomicInteger();
    private static TestExchange ex;
    private static RawConnection admin;
    private static final List<RawConnection> OPEN = new ArrayList<>();

    enum Actor
    {
        OTHER_RENTER, OTHER_OWNER, BOTH_ROLES, ADMIN, OWNER_AS_RENTER, RENTER_AS_OWNER
    }

    enum Request
    {
        LAUNCH, LOG, STATUS, STATUS_REQUEST
    }

    record Case(Actor actor, Request request, boolean beforeLaunch)
    {
    }

    @BeforeContainer
    static void startExchange() throws Exception
    {
        ex = TestExchange.start(c -> c.heartbeatIntervalMs(5_000).loginTimeoutMs(10_000).workloadLogTimeoutMs(5_000));
        admin = ex.login(ex.admin);
        admin.startHeartbeats(1_000);
    }

    @AfterContainer
    static void stopExchange() throws IOException
    {
        try
        {
            for (final RawConnection c : OPEN)
            {
                c.close();
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

    @Provide
    Arbitrary<Case> cases()
    {
        return Combinators.combine(Arbitraries.of(Actor.class), Arbitraries.of(Request.class), Arbitraries.of(true, false))
            .as(Case::new)
            // the lease's renter launching and reading, or its owner reporting, is not an intrusion
            .filter(c -> !(c.actor() == Actor.RENTER_AS_OWNER && c.request() != Request.STATUS))
            .filter(c -> !(c.actor() == Actor.OWNER_AS_RENTER && c.request() == Request.STATUS));
    }

    @Property(tries = 50)
    void nobodyTouchesOrSeesAnotherRentersWorkload(@ForAll("cases") final Case c) throws Exception
    {
        Statistics.collect(c.actor(), c.request());
        final int n = TRIES.incrementAndGet();
        final WorkloadRelayTest.Leased l = WorkloadRelayTest.lease(admin, "p" + n, WorkloadAuthorizationProperties::login);
        final RawConnection actor = switch (c.actor())
        {
            case OTHER_RENTER -> login(TestExchange.account(admin, "x-renter-" + n, 1_000_000_000L, Role.RENTER));
            case OTHER_OWNER -> login(TestExchange.account(admin, "x-owner-" + n, 0, Role.OWNER));
            case BOTH_ROLES -> login(TestExchange.account(admin, "x-both-" + n, 1_000_000_000L, Role.RENTER, Role.OWNER,
                Role.MARKET_MAKER));
            case ADMIN -> admin;
            case OWNER_AS_RENTER -> l.owner();
            case RENTER_AS_OWNER -> l.renter();
        };
        if (!c.beforeLaunch())
        {
            launchAndRun(l);
        }

        final Envelope.Builder request = switch (c.request())
        {
            case LAUNCH -> WorkloadRelayTest.launch(l.leaseId(), WorkloadRelayTest.spec());
            case LOG -> Envelope.newBuilder().setWorkloadLogRequest(WorkloadLogRequest.newBuilder().setLeaseId(l.leaseId()));
            case STATUS -> WorkloadRelayTest.status(l.leaseId(), WorkloadState.WORKLOAD_FAILED);
            case STATUS_REQUEST -> Envelope.newBuilder().setWorkloadStatusRequest(
                WorkloadStatusRequest.newBuilder().setLeaseId(l.leaseId()));
        };
        final io.gpux.proto.v1.Response r = TestExchange.response(actor, request);
        assertEquals(Reason.NOT_AUTHORIZED, r.getReason(), () -> c + " answered " + r);

        if (c.beforeLaunch())
        {
            launchAndRun(l);
        }
        if (actor != l.owner() && actor != l.renter())
        {
            assertSawNoWorkload(actor, c);
        }
        // the owner was relayed no log request of the actor's, the renter saw no status but the agent's
        assertSawNoWorkload(l.owner(), c);
        final long asked = l.renter().request(Envelope.newBuilder().setPortfolioRequest(PortfolioRequest.getDefaultInstance()));
        while (true)
        {
            final Envelope e = l.renter().readNonHeartbeat();
            assertNotNull(e, "the renter's connection closed");
            if (e.getRequestId() == asked)
            {
                break;
            }
            if (e.getBodyCase() == Envelope.BodyCase.WORKLOAD_STATUS)
            {
                assertEquals(WorkloadState.WORKLOAD_RUNNING, e.getWorkloadStatus().getState(), "only the agent's status: " + c);
            }
        }
        l.owner().close();
        l.renter().close();
        if (actor != admin && actor != l.owner() && actor != l.renter())
        {
            actor.close();
        }
    }

    /** The renter launches, the owner's agent gets it and reports RUNNING, the renter sees it. */
    private static void launchAndRun(final WorkloadRelayTest.Leased l) throws IOException
    {
        TestExchange.ok(l.renter(), WorkloadRelayTest.launch(l.leaseId(), WorkloadRelayTest.spec()));
        assertEquals(l.leaseId(), WorkloadRelayTest.nextLaunch(l.owner()).getLeaseId());
        assertEquals(WorkloadState.WORKLOAD_PENDING, WorkloadRelayTest.nextStatus(l.renter()).getState());
        TestExchange.ok(l.owner(), WorkloadRelayTest.status(l.leaseId(), WorkloadState.WORKLOAD_RUNNING));
        assertEquals(WorkloadState.WORKLOAD_RUNNING, WorkloadRelayTest.nextStatus(l.renter()).getState());
    }

    /** Up to the answer of a Portfolio request, the connection was sent nothing of the workload but its own launch. */
    private static void assertSawNoWorkload(final RawConnection c, final Case k) throws IOException
    {
        final long marker = c.request(Envelope.newBuilder().setPortfolioRequest(PortfolioRequest.getDefaultInstance()));
        while (true)
        {
            final Envelope e = c.readNonHeartbeat();
            assertNotNull(e, "closed before the marker");
            if (e.getRequestId() == marker)
            {
                return;
            }
            final Envelope.BodyCase kind = e.getBodyCase();
            if (kind == Envelope.BodyCase.WORKLOAD_STATUS || kind == Envelope.BodyCase.WORKLOAD_LOG
                || kind == Envelope.BodyCase.WORKLOAD_LOG_REQUEST || kind == Envelope.BodyCase.WORKLOAD_LAUNCH)
            {
                throw new AssertionError(k + ": sent " + e);
            }
        }
    }

    private static RawConnection login(final TestExchange.Key key)
    {
        try
        {
            final RawConnection c = ex.login(key);
            c.startHeartbeats(1_000);
            OPEN.add(c);
            return c;
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }
}
