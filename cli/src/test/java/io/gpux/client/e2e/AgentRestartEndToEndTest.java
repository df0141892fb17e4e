package io.gpux.client.e2e;

import io.gpux.client.GpuxClient;
import io.gpux.common.Money;
import io.gpux.client.workload.JobFile;
import io.gpux.client.workload.JobFileParser;
import io.gpux.client.workload.WorkloadSpecs;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.EndReason;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Release;
import io.gpux.proto.v1.Role;
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
import java.util.concurrent.TimeUnit;

import static io.gpux.client.e2e.E2e.TIMEOUT;
import static io.gpux.client.e2e.E2e.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code gpux agent --runtime process} as a real process, crashed (SIGKILL) and started again on the
 * same {@code --state-dir}, with a server process: a workload whose lease still lives is taken back
 * by the new agent and runs on, the same processes, started once, and is killed with its whole
 * process group when the lease ends; a workload whose lease ended while no agent ran is killed by
 * the next agent as soon as it starts; a workload launched while no agent ran is started by the next
 * agent, which hears of it at its login.
 */
@DisabledOnOs(OS.WINDOWS)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class AgentRestartEndToEndTest
{
    private static final String MARKET = "LIVE-1";

    @TempDir
    Path dir;

    @RegisterExtension
    final DumpOnFailure dump = new DumpOnFailure();

    private ServerProcess server;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final List<Long> groups = new ArrayList<>();
    private final Recorder renterEvents = new Recorder("renter");
    private GpuxClient renter;
    private Path ownerKeyFile;
    private Path shared;
    private int agents;

    @BeforeEach
    void startServer() throws Exception
    {
        server = new ServerProcess(dir, E2e.resource("workload-restart.scn", dir), 1000).start();
        dump.register("server", server::log);
        dump.register("renter", () -> E2e.describe(renterEvents.events()));
        final GpuxClient admin = E2e.connectQuick(server.port(), server.adminKey(), new Recorder("admin"), closeables);
        final E2e.Key owner = E2e.account(admin, "owner", Role.OWNER, 0);
        ownerKeyFile = Files.writeString(dir.resolve("owner.key"), owner.id() + ":" + owner.secret() + "\n");
        renter = E2e.connectQuick(server.port(), E2e.account(admin, "renter", Role.RENTER, 1_000_000_000L), renterEvents,
            closeables);
        shared = Files.createDirectories(dir.resolve("shared"));
    }

    @AfterEach
    void tearDown()
    {
        E2e.closeAllQuietly(closeables, server);
        groups.forEach(LiveGroups::killQuietly);
    }

    @Test
    void aRestartedAgentTakesBackTheWorkloadOfALiveLeaseAndKillsTheOneWhoseLeaseEnded() throws Exception
    {
        final AgentProcess first = startAgent();
        first.awaitOut("  ask: order ");

        // ---- a workload runs; the agent crashes; the next agent takes it back, and it runs on
        final long lease1 = leaseOneGpu(1);
        final Path ck1 = shared.resolve("one");
        final long group1 = launchCounter(lease1, ck1);
        first.crash();
        assertTrue(LiveGroups.alive(group1), "the workload outlives its agent");
        final int atCrash = CounterWorkload.count(ck1);
        E2e.await("the count goes on without an agent", TIMEOUT, () -> CounterWorkload.count(ck1) >= atCrash + 3,
            () -> "count " + CounterWorkload.count(ck1));

        final AgentProcess second = startAgent();
        second.awaitOut("workloads: adopted [" + lease1 + "], killed []");
        final int atAdoption = CounterWorkload.count(ck1);
        E2e.await("the count goes on under the new agent", TIMEOUT, () -> CounterWorkload.count(ck1) >= atAdoption + 3,
            () -> "count " + CounterWorkload.count(ck1));
        assertEquals(1, Files.readAllLines(ck1.resolve("attempts")).size(), "started once: the same processes run on");
        assertEquals(WorkloadState.WORKLOAD_RUNNING, renter.workloadStatus(lease1, TIMEOUT).getState());

        // its lease ends: the new agent kills the whole process group
        ok(renter, Envelope.newBuilder().setRelease(Release.newBuilder().setLeaseId(lease1)));
        awaitEnd(lease1);
        E2e.await("the workload's process group is gone after its lease", TIMEOUT, () -> !LiveGroups.alive(group1),
            () -> "alive: " + LiveGroups.members(group1));

        // ---- a workload whose lease ends while no agent runs: the next agent kills it as it starts
        final long lease2 = leaseOneGpu(2);
        final long group2 = launchCounter(lease2, shared.resolve("two"));
        second.crash();
        ok(renter, Envelope.newBuilder().setRelease(Release.newBuilder().setLeaseId(lease2)));
        assertEquals(EndReason.RELEASED, awaitEnd(lease2).getLeaseEnded().getReason());
        final AgentProcess third = startAgent();
        third.awaitOut("workloads: adopted [], killed [" + lease2 + "]");
        assertTrue(!LiveGroups.alive(group2), () -> "alive after the restart: " + LiveGroups.members(group2));

        // ---- a lease that starts, and is launched, while no agent runs: the next agent gets the launch at its login
        third.crash();
        final long lease3 = leaseOneGpu(3);
        final Path ck3 = shared.resolve("three");
        launch(lease3, ck3);
        assertEquals(WorkloadState.WORKLOAD_PENDING, status(lease3), "no agent to start it yet");
        startAgent();
        awaitRunning(lease3, ck3);
        assertEquals(1, Files.readAllLines(ck3.resolve("attempts")).size(), "started once");
    }

    // ------------------------------------------------------------------------------------------

    private AgentProcess startAgent() throws Exception
    {
        final int n = ++agents;
        final AgentProcess agent = AgentProcess.start(dir, dir.resolve("agent-" + n + ".out"), server.port(), ownerKeyFile,
            "--market", MARKET, "--name", "p1", "--interval", "200ms", "--reserve", "1", "--runtime", "process",
            "--state-dir", dir.resolve("agent-state").toString(), "--allow-checkpoint-path", shared.toString());
        closeables.add(agent);
        dump.register("agent " + n, agent::out);
        return agent;
    }

    private long leaseOneGpu(final int orderId) throws Exception
    {
        ok(renter, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder().setOrderId(orderId).setMarket(MARKET).setGpus(1)
            .setPrice(Money.parsePrice("1.0"))));
        return renterEvents.await("lease " + orderId, TIMEOUT, e -> e.getKindCase() == AccountEvent.KindCase.LEASE_STARTED
            && renterEvents.events(AccountEvent.KindCase.LEASE_STARTED).indexOf(e) == orderId - 1).getLeaseStarted().getLeaseId();
    }

    /** Launches the counter on the lease, waits until it runs; its process group. */
    private long launchCounter(final long lease, final Path ck) throws Exception
    {
        launch(lease, ck);
        return awaitRunning(lease, ck);
    }

    private void launch(final long lease, final Path ck) throws Exception
    {
        Files.createDirectories(ck);
        final JobFile job = new JobFileParser().parse("job.yaml", CounterWorkload.jobFile("count-" + lease, MARKET, ck, 100_000),
            dir);
        ok(renter, Envelope.newBuilder().setLaunchWorkload(io.gpux.proto.v1.LaunchWorkload.newBuilder().setLeaseId(lease)
            .setSpec(WorkloadSpecs.toProto(job.workload(), job.checkpointOnWire(), 1))));
    }

    /** Waits until the lease's workload runs and counts; its process group. */
    private long awaitRunning(final long lease, final Path ck) throws Exception
    {
        E2e.await("lease " + lease + "'s workload runs", TIMEOUT,
            () -> status(lease) == WorkloadState.WORKLOAD_RUNNING && Files.exists(ck.resolve("attempts")),
            () -> "status " + status(lease));
        final long group = Long.parseLong(Files.readAllLines(ck.resolve("attempts")).get(0).split(" ")[1]);
        groups.add(group);
        E2e.await("lease " + lease + "'s count starts", () -> CounterWorkload.count(ck) >= 1);
        return group;
    }

    private WorkloadState status(final long lease)
    {
        try
        {
            return renter.workloadStatus(lease, TIMEOUT).getState();
        }
        catch (final Exception ex)
        {
            return WorkloadState.WORKLOAD_STATE_UNSPECIFIED;
        }
    }

    private AccountEvent awaitEnd(final long lease)
    {
        return renterEvents.await("lease " + lease + "'s end", TIMEOUT,
            e -> e.getKindCase() == AccountEvent.KindCase.LEASE_ENDED && e.getLeaseEnded().getLeaseId() == lease);
    }
}
