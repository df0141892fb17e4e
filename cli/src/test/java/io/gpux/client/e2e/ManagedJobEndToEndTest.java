package io.gpux.client.e2e;

import io.gpux.client.GpuxClient;
import io.gpux.common.Money;
import io.gpux.client.agent.OwnerAgent;
import io.gpux.client.agent.workload.ProcessRuntime;
import io.gpux.client.agent.workload.WorkloadSupervisorContext;
import io.gpux.client.workload.JobFile;
import io.gpux.client.workload.JobFileParser;
import io.gpux.client.workload.ManagedJob;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Release;
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
import static io.gpux.client.e2e.E2e.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A managed job over a real server process and an owner agent (fake nvidia-smi, one H200, the
 * process runtime): the job counts to {@value #N}, keeping its count in a checkpoint on storage the
 * agent allows, is preempted twice by a higher bid and once by the owner's reclaim, and finishes
 * with the right count, one attempt at a time, on its own lease's GPU, paying only for leased time.
 * The tests share one server process, each with accounts and a market of its own.
 */
@DisabledOnOs(OS.WINDOWS)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ManagedJobEndToEndTest
{
    private static final int N = 40;
    private static final String MARKET = "RUN-1";

    @RegisterExtension
    static final SharedServer SHARED = new SharedServer("managed-job.scn", 1000);

    @TempDir
    Path dir;

    @RegisterExtension
    final DumpOnFailure dump = new DumpOnFailure();

    private ServerProcess server;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final Recorder renterEvents = new Recorder("renter");
    private final Recorder biggerEvents = new Recorder("bigger");
    private final List<String> agentLog = new CopyOnWriteArrayList<>();
    private final List<String> heard = new CopyOnWriteArrayList<>();
    private final List<String> logLines = new CopyOnWriteArrayList<>();
    private GpuxClient admin;
    private GpuxClient owner;
    private GpuxClient renter;
    private GpuxClient bigger;

    @BeforeEach
    void openAccounts() throws Exception
    {
        server = SHARED.server();
        dump.register("server", server::log);
        dump.register("agent", () -> String.join("\n", agentLog));
        dump.register("job", () -> String.join("\n", heard));
        dump.register("renter", () -> E2e.describe(renterEvents.events()));
        admin = connect(server.adminKey(), new Recorder("admin"));
        owner = connect(E2e.account(admin, SHARED.name("owner"), Role.OWNER, 0), new Recorder("owner"));
        renter = connect(E2e.account(admin, SHARED.name("renter"), Role.RENTER, 1_000_000_000L), renterEvents);
        bigger = connect(E2e.account(admin, SHARED.name("bigger"), Role.RENTER, 1_000_000_000L), biggerEvents);
    }

    @AfterEach
    void tearDown()
    {
        E2e.closeAllQuietly(closeables, null);
    }

    @Test
    void aJobPreemptedTwiceAndReclaimedOnceFinishesItsCountOneAttemptAtATime() throws Exception
    {
        final Path shared = dir.resolve("shared");
        final Path ck = shared.resolve("counter");
        Files.createDirectories(ck);
        final OwnerAgent agent = agent(new WorkloadSupervisorContext().stateDir(dir.resolve("agent-state"))
            .runtime(new ProcessRuntime(null, agentLog::add)).allowCheckpointPath(shared));
        agent.start();
        E2e.await("the ask is posted", () -> agent.askOrderId() != 0);
        final String gpu = agent.gpus().get(0).uuid();

        final JobFile job = new JobFileParser().parse("job.yaml", CounterWorkload.jobFile("counter", MARKET, ck, N)
            + "maxFailures: 0\n", dir);
        final ManagedJob managed = new ManagedJob(renter, job, new ManagedJob.Listener()
        {
            @Override
            public void onStatus(final int attempt, final long leaseId, final WorkloadStatus status)
            {
                heard.add(attempt + " " + leaseId + " " + status.getState());
            }

            @Override
            public void onLog(final long leaseId, final List<String> lines)
            {
                logLines.addAll(lines);
            }
        }).followLogs(Duration.ofMillis(200)).start();

        // two preemptions by a higher bid: each time the bigger renter gets the GPU, then lets it go
        for (int round = 1; round <= 2; round++)
        {
            awaitRunning(round);
            awaitCountAbove(ck, count(ck) + 3);
            ok(bigger, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder().setOrderId(round).setMarket(MARKET).setGpus(1)
                .setPrice(Money.parsePrice("5.0"))));
            final int leasesBefore = round - 1;
            final AccountEvent biggerLease = biggerEvents.await("the bigger renter's lease " + round, TIMEOUT,
                e -> e.getKindCase() == AccountEvent.KindCase.LEASE_STARTED
                    && biggerEvents.events(AccountEvent.KindCase.LEASE_STARTED).indexOf(e) == leasesBefore);
            ok(bigger, Envelope.newBuilder().setRelease(Release.newBuilder().setLeaseId(biggerLease.getLeaseStarted().getLeaseId())));
        }
        // the owner reclaims the machine, and offers it again once the lease has ended
        awaitRunning(3);
        awaitCountAbove(ck, count(ck) + 3);
        agent.reclaim();
        E2e.await("the reclaimed lease ends", TIMEOUT, () -> renterEvents.events(AccountEvent.KindCase.LEASE_ENDED).size() == 3,
            () -> E2e.describe(renterEvents.events()));
        agent.resume();

        final ManagedJob.Report report = managed.result().get(60, TimeUnit.SECONDS);

        assertEquals(ManagedJob.Outcome.SUCCEEDED, report.outcome(), report.toString());
        assertEquals(N, count(ck), "the count went on from the checkpoint to the end");
        assertEquals(4, report.attempts().size(), report.toString());
        assertEquals(3, report.interruptions(), report.toString());
        assertEquals(0, report.failures(), report.toString());
        assertFalse(Files.exists(ck.resolve("overlaps")), () -> "two attempts at once: " + read(ck.resolve("overlaps")));
        final List<String> started = Files.readAllLines(ck.resolve("attempts"));
        assertEquals(4, started.size(), started.toString());
        for (int i = 0; i < 4; i++)
        {
            final String[] f = started.get(i).split(" ");
            final ManagedJob.Attempt attempt = report.attempts().get(i);
            assertEquals(Integer.toString(i + 1), f[0], "GPUX_ATTEMPT");
            assertEquals(Long.toString(attempt.leaseId()), f[2], "ran on its own lease");
            assertEquals(gpu, f[3], "CUDA_VISIBLE_DEVICES is the lease's GPU");
            assertTrue(attempt.readinessMs() >= 0, () -> "readiness of " + attempt);
        }
        assertTrue(report.lostMs() > 0, report.toString());

        // the renter paid for its leases' lifetimes and nothing more
        long expected = 0;
        long settled = 0;
        for (final ManagedJob.Attempt attempt : report.attempts())
        {
            final AccountEvent start = renterEvents.await("start " + attempt.leaseId(), TIMEOUT,
                e -> e.getKindCase() == AccountEvent.KindCase.LEASE_STARTED && e.getLeaseStarted().getLeaseId() == attempt.leaseId());
            final AccountEvent end = renterEvents.await("end " + attempt.leaseId(), TIMEOUT,
                e -> e.getKindCase() == AccountEvent.KindCase.LEASE_ENDED && e.getLeaseEnded().getLeaseId() == attempt.leaseId());
            final long ms = end.getTimeMs() - start.getTimeMs();
            expected += Math.floorDiv(start.getLeaseStarted().getGpus() * start.getLeaseStarted().getPrice() * 100 * ms, 3_600_000L);
            for (final AccountEvent e : renterEvents.events(AccountEvent.KindCase.SETTLED))
            {
                settled += e.getSettled().getLeaseId() == attempt.leaseId() ? e.getSettled().getCharge() : 0;
            }
        }
        assertEquals(expected, settled, "settlements = cost over the leases' lifetimes");
        assertEquals(settled, report.costMicros());
        assertEquals(4, renterEvents.events(AccountEvent.KindCase.LEASE_STARTED).size(), "no lease beyond the attempts'");
        assertTrue(logLines.stream().anyMatch(l -> l.startsWith("start attempt=")), logLines::toString);
        assertTrue(heard.stream().anyMatch(h -> h.endsWith(" " + WorkloadState.WORKLOAD_RUNNING)), heard::toString);
    }

    @Test
    void aLeaseFilledDuringTheNoticeWaitsForTheNoticedOneToEndAndCancelReleasesIt() throws Exception
    {
        final Path shared = dir.resolve("shared");
        final Path ck = shared.resolve("counter");
        Files.createDirectories(ck);
        final GpuxClient owner2 = connect(E2e.account(admin, SHARED.name("owner2"), Role.OWNER, 0), new Recorder("owner2"));
        final OwnerAgent first = E2e.workloadAgent(owner, "RUN-2", "m1", dir, new WorkloadSupervisorContext()
            .stateDir(dir.resolve("state-1")).runtime(new ProcessRuntime(null, agentLog::add)).allowCheckpointPath(shared),
            agentLog::add, closeables);
        final OwnerAgent second = E2e.workloadAgent(owner2, "RUN-2", "m2", dir, new WorkloadSupervisorContext()
            .stateDir(dir.resolve("state-2")).runtime(new ProcessRuntime(null, agentLog::add)).allowCheckpointPath(shared),
            agentLog::add, closeables);
        second.reclaim();
        first.start();
        second.start();
        E2e.await("the first machine's ask is posted", () -> first.askOrderId() != 0);

        final JobFile job = new JobFileParser().parse("job.yaml", CounterWorkload.jobFile("long", "RUN-2", ck, 100_000), dir);
        final ManagedJob managed = new ManagedJob(renter, job, new ManagedJob.Listener()
        {
            @Override
            public void onLaunched(final int attempt, final long leaseId)
            {
                heard.add("launched " + attempt + " " + leaseId);
            }

            @Override
            public void onStatus(final int attempt, final long leaseId, final WorkloadStatus status)
            {
                heard.add(attempt + " " + leaseId + " " + status.getState());
            }

            @Override
            public void onLeaseEnded(final long leaseId, final io.gpux.proto.v1.EndReason reason)
            {
                heard.add("ended " + leaseId);
            }
        }).start();
        awaitRunning(1);

        // a higher bid takes the first machine; the second machine's ask fills the job's new bid during the grace,
        // while the workload, which lingers after its SIGTERM, keeps the noticed lease to its effective time
        Files.writeString(ck.resolve("linger"), "");
        ok(bigger, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder().setOrderId(1).setMarket("RUN-2").setGpus(1)
            .setPrice(Money.parsePrice("5.0"))));
        renterEvents.await("the notice", TIMEOUT, e -> e.getKindCase() == AccountEvent.KindCase.PREEMPT_NOTICE);
        second.resume();
        awaitRunning(2);
        final List<AccountEvent> events = renterEvents.events();
        final long lease1 = events.stream().filter(e -> e.getKindCase() == AccountEvent.KindCase.LEASE_STARTED)
            .findFirst().orElseThrow().getLeaseStarted().getLeaseId();
        final long lease2 = events.stream().filter(e -> e.getKindCase() == AccountEvent.KindCase.LEASE_STARTED)
            .skip(1).findFirst().orElseThrow().getLeaseStarted().getLeaseId();
        final int started2 = indexOf(events, AccountEvent.KindCase.LEASE_STARTED, lease2);
        final int ended1 = indexOf(events, AccountEvent.KindCase.LEASE_ENDED, lease1);
        assertTrue(started2 >= 0 && ended1 > started2, () -> "the second lease started before the first ended: "
            + E2e.describe(events));
        assertTrue(heard.indexOf("ended " + lease1) >= 0
            && heard.indexOf("ended " + lease1) < heard.indexOf("launched 2 " + lease2), heard::toString);
        assertFalse(Files.exists(ck.resolve("overlaps")), () -> "two attempts at once: " + read(ck.resolve("overlaps")));

        // Ctrl-C's path: the bid is cancelled and the lease released
        managed.cancel();
        final ManagedJob.Report report = managed.result().get(30, TimeUnit.SECONDS);
        assertEquals(ManagedJob.Outcome.CANCELLED, report.outcome(), report.toString());
        assertEquals(1, report.interruptions(), report.toString());
        final AccountEvent ended2 = renterEvents.await("the release", TIMEOUT,
            e -> e.getKindCase() == AccountEvent.KindCase.LEASE_ENDED && e.getLeaseEnded().getLeaseId() == lease2);
        assertEquals(io.gpux.proto.v1.EndReason.RELEASED, ended2.getLeaseEnded().getReason());
        // the agent stops the released lease's job (its process outlives the agent's close, as across an agent's restart)
        E2e.await("the released lease's job stopped", TIMEOUT, () -> !CounterWorkload.running(ck),
            () -> "count " + count(ck));
    }

    @Test
    void aNoticedLeaseIsReleasedOnceItsWorkloadHasExitedAndThePreemptorStartsAtOnce() throws Exception
    {
        final Path shared = dir.resolve("shared");
        final Path ck = shared.resolve("counter");
        Files.createDirectories(ck);
        final OwnerAgent agent = E2e.workloadAgent(owner, "RUN-3", "m1", dir, new WorkloadSupervisorContext()
            .stateDir(dir.resolve("state")).runtime(new ProcessRuntime(null, agentLog::add)).allowCheckpointPath(shared),
            agentLog::add, closeables);
        agent.start();
        E2e.await("the ask is posted", () -> agent.askOrderId() != 0);
        final JobFile job = new JobFileParser().parse("job.yaml", CounterWorkload.jobFile("handover", "RUN-3", ck, 100_000), dir);
        final ManagedJob managed = new ManagedJob(renter, job, new ManagedJob.Listener()
        {
            @Override
            public void onStatus(final int attempt, final long leaseId, final WorkloadStatus status)
            {
                heard.add(attempt + " " + leaseId + " " + status.getState());
            }
        }).start();
        awaitRunning(1);
        awaitCountAbove(ck, 2);

        ok(bigger, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder().setOrderId(1).setMarket("RUN-3").setGpus(1)
            .setPrice(Money.parsePrice("5.0"))));
        final AccountEvent notice = renterEvents.await("the notice", TIMEOUT,
            e -> e.getKindCase() == AccountEvent.KindCase.PREEMPT_NOTICE);
        final long effective = notice.getPreemptNotice().getEffectiveMs();
        final AccountEvent ended = renterEvents.await("the noticed lease's end", TIMEOUT,
            e -> e.getKindCase() == AccountEvent.KindCase.LEASE_ENDED);
        assertEquals(io.gpux.proto.v1.EndReason.PREEMPTED, ended.getLeaseEnded().getReason());
        assertTrue(ended.getTimeMs() < effective, () -> "released at " + ended.getTimeMs()
            + ", before the notice's effective time " + effective + ": " + E2e.describe(renterEvents.events()));
        assertTrue(heard.stream().anyMatch(h -> h.startsWith("1 ") && h.endsWith(" " + WorkloadState.WORKLOAD_EXITED)),
            heard::toString);
        final AccountEvent biggerStarted = biggerEvents.await("the preemptor's lease", TIMEOUT,
            e -> e.getKindCase() == AccountEvent.KindCase.LEASE_STARTED);
        assertTrue(biggerStarted.getTimeMs() < effective, () -> "the preemptor started at " + biggerStarted.getTimeMs()
            + ", not at the effective time " + effective);
        assertTrue(count(ck) > 0, "the workload checkpointed its count");

        managed.cancel();
        final ManagedJob.Report report = managed.result().get(30, TimeUnit.SECONDS);
        assertEquals(ManagedJob.Outcome.CANCELLED, report.outcome(), report.toString());
        assertEquals(1, report.interruptions(), report.toString());
    }

    private static int indexOf(final List<AccountEvent> events, final AccountEvent.KindCase kind, final long lease)
    {
        for (int i = 0; i < events.size(); i++)
        {
            final AccountEvent e = events.get(i);
            if (e.getKindCase() == kind && (kind == AccountEvent.KindCase.LEASE_STARTED ? e.getLeaseStarted().getLeaseId()
                : e.getLeaseEnded().getLeaseId()) == lease)
            {
                return i;
            }
        }
        return -1;
    }

    // ------------------------------------------------------------------------------------------

    private void awaitRunning(final int attempt)
    {
        E2e.await("attempt " + attempt + " runs", TIMEOUT,
            () -> heard.stream().anyMatch(h -> h.startsWith(attempt + " ") && h.endsWith(" " + WorkloadState.WORKLOAD_RUNNING)),
            heard::toString);
    }

    private static void awaitCountAbove(final Path ck, final int n)
    {
        E2e.await("the count passes " + n, TIMEOUT, () -> count(ck) >= n, () -> "count " + count(ck));
    }

    private static int count(final Path ck)
    {
        return CounterWorkload.count(ck);
    }

    private static String read(final Path file)
    {
        try
        {
            return Files.readString(file);
        }
        catch (final Exception ex)
        {
            return ex.toString();
        }
    }

    private GpuxClient connect(final E2e.Key key, final Recorder recorder) throws Exception
    {
        return E2e.connectQuick(server.port(), key, recorder, closeables);
    }

    private OwnerAgent agent(final WorkloadSupervisorContext workloads) throws Exception
    {
        return E2e.workloadAgent(owner, MARKET, dir, workloads, agentLog::add, closeables);
    }
}
