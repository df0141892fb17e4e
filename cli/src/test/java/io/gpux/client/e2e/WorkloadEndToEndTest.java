package io.gpux.client.e2e;

import io.gpux.client.GpuxClient;
import io.gpux.common.Money;
import io.gpux.client.agent.AgentWorkloads;
import io.gpux.client.agent.OwnerAgent;
import io.gpux.client.agent.workload.ProcessRuntime;
import io.gpux.client.agent.workload.WorkloadSupervisorContext;
import io.gpux.client.workload.WorkloadSpec;
import io.gpux.client.workload.WorkloadSpecs;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Release;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.WorkloadLog;
import io.gpux.proto.v1.WorkloadState;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static io.gpux.client.e2e.E2e.TIMEOUT;
import static io.gpux.client.e2e.E2e.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A renter's workload run by the owner agent, through a real server process: the agent on the fake
 * nvidia-smi (one H200) with the process runtime. The markets are in {@code e2e/workloads.scn}. The tests
 * share one server process, each with accounts of its own.
 */
@DisabledOnOs(OS.WINDOWS)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class WorkloadEndToEndTest
{
    /** A job that runs until SIGTERM, then prints the notice file and exits 0. */
    private static final String TRAP_TERM =
        "trap 'echo got-term; cat \"$GPUX_NOTICE_FILE\"; exit 0' TERM; echo started; while true; do sleep 0.1; done";

    @RegisterExtension
    static final SharedServer SHARED = new SharedServer("workloads.scn", 1000);

    @TempDir
    Path dir;

    @RegisterExtension
    final DumpOnFailure dump = new DumpOnFailure();

    private ServerProcess server;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final Recorder renterEvents = new Recorder("renter");
    private final WorkloadStatuses statuses = new WorkloadStatuses();
    private final List<String> agentLog = new CopyOnWriteArrayList<>();
    private final java.util.Set<Long> leases = new java.util.HashSet<>();
    /** The test's own market (WL-1, WL-2, WL-3). */
    private String market;
    private GpuxClient admin;
    private GpuxClient owner;
    private GpuxClient renter;

    @BeforeEach
    void openAccounts() throws Exception
    {
        server = SHARED.server();
        market = "WL-" + SHARED.test();
        dump.register("server", server::log);
        dump.register("agent", () -> String.join("\n", agentLog));
        dump.register("statuses", statuses::toString);
        dump.register("renter", () -> E2e.describe(renterEvents.events()));
        admin = connect(server.adminKey(), new Recorder("admin"));
        owner = connect(E2e.account(admin, SHARED.name("owner"), Role.OWNER, 0), new Recorder("owner"));
        renter = connect(E2e.account(admin, SHARED.name("renter"), Role.RENTER, 1_000_000_000L), renterEvents);
        renter.addListener(statuses);
    }

    @AfterEach
    void tearDown()
    {
        E2e.closeAllQuietly(closeables, null);
    }

    @Test
    void theRenterRunsAJobSeesItExitReadsItsLogAndAPreemptionStopsTheNext() throws Exception
    {
        final Path stateDir = dir.resolve("agent-state");
        final OwnerAgent agent = agent(new WorkloadSupervisorContext().stateDir(stateDir)
            .runtime(new ProcessRuntime(null, agentLog::add)));
        agent.start();
        E2e.await("the ask is posted", () -> agent.askOrderId() != 0);

        final long first = lease(1);
        assertEquals(Reason.REASON_OK, renter.launch(first, WorkloadSpecs.toProto(WorkloadSpec.process(
            "echo \"visible=$CUDA_VISIBLE_DEVICES\"; for i in 1 2 3; do echo count $i; done", Map.of("STEP", "1")),
            null, 1), TIMEOUT).getReason());
        E2e.await("the job exits", TIMEOUT, () -> statuses.state(first, WorkloadState.WORKLOAD_EXITED) != null,
            statuses::toString);
        assertEquals(0, statuses.state(first, WorkloadState.WORKLOAD_EXITED).getExitCode());
        assertTrue(statuses.indexOf(first, WorkloadState.WORKLOAD_RUNNING)
            < statuses.indexOf(first, WorkloadState.WORKLOAD_EXITED), "RUNNING, then EXITED: " + statuses);
        final WorkloadLog log = renter.logTail(first, 4, TIMEOUT);
        assertEquals(List.of("visible=" + agent.gpus().get(0).uuid(), "count 1", "count 2", "count 3"),
            tail(log.getLinesList(), 4), log.toString());

        // the renter lets the lease go; the next one gets the GPU and runs until it is told to stop
        ok(renter, Envelope.newBuilder().setRelease(Release.newBuilder().setLeaseId(first)));
        final long second = lease(2);
        assertEquals(Reason.REASON_OK, renter.launch(second, WorkloadSpecs.toProto(WorkloadSpec.process(
            TRAP_TERM, Map.of()), "job", 1), TIMEOUT).getReason());
        E2e.await("the second job runs", TIMEOUT, () -> statuses.state(second, WorkloadState.WORKLOAD_RUNNING) != null,
            statuses::toString);
        // RUNNING is the process spawned; its shell has set its TERM trap once it has said "started"
        final Path workloadLog = stateDir.resolve("leases").resolve(Long.toString(second)).resolve("workload.log");
        E2e.await("the second job's trap is set", TIMEOUT, () -> E2e.fileSays(workloadLog, "started"), workloadLog::toString);

        // a higher bid takes the GPU: the lease gets a notice, its workload the notice file and SIGTERM
        final GpuxClient bigger = connect(E2e.account(admin, SHARED.name("bigger"), Role.RENTER, 1_000_000_000L), new Recorder("bigger"));
        ok(bigger, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder().setOrderId(1).setMarket(market).setGpus(1)
            .setPrice(Money.parsePrice("5.0"))));
        final AccountEvent notice = renterEvents.await("the notice", TIMEOUT, e -> e.getKindCase() == AccountEvent.KindCase.PREEMPT_NOTICE
            && e.getPreemptNotice().getLeaseId() == second);
        E2e.await("the workload ends on SIGTERM", TIMEOUT, () -> statuses.state(second, WorkloadState.WORKLOAD_EXITED) != null,
            statuses::toString);
        final String written = Files.readString(workloadLog);
        assertTrue(written.contains("got-term") && written.contains("\"leaseId\":" + second)
            && written.contains("\"effectiveAtMs\":" + notice.getPreemptNotice().getEffectiveMs()), written);
        assertTrue(statuses.state(second, WorkloadState.WORKLOAD_EXITED).getTimeMs()
            <= notice.getPreemptNotice().getEffectiveMs(),
            "gone by the effective time");
        final AccountEvent ended = renterEvents.await("the lease's end", TIMEOUT, e -> e.getKindCase() == AccountEvent.KindCase.LEASE_ENDED
            && e.getLeaseEnded().getLeaseId() == second);
        assertEquals(notice.getPreemptNotice().getEffectiveMs(), ended.getTimeMs());
    }

    @Test
    void anOwnerReclaimGivesTheRunningWorkloadItsNotice() throws Exception
    {
        final Path stateDir = dir.resolve("agent-state");
        final OwnerAgent agent = agent(new WorkloadSupervisorContext().stateDir(stateDir)
            .runtime(new ProcessRuntime(null, agentLog::add)));
        agent.start();
        E2e.await("the ask is posted", () -> agent.askOrderId() != 0);
        final long lease = lease(1);
        assertEquals(Reason.REASON_OK, renter.launch(lease, WorkloadSpecs.toProto(WorkloadSpec.process(TRAP_TERM, Map.of()),
            null, 1), TIMEOUT).getReason());
        E2e.await("the job runs", TIMEOUT, () -> statuses.state(lease, WorkloadState.WORKLOAD_RUNNING) != null,
            statuses::toString);

        agent.reclaim();
        final AccountEvent notice = renterEvents.await("the notice", TIMEOUT, e -> e.getKindCase() == AccountEvent.KindCase.PREEMPT_NOTICE);
        E2e.await("the workload ends on SIGTERM", TIMEOUT, () -> statuses.state(lease, WorkloadState.WORKLOAD_EXITED) != null,
            statuses::toString);
        final String written = Files.readString(stateDir.resolve("leases").resolve(Long.toString(lease)).resolve("workload.log"));
        assertTrue(written.contains("got-term") && written.contains("\"effectiveAtMs\":" + notice.getPreemptNotice().getEffectiveMs()),
            written);
    }

    @Test
    void anAgentWithoutARuntimeAnswersFailed() throws Exception
    {
        final OwnerAgent agent = agent(null);
        agent.start();
        E2e.await("the ask is posted", () -> agent.askOrderId() != 0);
        final long lease = lease(1);
        assertEquals(Reason.REASON_OK, renter.launch(lease, WorkloadSpecs.toProto(WorkloadSpec.process("true", Map.of()),
            null, 1), TIMEOUT).getReason());
        E2e.await("the agent says it runs none", TIMEOUT, () -> statuses.state(lease, WorkloadState.WORKLOAD_FAILED) != null,
            statuses::toString);
        assertEquals(AgentWorkloads.NO_RUNTIME, statuses.state(lease, WorkloadState.WORKLOAD_FAILED).getReason());
    }

    // ------------------------------------------------------------------------------------------

    private GpuxClient connect(final E2e.Key key, final Recorder recorder) throws Exception
    {
        return E2e.connectQuick(server.port(), key, recorder, closeables);
    }

    private OwnerAgent agent(final WorkloadSupervisorContext workloads) throws Exception
    {
        return E2e.workloadAgent(owner, market, dir, workloads, agentLog::add, closeables);
    }

    /** The renter takes one GPU at the reserve; the lease id. */
    private long lease(final long orderId) throws Exception
    {
        ok(renter, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder().setOrderId(orderId).setMarket(market).setGpus(1)
            .setPrice(Money.parsePrice("1.0"))));
        final long lease = renterEvents.await("lease " + orderId, TIMEOUT, e -> e.getKindCase() == AccountEvent.KindCase.LEASE_STARTED
            && !leases.contains(e.getLeaseStarted().getLeaseId())).getLeaseStarted().getLeaseId();
        leases.add(lease);
        return lease;
    }

    private static List<String> tail(final List<String> lines, final int n)
    {
        return lines.subList(Math.max(0, lines.size() - n), lines.size());
    }
}
