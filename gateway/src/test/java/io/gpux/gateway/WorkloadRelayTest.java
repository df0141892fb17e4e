package io.gpux.gateway;

import io.gpux.gateway.workload.WorkloadAuditJournal;
import io.gpux.proto.v1.EnvVar;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.LaunchWorkload;
import io.gpux.proto.v1.LeaseInfo;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.PortfolioRequest;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Release;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.WorkloadEndpoint;
import io.gpux.proto.v1.WorkloadLaunch;
import io.gpux.proto.v1.WorkloadLog;
import io.gpux.proto.v1.WorkloadLogRequest;
import io.gpux.proto.v1.WorkloadRuntime;
import io.gpux.proto.v1.WorkloadSpec;
import io.gpux.proto.v1.WorkloadState;
import io.gpux.proto.v1.WorkloadStatus;
import io.gpux.proto.v1.WorkloadStatusRequest;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Workloads through the exchange over loopback: launch to the agent, status to the renter, log requests relayed, restarts. */
class WorkloadRelayTest
{
    static final String MARKET = "H100-SXM-80G";
    static final String SECRET_VALUE = "hunter2-is-not-a-password";

    @TempDir
    Path dir;
    private final List<AutoCloseable> open = new ArrayList<>();
    private Exchange exchange;

    /** A renter's live lease on an owner's machine, with both parties logged in. */
    record Leased(RawConnection owner, RawConnection renter, TestExchange.Key ownerKey, TestExchange.Key renterKey,
        long machineId, long leaseId)
    {
    }

    Exchange start(final long logTimeoutMs) throws Exception
    {
        exchange = Exchange.start(new ExchangeContext().dataDir(dir).port(0).bind("127.0.0.1").heartbeatIntervalMs(5_000)
            .workloadLogTimeoutMs(logTimeoutMs).log(line -> { }));
        return exchange;
    }

    @AfterEach
    void tearDown() throws Exception
    {
        for (int i = open.size() - 1; i >= 0; i--)
        {
            open.get(i).close();
        }
        if (exchange != null)
        {
            exchange.close();
        }
    }

    RawConnection login(final TestExchange.Key key) throws IOException
    {
        final RawConnection c = new RawConnection(exchange.port());
        final Envelope accepted = c.login(key.id(), key.secret());
        assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, accepted.getBodyCase(), accepted::toString);
        c.startHeartbeats(1_000);
        open.add(c);
        return c;
    }

    /** An owner with a one-GPU machine offered, a renter who takes it: the lease. */
    static Leased lease(final RawConnection admin, final String tag, final java.util.function.Function<TestExchange.Key, RawConnection> login)
        throws IOException
    {
        final TestExchange.Key ownerKey = TestExchange.account(admin, "owner-" + tag, 0, Role.OWNER);
        final TestExchange.Key renterKey = TestExchange.account(admin, "renter-" + tag, 1_000_000_000_000L, Role.RENTER);
        final RawConnection owner = login.apply(ownerKey);
        final RawConnection renter = login.apply(renterKey);
        final long machine = TestExchange.ok(owner, Envelope.newBuilder().setRegisterMachine(RegisterMachine.newBuilder()
            .setName("rig-" + tag).setMarket(MARKET).setGpus(1))).getAssignedId();
        TestExchange.ok(owner, Envelope.newBuilder().setMachineHeartbeat(MachineHeartbeat.newBuilder().setMachineId(machine)));
        TestExchange.ok(owner, Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder().setOrderId(1).setMachineId(machine)
            .setGpus(1).setPrice(10_000)));
        TestExchange.ok(renter, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder().setOrderId(1).setMarket(MARKET)
            .setGpus(1).setPrice(10_000)));
        final Envelope p = renter.responseTo(renter.request(Envelope.newBuilder().setPortfolioRequest(PortfolioRequest.getDefaultInstance())));
        final List<LeaseInfo> leases = p.getPortfolio().getLeasesList();
        assertEquals(1, leases.size(), leases::toString);
        return new Leased(owner, renter, ownerKey, renterKey, machine, leases.get(0).getLeaseId());
    }

    static WorkloadSpec spec()
    {
        return WorkloadSpec.newBuilder().setRuntime(WorkloadRuntime.WORKLOAD_PROCESS).setCommand("python train.py")
            .addEnv(EnvVar.newBuilder().setName("API_TOKEN").setValue(SECRET_VALUE))
            .addEnv(EnvVar.newBuilder().setName("BATCH").setValue("64")).setCheckpointDir("ckpt").build();
    }

    static Envelope.Builder launch(final long leaseId, final WorkloadSpec spec)
    {
        return Envelope.newBuilder().setLaunchWorkload(LaunchWorkload.newBuilder().setLeaseId(leaseId).setSpec(spec));
    }

    static Envelope.Builder status(final long leaseId, final WorkloadState state)
    {
        return Envelope.newBuilder().setWorkloadStatus(WorkloadStatus.newBuilder().setLeaseId(leaseId).setState(state));
    }

    /** The next WorkloadStatus pushed to the connection. */
    static WorkloadStatus nextStatus(final RawConnection c) throws IOException
    {
        final Envelope e = c.readUntil(Envelope.BodyCase.WORKLOAD_STATUS);
        assertNotNull(e, "closed before a WorkloadStatus");
        assertEquals(0, e.getRequestId(), "a status is pushed");
        return e.getWorkloadStatus();
    }

    static WorkloadLaunch nextLaunch(final RawConnection c) throws IOException
    {
        final Envelope e = c.readUntil(Envelope.BodyCase.WORKLOAD_LAUNCH);
        assertNotNull(e, "closed before a WorkloadLaunch");
        return e.getWorkloadLaunch();
    }

    @Test
    void launchReachesTheAgentItsStatusTheRenterAndTheLogComesBack() throws Exception
    {
        start(10_000);
        final RawConnection admin = login(new TestExchange.Key(exchange.bootstrapKey().keyId(), exchange.bootstrapKey().secret()));
        final Leased l = lease(admin, "a", this::loginUnchecked);

        TestExchange.ok(l.renter(), launch(l.leaseId(), spec()));
        final WorkloadLaunch launched = nextLaunch(l.owner());
        assertEquals(l.leaseId(), launched.getLeaseId());
        assertEquals(l.machineId(), launched.getMachineId());
        assertEquals(1, launched.getGpus());
        assertEquals(spec().toBuilder().setAttempt(1).build(), launched.getSpec(), "the agent gets the env values");
        assertEquals(WorkloadState.WORKLOAD_PENDING, nextStatus(l.renter()).getState());

        TestExchange.ok(l.owner(), Envelope.newBuilder().setWorkloadStatus(WorkloadStatus.newBuilder().setLeaseId(l.leaseId())
            .setState(WorkloadState.WORKLOAD_RUNNING).addEndpoints(WorkloadEndpoint.newBuilder().setPort(8888)
                .setHost("10.0.0.7").setHostPort(32768))));
        final WorkloadStatus running = nextStatus(l.renter());
        assertEquals(WorkloadState.WORKLOAD_RUNNING, running.getState());
        assertEquals(32768, running.getEndpoints(0).getHostPort());
        assertTrue(running.getTimeMs() > 0, "stamped by the exchange");
        final Envelope asked1 = l.renter().responseTo(l.renter().request(Envelope.newBuilder().setWorkloadStatusRequest(
            WorkloadStatusRequest.newBuilder().setLeaseId(l.leaseId()))));
        assertEquals(running, asked1.getWorkloadStatus(), asked1::toString);

        final long asked = l.renter().request(Envelope.newBuilder().setWorkloadLogRequest(
            WorkloadLogRequest.newBuilder().setLeaseId(l.leaseId()).setLines(2)));
        final Envelope relayed = l.owner().readUntil(Envelope.BodyCase.WORKLOAD_LOG_REQUEST);
        assertEquals(2, relayed.getWorkloadLogRequest().getLines());
        assertTrue(relayed.getRequestId() != 0, "the relay has its own request id");
        l.owner().send(Envelope.newBuilder().setRequestId(relayed.getRequestId()).setWorkloadLog(WorkloadLog.newBuilder()
            .setLeaseId(l.leaseId()).addLines("step 1").addLines("step 2")).build());
        final Envelope log = l.renter().responseTo(asked);
        assertEquals(List.of("step 1", "step 2"), log.getWorkloadLog().getLinesList(), log::toString);

        // a reconnecting agent learns its launch again, a reconnecting renter its status
        final WorkloadLaunch relearned = nextLaunch(login(l.ownerKey()));
        assertEquals(launched, relearned);
        assertEquals(running, nextStatus(login(l.renterKey())));

        final String audit = Files.readString(dir.resolve(WorkloadAuditJournal.FILE), StandardCharsets.ISO_8859_1);
        assertTrue(audit.contains("API_TOKEN") && audit.contains("renter-a"), "the journal names who launched what");
        assertFalse(audit.contains(SECRET_VALUE), "env values are never in clear");
        assertFalse(audit.contains("64\u0012"), "not even short ones");
    }

    @Test
    void refusalsSayWhy() throws Exception
    {
        start(300);
        final RawConnection admin = login(new TestExchange.Key(exchange.bootstrapKey().keyId(), exchange.bootstrapKey().secret()));
        final Leased l = lease(admin, "b", this::loginUnchecked);

        assertRefused(l.renter(), Reason.INVALID_REQUEST, "a process workload needs a command",
            launch(l.leaseId(), WorkloadSpec.newBuilder().setRuntime(WorkloadRuntime.WORKLOAD_PROCESS).build()));
        assertRefused(l.renter(), Reason.INVALID_REQUEST, "env CUDA_VISIBLE_DEVICES is the agent's to set",
            launch(l.leaseId(), spec().toBuilder().addEnv(EnvVar.newBuilder().setName("CUDA_VISIBLE_DEVICES").setValue("0")).build()));
        assertRefused(l.renter(), Reason.UNKNOWN_LEASE, "lease " + (l.leaseId() + 1000) + " is not live",
            launch(l.leaseId() + 1000, spec()));
        assertRefused(l.renter(), Reason.UNKNOWN_LEASE, "no workload was launched on lease " + l.leaseId(),
            Envelope.newBuilder().setWorkloadLogRequest(WorkloadLogRequest.newBuilder().setLeaseId(l.leaseId())));
        assertRefused(l.owner(), Reason.UNKNOWN_LEASE, "no workload was launched on lease " + l.leaseId(),
            status(l.leaseId(), WorkloadState.WORKLOAD_RUNNING));
        assertRefused(l.renter(), Reason.UNKNOWN_LEASE, "no workload was launched on lease " + l.leaseId(),
            Envelope.newBuilder().setWorkloadStatusRequest(WorkloadStatusRequest.newBuilder().setLeaseId(l.leaseId())));

        TestExchange.ok(l.renter(), launch(l.leaseId(), spec()));
        assertRefused(l.renter(), Reason.DUPLICATE_ID, "lease " + l.leaseId() + " already has a workload",
            launch(l.leaseId(), spec()));
        assertRefused(l.owner(), Reason.INVALID_REQUEST, "an agent reports STARTING, RUNNING, EXITED, FAILED or STOPPED",
            status(l.leaseId(), WorkloadState.WORKLOAD_PENDING));

        // the owner's agent is connected but does not answer: the renter hears so after the timeout
        assertRefused(l.renter(), Reason.UNAVAILABLE, "the agent of machine " + l.machineId() + " did not answer within 300 ms",
            Envelope.newBuilder().setWorkloadLogRequest(WorkloadLogRequest.newBuilder().setLeaseId(l.leaseId())));
        l.owner().close();
        // the gateway learns of the close when its event loop reads it: until then the agent still counts as connected
        final long seen = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        Response gone;
        do
        {
            gone = TestExchange.response(l.renter(),
                Envelope.newBuilder().setWorkloadLogRequest(WorkloadLogRequest.newBuilder().setLeaseId(l.leaseId())));
        }
        while (gone.getMessage().contains("did not answer") && System.nanoTime() < seen);
        assertEquals(Reason.UNAVAILABLE, gone.getReason(), gone::toString);
        assertEquals("the agent of machine " + l.machineId() + " is not connected", gone.getMessage());

        TestExchange.ok(l.renter(), Envelope.newBuilder().setRelease(Release.newBuilder().setLeaseId(l.leaseId())));
        assertRefused(l.renter(), Reason.UNKNOWN_LEASE, "lease " + l.leaseId() + " is not live",
            Envelope.newBuilder().setWorkloadLogRequest(WorkloadLogRequest.newBuilder().setLeaseId(l.leaseId())));
    }

    @Test
    void aRestartedExchangeTellsTheAgentItsLaunchAndTheRenterItsStatus() throws Exception
    {
        start(10_000);
        final TestExchange.Key adminKey = new TestExchange.Key(exchange.bootstrapKey().keyId(), exchange.bootstrapKey().secret());
        final Leased l = lease(login(adminKey), "c", this::loginUnchecked);
        TestExchange.ok(l.renter(), launch(l.leaseId(), spec()));
        nextLaunch(l.owner());
        assertEquals(WorkloadState.WORKLOAD_PENDING, nextStatus(l.renter()).getState());
        TestExchange.ok(l.owner(), status(l.leaseId(), WorkloadState.WORKLOAD_RUNNING));
        assertEquals(WorkloadState.WORKLOAD_RUNNING, nextStatus(l.renter()).getState());
        for (final AutoCloseable c : open)
        {
            c.close();
        }
        open.clear();
        exchange.close();

        start(10_000);
        final RawConnection owner = login(l.ownerKey());
        final WorkloadLaunch again = nextLaunch(owner);
        assertEquals(spec().toBuilder().setAttempt(1).build(), again.getSpec(), "env values come back from the sealed journal");
        assertEquals(l.machineId(), again.getMachineId());
        final RawConnection renter = login(l.renterKey());
        final WorkloadStatus status = nextStatus(renter);
        assertEquals(l.leaseId(), status.getLeaseId());
        assertEquals(WorkloadState.WORKLOAD_RUNNING, status.getState());

        TestExchange.ok(owner, status(l.leaseId(), WorkloadState.WORKLOAD_EXITED));
        assertEquals(WorkloadState.WORKLOAD_EXITED, nextStatus(renter).getState());
    }

    private RawConnection loginUnchecked(final TestExchange.Key key)
    {
        try
        {
            return login(key);
        }
        catch (final IOException ex)
        {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    static void assertRefused(final RawConnection c, final Reason reason, final String message, final Envelope.Builder request)
        throws IOException
    {
        final Response r = TestExchange.response(c, request);
        assertEquals(reason, r.getReason(), r::toString);
        assertEquals(message, r.getMessage());
    }
}
