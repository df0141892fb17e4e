package io.gpux.client.e2e;

import io.gpux.client.ClientListener;
import io.gpux.client.GpuxClient;
import io.gpux.common.Money;
import io.gpux.client.agent.OwnerAgent;
import io.gpux.client.agent.workload.ProcessRuntime;
import io.gpux.client.agent.workload.WorkloadSupervisorContext;
import io.gpux.client.workload.WorkloadSpec;
import io.gpux.client.workload.WorkloadSpecs;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.EndReason;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.Reason;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.gpux.client.e2e.E2e.TIMEOUT;
import static io.gpux.client.e2e.E2e.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The owner agent hears its leases' notices as the renters do, through a real server process: an agent
 * that heartbeats once a minute gives a preempted lease's workload its notice at once (within a second on
 * an idle machine; the test allows {@value #NOTICE_BOUND_MS} ms, still far under the beat, for a loaded one),
 * and reads the account's portfolio once, at its start. The market is in {@code e2e/agent-notice.scn}.
 */
@DisabledOnOs(OS.WINDOWS)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class AgentNoticeEndToEndTest
{
    private static final String MARKET = "WL-N";
    /** How soon after the notice the workload must have its SIGTERM: a notice pushed, not found by a minute's beat. */
    private static final long NOTICE_BOUND_MS = 10_000;
    /** An interval that no part of the test waits for: whatever the agent does in it, no poll explains. */
    private static final Duration INTERVAL = Duration.ofSeconds(60);
    /** A job that runs until SIGTERM, then prints when it got it (wall-clock ms) and the notice file, and exits 0. */
    private static final String TRAP_TERM = "trap 'echo \"got-term $(date +%s%3N)\"; cat \"$GPUX_NOTICE_FILE\"; exit 0' TERM; "
        + "echo started; while true; do sleep 0.1; done";
    private static final Pattern GOT_TERM = Pattern.compile("got-term (\\d+)");

    @TempDir
    Path dir;

    @RegisterExtension
    final DumpOnFailure dump = new DumpOnFailure();

    private ServerProcess server;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final Recorder ownerEvents = new Recorder("owner");
    private final Recorder renterEvents = new Recorder("renter");
    private final WorkloadStatuses statuses = new WorkloadStatuses();
    private final List<String> agentLog = new CopyOnWriteArrayList<>();
    private final AtomicInteger ownerPortfolios = new AtomicInteger();
    private GpuxClient admin;
    private GpuxClient owner;
    private GpuxClient renter;

    @BeforeEach
    void startServer() throws Exception
    {
        server = new ServerProcess(dir, E2e.resource("agent-notice.scn", dir), 1000).start();
        dump.register("server", server::log);
        dump.register("agent", () -> String.join("\n", agentLog));
        dump.register("statuses", statuses::toString);
        dump.register("owner", () -> E2e.describe(ownerEvents.events()));
        dump.register("renter", () -> E2e.describe(renterEvents.events()));
        admin = E2e.connectQuick(server.port(), server.adminKey(), new Recorder("admin"), closeables);
        owner = E2e.connectQuick(server.port(), E2e.account(admin, "owner", Role.OWNER, 0), ownerEvents, closeables);
        owner.addListener(new ClientListener()
        {
            @Override
            public void onPortfolio(final long requestId, final Portfolio portfolio)
            {
                ownerPortfolios.incrementAndGet();
            }
        });
        renter = E2e.connectQuick(server.port(), E2e.account(admin, "renter", Role.RENTER, 1_000_000_000L), renterEvents,
            closeables);
        renter.addListener(statuses);
    }

    @AfterEach
    void tearDown()
    {
        E2e.closeAllQuietly(closeables, server);
    }

    @Test
    void aPreemptionReachesTheWorkloadWithinASecondThoughTheAgentBeatsOnceAMinute() throws Exception
    {
        final Path stateDir = dir.resolve("agent-state");
        final OwnerAgent agent = E2e.workloadAgent(owner, MARKET, "m1", INTERVAL, dir,
            new WorkloadSupervisorContext().stateDir(stateDir).runtime(new ProcessRuntime(null, agentLog::add)),
            agentLog::add, closeables);
        agent.start();
        E2e.await("the ask is posted", () -> agent.askOrderId() != 0);

        ok(renter, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder().setOrderId(1).setMarket(MARKET).setGpus(1)
            .setPrice(Money.parsePrice("1.0"))));
        final long lease = renterEvents.await("the lease", TIMEOUT, e -> e.getKindCase() == AccountEvent.KindCase.LEASE_STARTED)
            .getLeaseStarted().getLeaseId();
        assertEquals(Reason.REASON_OK, renter.launch(lease, WorkloadSpecs.toProto(WorkloadSpec.process(TRAP_TERM, Map.of()),
            null, 1), TIMEOUT).getReason());
        E2e.await("the job runs", TIMEOUT, () -> statuses.state(lease, WorkloadState.WORKLOAD_RUNNING) != null,
            statuses::toString);
        // RUNNING is the process spawned; its shell has set its TERM trap once it has said "started"
        final Path workloadLog = stateDir.resolve("leases").resolve(Long.toString(lease)).resolve("workload.log");
        E2e.await("the job's trap is set", TIMEOUT, () -> E2e.fileSays(workloadLog, "started"), workloadLog::toString);
        E2e.await("the agent knows the lease", () -> agent.leasesOnMachine() == 1);

        // a higher bid takes the GPU: the owner hears the notice as the renter does, and the workload at once
        final GpuxClient bigger = E2e.connectQuick(server.port(), E2e.account(admin, "bigger", Role.RENTER, 1_000_000_000L),
            new Recorder("bigger"), closeables);
        ok(bigger, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder().setOrderId(1).setMarket(MARKET).setGpus(1)
            .setPrice(Money.parsePrice("5.0"))));
        final AccountEvent notice = renterEvents.await("the renter's notice", TIMEOUT,
            e -> e.getKindCase() == AccountEvent.KindCase.PREEMPT_NOTICE);
        final AccountEvent ownersNotice = ownerEvents.await("the owner's notice", TIMEOUT,
            e -> e.getKindCase() == AccountEvent.KindCase.PREEMPT_NOTICE);
        assertEquals(notice.getPreemptNotice(), ownersNotice.getPreemptNotice(), "the same notice");
        assertEquals(lease, notice.getPreemptNotice().getLeaseId());
        E2e.await("the workload ends on SIGTERM", TIMEOUT, () -> statuses.state(lease, WorkloadState.WORKLOAD_EXITED) != null,
            statuses::toString);

        final String written = Files.readString(workloadLog);
        final Matcher term = GOT_TERM.matcher(written);
        assertTrue(term.find(), written);
        final long termMs = Long.parseLong(term.group(1));
        assertTrue(termMs - notice.getTimeMs() < NOTICE_BOUND_MS,
            "SIGTERM " + (termMs - notice.getTimeMs()) + " ms after the notice, not within " + NOTICE_BOUND_MS + " ms: " + written);
        System.out.printf("agent notice: SIGTERM %d ms after the notice%n", termMs - notice.getTimeMs());
        assertTrue(written.contains("\"effectiveAtMs\":" + notice.getPreemptNotice().getEffectiveMs())
            && written.contains("\"reason\":\"a higher bid preempted the lease\""), written);

        // the preempted lease ends and the bigger one starts: the agent follows from the events alone
        final AccountEvent ended = ownerEvents.await("the preempted lease's end", TIMEOUT,
            e -> e.getKindCase() == AccountEvent.KindCase.LEASE_ENDED && e.getLeaseEnded().getLeaseId() == lease);
        assertEquals(EndReason.PREEMPTED, ended.getLeaseEnded().getReason());
        ownerEvents.await("the bigger lease starts", TIMEOUT, e -> e.getKindCase() == AccountEvent.KindCase.LEASE_STARTED
            && e.getLeaseStarted().getLeaseId() != lease);
        E2e.await("the agent counts the bigger lease alone", () -> agent.leasesOnMachine() == 1);
        assertEquals(1, agent.heartbeats(), "no second interval ran: nothing of this came from polling");
        assertEquals(1, ownerPortfolios.get(), "one portfolio, at the start");
    }
}
