package io.gpux.client.e2e;

import io.gpux.client.GpuxClient;
import io.gpux.client.agent.OwnerAgent;
import io.gpux.client.agent.workload.ProcessRuntime;
import io.gpux.client.agent.workload.WorkloadSupervisorContext;
import io.gpux.client.workload.JobFile;
import io.gpux.client.workload.JobFileParser;
import io.gpux.client.workload.ManagedJob;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.WorkloadState;
import io.gpux.proto.v1.WorkloadStatus;

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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static io.gpux.client.e2e.E2e.TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The exchange crashes (SIGKILL) in the middle of a managed job and starts again on the same data
 * directory and port: the owner agent keeps the workload running through the outage, the job's lease
 * lives on, the renter's {@link ManagedJob} reconnects and hears the workload's current status, and
 * the job finishes its count on its first attempt, one copy at a time; once the job's lease has ended,
 * nothing of the workload is left. The count holds before its last step until the renter has heard the
 * workload's status after the restart.
 */
@DisabledOnOs(OS.WINDOWS)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ExchangeRestartJobEndToEndTest
{
    private static final int N = 30;
    private static final String MARKET = "LIVE-1";

    @TempDir
    Path dir;

    @RegisterExtension
    final DumpOnFailure dump = new DumpOnFailure();

    private ServerProcess server;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final Recorder renterEvents = new Recorder("renter");
    private final List<String> agentLog = new CopyOnWriteArrayList<>();
    private final List<String> heard = new CopyOnWriteArrayList<>();
    private long workloadGroup;

    @BeforeEach
    void startServer() throws Exception
    {
        server = new ServerProcess(dir, E2e.resource("workload-restart.scn", dir), 1000).keepPort().start();
        dump.register("server", server::log);
        dump.register("agent", () -> String.join("\n", agentLog));
        dump.register("job", () -> String.join("\n", heard));
        dump.register("renter", () -> E2e.describe(renterEvents.events()));
    }

    @AfterEach
    void tearDown()
    {
        E2e.closeAllQuietly(closeables, server);
        if (workloadGroup != 0)
        {
            LiveGroups.killQuietly(workloadGroup);
        }
    }

    @Test
    void aJobRunsOnThroughAnExchangeCrashAndFinishesOnItsFirstLease() throws Exception
    {
        final GpuxClient admin = E2e.connectQuick(server.port(), server.adminKey(), new Recorder("admin"), closeables);
        final E2e.Key ownerKey = E2e.account(admin, "owner", Role.OWNER, 0);
        final E2e.Key renterKey = E2e.account(admin, "renter", Role.RENTER, 1_000_000_000L);
        final GpuxClient owner = E2e.connectQuick(server.port(), ownerKey, new Recorder("owner"), closeables);
        // the renter comes back well after the agent, which has reported its workload's status again by then
        final GpuxClient renter = E2e.connect(server.port(), renterKey, renterEvents,
            c -> c.reconnectBackoff(Duration.ofSeconds(2), Duration.ofSeconds(2)).errorHandler(t -> { }));
        closeables.add(renter);
        final Path shared = dir.resolve("shared");
        final Path ck = shared.resolve("counter");
        Files.createDirectories(ck);
        final Path hold = Files.createFile(ck.resolve("hold"));
        final OwnerAgent agent = E2e.workloadAgent(owner, MARKET, dir, new WorkloadSupervisorContext()
            .stateDir(dir.resolve("agent-state")).runtime(new ProcessRuntime(null, agentLog::add)).allowCheckpointPath(shared),
            agentLog::add, closeables);
        agent.start();
        E2e.await("the ask is posted", () -> agent.askOrderId() != 0);

        final JobFile job = new JobFileParser().parse("job.yaml", CounterWorkload.jobFile("counter", MARKET, ck, N)
            + "maxFailures: 0\n", dir);
        final ManagedJob managed = new ManagedJob(renter, job, new ManagedJob.Listener()
        {
            @Override
            public void onStatus(final int attempt, final long leaseId, final WorkloadStatus status)
            {
                heard.add(attempt + " " + leaseId + " " + status.getState());
            }
        }).start();
        E2e.await("the workload runs", TIMEOUT, () -> runningHeard() == 1, heard::toString);
        // RUNNING is the process group started; the script writes its attempt line a moment later
        E2e.await("the workload writes its attempt", TIMEOUT, () -> Files.exists(ck.resolve("attempts")), heard::toString);
        workloadGroup = Long.parseLong(Files.readAllLines(ck.resolve("attempts")).get(0).split(" ")[1]);
        E2e.await("the count passes 5", TIMEOUT, () -> count(ck) >= 5, () -> "count " + count(ck));

        // ---- the exchange crashes; the workload counts on meanwhile; the exchange starts again on its data
        server.kill();
        final int atCrash = count(ck);
        E2e.await("the count goes on while the exchange is down", TIMEOUT, () -> count(ck) >= atCrash + 3,
            () -> "count " + count(ck));
        server.start();

        // the renter's job asks for the workload's status when it is back, and hears it running still
        E2e.await("the job hears the workload's status after the restart", TIMEOUT, () -> runningHeard() >= 2, heard::toString);
        assertTrue(count(ck) < N, () -> "the status came only at the end, count " + count(ck));
        Files.delete(hold);

        final ManagedJob.Report report = managed.result().get(90, TimeUnit.SECONDS);
        assertEquals(ManagedJob.Outcome.SUCCEEDED, report.outcome(), report.toString());
        assertEquals(N, count(ck), "the count went on to the end");
        assertEquals(1, report.attempts().size(), () -> "the first attempt carried on: " + report);
        assertEquals(0, report.interruptions(), report.toString());
        final List<String> started = Files.readAllLines(ck.resolve("attempts"));
        assertEquals(1, started.size(), () -> "one copy, started once: " + started);
        assertTrue(started.get(0).startsWith("1 " + workloadGroup + " " + report.attempts().get(0).leaseId() + " "), started::toString);
        assertFalse(Files.exists(ck.resolve("overlaps")), "two copies at once");
        assertEquals(1, renterEvents.events(AccountEvent.KindCase.LEASE_STARTED).size(), "no lease beyond the first");
        renterEvents.await("the lease's end", TIMEOUT, e -> e.getKindCase() == AccountEvent.KindCase.LEASE_ENDED);
        E2e.await("nothing of the workload is left once its lease has ended", TIMEOUT, () -> !LiveGroups.alive(workloadGroup),
            () -> "alive: " + LiveGroups.members(workloadGroup));
    }

    private long runningHeard()
    {
        return heard.stream().filter(h -> h.endsWith(" " + WorkloadState.WORKLOAD_RUNNING)).count();
    }

    private static int count(final Path ck)
    {
        return CounterWorkload.count(ck);
    }
}
