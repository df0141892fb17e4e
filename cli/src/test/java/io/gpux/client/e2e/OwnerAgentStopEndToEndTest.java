package io.gpux.client.e2e;

import io.gpux.client.GpuxClient;
import io.gpux.common.Money;
import io.gpux.client.agent.NvidiaSmi;
import io.gpux.client.agent.OwnerAgent;
import io.gpux.client.agent.OwnerAgentContext;
import io.gpux.client.agent.OwnerAgentListener;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.EndReason;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.NoticeReason;
import io.gpux.proto.v1.OpenOrder;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.Side;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static io.gpux.client.e2e.E2e.TIMEOUT;
import static io.gpux.client.e2e.E2e.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Stopping the owner agent against a real server process: a graceful stop reclaims the machine with
 * notice and waits for its leases to end (also when a reclaim was already running), a stop at once
 * says which leases it abandons, and the wait is bounded, also when the exchange cannot be reached.
 * The markets are in {@code e2e/agent-stop.scn}: machines go offline 4 s after their last heartbeat.
 * The tests share one server process, each with accounts of its own; the test that kills the server
 * has one of its own.
 */
@DisabledOnOs(OS.WINDOWS)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class OwnerAgentStopEndToEndTest
{
    private static final Duration INTERVAL = Duration.ofMillis(200);
    private static final long GRACE_FAST_MS = 1000;
    private static final long GRACE_SLOW_MS = 30_000;
    private static final long MARGIN_MS = 5_000;

    @RegisterExtension
    static final SharedServer SHARED = new SharedServer("agent-stop.scn", 1000);

    @TempDir
    Path dir;

    @RegisterExtension
    final DumpOnFailure dump = new DumpOnFailure();

    private ServerProcess server;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private Recorder ownerEvents;
    private Recorder renterEvents;
    private final Reports reports = new Reports();
    private GpuxClient owner;
    private GpuxClient renter;

    @BeforeEach
    void openAccounts() throws Exception
    {
        dump.register("agent reports", () -> String.join("\n", reports.lines));
        onServer(SHARED.server());
    }

    /** Connects the test's owner and renter, with accounts of their own, to the server. */
    private void onServer(final ServerProcess exchange) throws Exception
    {
        server = exchange;
        dump.register("server", server::log);
        final GpuxClient admin = connect(server.adminKey(), new Recorder("admin"));
        ownerEvents = new Recorder("owner");
        renterEvents = new Recorder("renter");
        owner = connect(E2e.account(admin, SHARED.name("owner"), Role.OWNER, 0), ownerEvents);
        renter = connect(E2e.account(admin, SHARED.name("renter"), Role.RENTER, 1_000_000_000L), renterEvents);
    }

    @AfterEach
    void tearDown()
    {
        for (int i = closeables.size() - 1; i >= 0; i--)
        {
            E2e.closeQuietly(closeables.get(i));
        }
    }

    // ------------------------------------------------------------------------------------------

    @Test
    void aGracefulStopReclaimsWithNoticeAndEndsAfterTheLeaseEnded() throws Exception
    {
        final OwnerAgent agent = agent("STOP-FAST", null, null);
        agent.start();
        final long lease = leaseOneGpu(agent, "STOP-FAST");

        agent.stop();
        final AccountEvent notice = renterEvents.await("the owner-reclaim notice", TIMEOUT,
            e -> e.getKindCase() == AccountEvent.KindCase.PREEMPT_NOTICE);
        assertEquals(lease, notice.getPreemptNotice().getLeaseId());
        assertEquals(NoticeReason.NOTICE_OWNER_RECLAIM, notice.getPreemptNotice().getReason());
        assertEquals(notice.getTimeMs() + GRACE_FAST_MS, notice.getPreemptNotice().getEffectiveMs(), "the market's full grace");

        assertTrue(agent.awaitStopped(TIMEOUT), "the agent ends once the lease has ended");
        // the agent heard the end on the owner's session; the renter's comes on its own
        renterEvents.await("the renter's lease end", TIMEOUT, e -> e.getKindCase() == AccountEvent.KindCase.LEASE_ENDED);
        final List<AccountEvent> ended = renterEvents.events(AccountEvent.KindCase.LEASE_ENDED);
        assertEquals(1, ended.size(), E2e.describe(renterEvents.events()));
        assertEquals(EndReason.OWNER_RECLAIMED, ended.get(0).getLeaseEnded().getReason());
        assertEquals(notice.getPreemptNotice().getEffectiveMs(), ended.get(0).getTimeMs(), "at the notice's effective time");
        assertTrue(agent.isStopped());
        final int endedAt = reports.lines.indexOf("lease ended " + lease + " OWNER_RECLAIMED");
        assertTrue(endedAt >= 0 && endedAt < reports.lines.indexOf("stopped 0"), reports.lines.toString());
        assertFalse(ownerEvents.events().stream().anyMatch(e -> e.getKindCase() == AccountEvent.KindCase.MACHINE_OFFLINE),
            "the machine heartbeated until the lease had ended");
        assertEquals(List.of(), machineAsks(), "the asks are withdrawn");
    }

    @Test
    void aStopWaitsForAReclaimAlreadyRunningAndKeepsItsNotice() throws Exception
    {
        final Path reclaimFile = dir.resolve("reclaim");
        final OwnerAgent agent = agent("STOP-MID", reclaimFile, null);
        agent.start();
        final long lease = leaseOneGpu(agent, "STOP-MID");

        Files.createFile(reclaimFile);
        final AccountEvent notice = renterEvents.await("the owner-reclaim notice", TIMEOUT,
            e -> e.getKindCase() == AccountEvent.KindCase.PREEMPT_NOTICE);
        E2e.await("the agent reports the reclaim", () -> agent.isReclaimed());
        agent.stop();
        E2e.await("the stop waits for the reclaimed lease", () -> reports.lines.contains("waiting 1"));
        assertFalse(agent.isStopped());

        assertTrue(agent.awaitStopped(TIMEOUT));
        final AccountEvent ended = renterEvents.await("the lease's end", TIMEOUT,
            e -> e.getKindCase() == AccountEvent.KindCase.LEASE_ENDED);
        assertEquals(lease, ended.getLeaseEnded().getLeaseId());
        assertEquals(EndReason.OWNER_RECLAIMED, ended.getLeaseEnded().getReason());
        assertEquals(notice.getPreemptNotice().getEffectiveMs(), ended.getTimeMs(), "the running reclaim's notice");
        assertEquals(1, renterEvents.events(AccountEvent.KindCase.PREEMPT_NOTICE).size(), "one notice, not a second");
        assertTrue(reports.lines.indexOf("lease ended " + lease + " OWNER_RECLAIMED") < reports.lines.indexOf("stopped 0"),
            reports.lines.toString());
    }

    @Test
    void aStopAtOnceSaysWhichLeasesItAbandonsAndTheyEndMachineOffline() throws Exception
    {
        final OwnerAgent agent = agent("STOP-SLOW", null, null);
        agent.start();
        final long lease = leaseOneGpu(agent, "STOP-SLOW");
        agent.stop();
        renterEvents.await("the owner-reclaim notice", TIMEOUT, e -> e.getKindCase() == AccountEvent.KindCase.PREEMPT_NOTICE);
        E2e.await("the stop waits", () -> reports.lines.contains("waiting 1"));

        assertEquals(1, agent.stopNow(), "the lease it leaves");
        assertTrue(agent.awaitStopped(TIMEOUT), "at once");
        final AccountEvent ended = renterEvents.await("the lease's end", TIMEOUT,
            e -> e.getKindCase() == AccountEvent.KindCase.LEASE_ENDED);
        assertEquals(lease, ended.getLeaseEnded().getLeaseId());
        assertEquals(EndReason.MACHINE_OFFLINE, ended.getLeaseEnded().getReason(), "no heartbeats: before the notice's time");
        assertFalse(reports.lines.stream().anyMatch(l -> l.startsWith("stopped ")), "a stop at once is no graceful end");
    }

    @Test
    void aStopThatLosesTheExchangeSaysSoReconnectsAndStillEndsGracefully() throws Exception
    {
        final TcpProxy proxy = new TcpProxy(server.port());
        closeables.add(proxy);
        final E2e.Key ownerKey = E2e.account(connect(server.adminKey(), new Recorder("admin-2")), SHARED.name("proxied-owner"),
            Role.OWNER, 0);
        owner = E2e.connect(proxy.port(), ownerKey, new Recorder("proxied-owner"),
            c -> c.reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(200)).errorHandler(t -> { }));
        closeables.add(owner);
        final OwnerAgent agent = agent("STOP-MID", null, null);
        agent.start();
        final long lease = leaseOneGpu(agent, "STOP-MID");
        agent.stop();
        E2e.await("the stop waits", () -> reports.lines.contains("waiting 1"));

        // the path to the exchange black-holes: the client finds the session dead and connects again
        proxy.suspendAll();
        E2e.await("the agent says it cannot reach the exchange", () -> reports.lines.stream().anyMatch(l -> l.startsWith("unreachable ")));
        assertTrue(agent.awaitStopped(TIMEOUT), "it keeps trying, reaches the exchange again and ends");
        assertEquals("stopped 0", reports.lines.get(reports.lines.size() - 1), reports.lines.toString());
        assertTrue(proxy.accepted() >= 2, "connected again");
        final AccountEvent ended = renterEvents.await("the lease's end", TIMEOUT,
            e -> e.getKindCase() == AccountEvent.KindCase.LEASE_ENDED);
        assertEquals(lease, ended.getLeaseEnded().getLeaseId());
        assertEquals(EndReason.OWNER_RECLAIMED, ended.getLeaseEnded().getReason());
    }

    @Test
    void theWaitIsBoundedAndAnUnreachableExchangeIsReportedUntilTheDeadline() throws Exception
    {
        // the exchange goes down in this test: a server of its own
        final ServerProcess own = new ServerProcess(dir, E2e.resource("agent-stop.scn", dir), 1000);
        closeables.add(own);
        onServer(own.start());
        final CachedNanoClock clock = new CachedNanoClock();
        final OwnerAgent agent = agent("STOP-SLOW", null, clock);
        E2e.await("the ask is posted (driven by hand, an interval a call)", () ->
        {
            clock.advance(INTERVAL.toNanos());
            return agent.doWork() > 0 && agent.askOrderId() != 0;
        });
        final long lease = leaseOneGpu(agent, "STOP-SLOW");

        agent.stop();
        agent.doWork();
        final long ask = renterEvents.await("the owner-reclaim notice", TIMEOUT,
            e -> e.getKindCase() == AccountEvent.KindCase.PREEMPT_NOTICE).getPreemptNotice().getLeaseId();
        assertEquals(lease, ask);
        clock.advance(INTERVAL.toNanos());
        agent.doWork();
        assertTrue(reports.lines.contains("waiting 1 " + (GRACE_SLOW_MS + MARGIN_MS - INTERVAL.toMillis())),
            "the grace plus the margin from the reclaim, an interval ago: " + reports.lines);

        clock.advance(TimeUnit.SECONDS.toNanos(20));
        server.kill();
        agent.doWork();
        assertTrue(reports.lines.stream().anyMatch(l -> l.startsWith("unreachable ") && l.endsWith(" 14800")), reports.lines.toString());
        clock.advance(INTERVAL.toNanos());
        agent.doWork();
        assertEquals(1, reports.lines.stream().filter(l -> l.startsWith("unreachable ")).count(), "said once: " + reports.lines);
        assertFalse(agent.isStopped(), "still trying before the deadline");

        clock.advance(TimeUnit.SECONDS.toNanos(15));
        agent.doWork();
        assertTrue(agent.isStopped(), "past the deadline");
        assertEquals("stopped 1", reports.lines.get(reports.lines.size() - 1), "the lease it leaves");
        assertTrue(agent.awaitStopped(Duration.ZERO));
        assertEquals(0, agent.doWork());
    }

    // ------------------------------------------------------------------------------------------

    private GpuxClient connect(final E2e.Key key, final Recorder recorder) throws Exception
    {
        final GpuxClient client = E2e.connect(server.port(), key, recorder,
            c -> c.reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(200)).errorHandler(t -> { }));
        closeables.add(client);
        return client;
    }

    private OwnerAgent agent(final String market, final Path reclaimFile, final CachedNanoClock clock) throws Exception
    {
        final OwnerAgentContext ctx = new OwnerAgentContext().client(owner).machineName("m1").market(market)
            .reservePrice(Money.parsePrice("1.0")).reclaimFile(reclaimFile).listener(reports)
            .nvidiaSmi(new NvidiaSmi(FakeNvidiaSmi.write(dir).toString(), TIMEOUT))
            .heartbeatInterval(INTERVAL).requestTimeout(Duration.ofSeconds(10)).stopMargin(Duration.ofMillis(MARGIN_MS));
        if (clock != null)
        {
            ctx.nanoClock(clock);
        }
        final OwnerAgent agent = new OwnerAgent(ctx);
        closeables.add(agent);
        return agent;
    }

    /** The renter takes the agent's one GPU; the lease id, once the agent knows of it. */
    private long leaseOneGpu(final OwnerAgent agent, final String market) throws Exception
    {
        E2e.await("the ask is posted", () -> agent.askOrderId() != 0);
        ok(renter, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder().setOrderId(1).setMarket(market).setGpus(1)
            .setPrice(Money.parsePrice("1.0"))));
        final long lease = renterEvents.await("the lease", TIMEOUT, e -> e.getKindCase() == AccountEvent.KindCase.LEASE_STARTED)
            .getLeaseStarted().getLeaseId();
        E2e.await("the agent knows the lease", () -> agent.leasesOnMachine() == 1);
        return lease;
    }

    private List<OpenOrder> machineAsks() throws Exception
    {
        return owner.portfolio(TIMEOUT).getOrdersList().stream().filter(o -> o.getSide() == Side.ASK).toList();
    }

    /** What the agent reported about leases and its stop, as short lines. */
    static final class Reports implements OwnerAgentListener
    {
        final List<String> lines = new CopyOnWriteArrayList<>();

        @Override
        public void onReclaimed(final long orderId)
        {
            lines.add("reclaimed " + orderId);
        }

        @Override
        public void onLeaseEnded(final long leaseId, final EndReason reason)
        {
            lines.add("lease ended " + leaseId + " " + reason);
        }

        @Override
        public void onStopWaiting(final int leases, final long leftMs)
        {
            lines.add("waiting " + leases);
            lines.add("waiting " + leases + " " + leftMs);
        }

        @Override
        public void onStopUnreachable(final String problem, final long leftMs)
        {
            lines.add("unreachable " + problem + " " + leftMs);
        }

        @Override
        public void onStopped(final int leasesLeft)
        {
            lines.add("stopped " + leasesLeft);
        }
    }
}
