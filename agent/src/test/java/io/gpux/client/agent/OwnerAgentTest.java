package io.gpux.client.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.client.ClientContext;
import io.gpux.client.ClientListener;
import io.gpux.client.GpuxClient;
import io.gpux.common.Money;
import io.gpux.gateway.Exchange;
import io.gpux.gateway.ExchangeContext;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Cancel;
import io.gpux.proto.v1.CreateAccount;
import io.gpux.proto.v1.CreateKey;
import io.gpux.proto.v1.CreateMarket;
import io.gpux.proto.v1.Deposit;
import io.gpux.proto.v1.EndReason;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.GpuTelemetry;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.MachineInfo;
import io.gpux.proto.v1.NoticeReason;
import io.gpux.proto.v1.OpenOrder;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Release;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Replace;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.Role;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The owner agent against a real exchange in process, with a fake nvidia-smi (a shell script printing
 * the captured H200 output for two GPUs). The agents read a clock the test moves: while a test waits for
 * something, each poll moves it one heartbeat interval and wakes the agents, so intervals go by as fast as
 * the agents run them, never at the pace of the wall clock.
 */
@DisabledOnOs(OS.WINDOWS)
class OwnerAgentTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Duration INTERVAL = Duration.ofMillis(100);
    private static final String UUID_2 = "GPU-5f1d0c2e-0000-4000-8000-000000000002";

    @TempDir
    static Path exchangeDir;
    static Exchange exchange;
    static GpuxClient admin;

    @TempDir
    Path dir;
    final List<AutoCloseable> closeAfter = new ArrayList<>();
    /** The agents' clock: it moves only when a test moves it. */
    final CachedNanoClock clock = new CachedNanoClock();
    final List<OwnerAgent> agents = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void startExchange() throws Exception
    {
        exchange = Exchange.start(exchangeContext(exchangeDir).port(0));
        final Exchange.Key key = exchange.bootstrapKey();
        admin = connect(exchange.port(), key.keyId(), key.secret(), null);
    }

    @AfterAll
    static void stopExchange()
    {
        if (admin != null)
        {
            admin.close();
        }
        if (exchange != null)
        {
            exchange.close();
        }
    }

    /**
     * An exchange with a generous session heartbeat: the gateway drops a connection that sends nothing
     * for two intervals before its Login, which a cold client on a busy 2-core machine can miss.
     */
    static ExchangeContext exchangeContext(final Path dataDir)
    {
        return new ExchangeContext().dataDir(dataDir).heartbeatIntervalMs(5_000).loginTimeoutMs(10_000).log(line -> { });
    }

    @AfterEach
    void closeAll() throws Exception
    {
        for (int i = closeAfter.size() - 1; i >= 0; i--)
        {
            closeAfter.get(i).close();
        }
    }

    // ------------------------------------------------------------------------------------------

    @Test
    void registersTheFixtureMachineGoesOnlineAndLeasesToARenter() throws Exception
    {
        final Recorder ownerEvents = new Recorder();
        final GpuxClient owner = client(account("owner-a", Role.OWNER, 0), ownerEvents);
        final Recorder renterEvents = new Recorder();
        final GpuxClient renter = client(account("renter-a", Role.RENTER, 1_000), renterEvents);
        final Reports reports = new Reports();
        final OwnerAgent agent = agent(new OwnerAgentContext().client(owner).machineName("h200-node-1")
            .reservePrice(Money.parsePrice("2.0")).price(Money.parsePrice("3.0")).listener(reports));
        agent.start();

        await("the ask is posted", () -> agent.askOrderId() != 0);
        assertEquals(2, agent.gpus().size());
        assertTrue(ownerEvents.has(e -> e.getKindCase() == AccountEvent.KindCase.MACHINE_ONLINE
            && e.getMachineOnline().getMachineId() == agent.machineId()), "the first heartbeat brings it online");
        assertEquals(List.of("registered h200-node-1 H200-141G 2", "online " + agent.machineId()),
            reports.lines.subList(0, 2));

        final Portfolio p = owner.portfolio(TIMEOUT);
        final MachineInfo machine = p.getMachines(0);
        assertEquals("h200-node-1", machine.getName());
        assertEquals("H200-141G", machine.getMarket());
        assertEquals(2, machine.getGpus());
        assertTrue(machine.getOnline());
        assertEquals(2, machine.getTelemetryCount(), machine.toString());
        final GpuTelemetry t = machine.getTelemetry(0);
        assertEquals(H200Fixtures.UUID, t.getUuid());
        assertEquals(143_771, t.getMemoryTotalMib());
        assertEquals(36, t.getTemperatureC());
        assertEquals(121_740, t.getPowerDrawMw());
        assertEquals(700_000, t.getPowerLimitMw());
        assertEquals(UUID_2, machine.getTelemetry(1).getUuid());
        assertEquals(List.of(ask(agent.askOrderId(), 2, "3.0000")), asks(p));

        final Response bid = renter.call(Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder().setOrderId(1)
            .setMarket("H200-141G").setGpus(1).setPrice(Money.parsePrice("3.5"))), TIMEOUT);
        assertEquals(Reason.REASON_OK, bid.getReason());
        final AccountEvent fill = renterEvents.first(AccountEvent.KindCase.FILL);
        assertEquals(Money.parsePrice("3.0"), fill.getFill().getPrice(), "the resting ask sets the price");
        assertEquals(agent.askOrderId(), fill.getFill().getCounterOrderId());
        await("the owner hears of the lease", () -> reports.lines.contains(
            "lease " + fill.getFill().getLeaseId() + " 1 3.0000"));
        await("one GPU left on the ask", () -> asks(owner.portfolio(TIMEOUT)).equals(
            List.of(ask(agent.askOrderId(), 1, "3.0000"))));

        final Response again = owner.call(Envelope.newBuilder().setRegisterMachine(RegisterMachine.newBuilder()
            .setName("h200-node-1").setMarket("H200-141G").setGpus(2)), TIMEOUT);
        assertEquals(agent.machineId(), again.getAssignedId(), "the same name answers the same machine");
    }

    @Test
    void drivenByHandItRunsAnIntervalWhenTheInjectedClockSaysItIsDueOrAtOnceWhenWoken() throws Exception
    {
        final GpuxClient owner = client(account("owner-hand", Role.OWNER, 0), new Recorder());
        final Reports reports = new Reports();
        final OwnerAgent agent = agent(new OwnerAgentContext().client(owner).machineName("h200-by-hand")
            .reservePrice(Money.parsePrice("2.0")).price(Money.parsePrice("3.0")).listener(reports));

        assertTrue(agent.doWork() > 0, "the first call runs the first interval");
        assertEquals(1, agent.heartbeats());
        assertEquals(0, agent.doWork(), "the clock has not moved: nothing is due");
        clock.advance(INTERVAL.toNanos() - 1);
        assertEquals(0, agent.doWork(), "a nanosecond short of the interval");
        assertEquals(1, agent.heartbeats());
        clock.advance(1);
        assertTrue(agent.doWork() > 0, "the interval is due");
        assertEquals(2, agent.heartbeats());
        for (int i = 0; i < 10 && agent.askOrderId() == 0; i++)
        {
            clock.advance(INTERVAL.toNanos());
            agent.doWork();
        }
        assertNotEquals(0, agent.askOrderId(), "the ask is posted within a few intervals");

        final long heartbeats = agent.heartbeats();
        agent.reclaim();
        assertTrue(agent.doWork() > 0, "a wake-up runs the interval at once, the clock unmoved");
        assertEquals(heartbeats + 1, agent.heartbeats());
        assertTrue(agent.isReclaimed());
        assertEquals(0, agent.askOrderId());
        assertEquals(0, agent.doWork(), "one wake-up, one interval");
        assertEquals(heartbeats + 1, agent.heartbeats());
    }

    @Test
    void undercutFollowsTheBestOtherAskDownToTheReserveKeepingTheOrderId() throws Exception
    {
        createMarket(CreateMarket.newBuilder().setSymbol("UNDERCUT-TEST"));
        final GpuxClient owner = client(account("owner-u", Role.OWNER, 0), null);
        final GpuxClient rival = client(account("rival-u", Role.OWNER, 0), null);
        final OwnerAgent agent = agent(new OwnerAgentContext().client(owner).machineName("u1").market("UNDERCUT-TEST")
            .reservePrice(Money.parsePrice("2.0")).price(Money.parsePrice("3.0")).undercut(true));
        agent.start();
        await("alone on the book, it asks its price", () -> agent.askPrice() == Money.parsePrice("3.0"));
        final long orderId = agent.askOrderId();

        final long rivalMachine = rival.call(Envelope.newBuilder().setRegisterMachine(RegisterMachine.newBuilder()
            .setName("r1").setMarket("UNDERCUT-TEST").setGpus(1)), TIMEOUT).getAssignedId();
        rival.call(Envelope.newBuilder().setMachineHeartbeat(MachineHeartbeat.newBuilder().setMachineId(rivalMachine)), TIMEOUT);
        assertEquals(Reason.REASON_OK, rival.call(Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder().setOrderId(9)
            .setMachineId(rivalMachine).setGpus(1).setPrice(Money.parsePrice("2.5"))), TIMEOUT).getReason());
        await("one tick below the rival", () -> agent.askPrice() == Money.parsePrice("2.4999"));
        assertEquals(agent.askPrice(), asks(owner.portfolio(TIMEOUT)).get(0).getPrice());

        assertEquals(Reason.REASON_OK, rival.call(Envelope.newBuilder().setReplace(Replace.newBuilder().setOrderId(9)
            .setPrice(Money.parsePrice("1.5"))), TIMEOUT).getReason());
        await("never below the reserve", () -> agent.askPrice() == Money.parsePrice("2.0"));
        awaitFullCycles(agent, 2);
        assertEquals(Money.parsePrice("2.0"), agent.askPrice(), "it stays at the reserve");
        assertEquals(orderId, agent.askOrderId(), "re-priced by Replace: the same order id");

        assertEquals(Reason.REASON_OK, rival.call(Envelope.newBuilder().setCancel(Cancel.newBuilder().setOrderId(9)),
            TIMEOUT).getReason());
        await("alone again, back to its price", () -> agent.askPrice() == Money.parsePrice("3.0"));
        assertEquals(List.of(ask(orderId, 2, "3.0000")), asks(owner.portfolio(TIMEOUT)));
    }

    @Test
    void clearingStepsAnIdleAskDownToTheReserveAndAFullyLeasedOneUpToItsPrice() throws Exception
    {
        createMarket(CreateMarket.newBuilder().setSymbol("CLEAR-TEST"));
        final GpuxClient owner = client(account("owner-c", Role.OWNER, 0), null);
        final GpuxClient renter = client(account("renter-c", Role.RENTER, 1_000), null);
        final OwnerAgent agent = agent(new OwnerAgentContext().client(owner).machineName("c1").market("CLEAR-TEST")
            .reservePrice(Money.parsePrice("2.0")).price(Money.parsePrice("3.0")).clearEvery(Duration.ofMillis(1)));
        agent.start();
        await("idle, it comes down to the reserve", () -> agent.askPrice() == Money.parsePrice("2.0"));
        final long orderId = agent.askOrderId();
        awaitFullCycles(agent, 2);
        assertEquals(Money.parsePrice("2.0"), agent.askPrice(), "never below the reserve");

        assertEquals(Reason.REASON_OK, renter.call(Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder().setOrderId(1)
            .setMarket("CLEAR-TEST").setGpus(2).setPrice(Money.parsePrice("3.5"))), TIMEOUT).getReason());
        await("fully leased, it goes up to its price", () -> agent.askPrice() == Money.parsePrice("3.0"));
        awaitFullCycles(agent, 2);
        assertEquals(Money.parsePrice("3.0"), agent.askPrice(), "never above its price");
        assertEquals(orderId, agent.askOrderId(), "re-priced by Replace: the same order id");
    }

    @Test
    void twoMachinesOfOneOwnerNeverUndercutEachOtherButBothUndercutARival() throws Exception
    {
        createMarket(CreateMarket.newBuilder().setSymbol("SIBLING-TEST"));
        final String[] ownerKey = account("owner-s", Role.OWNER, 0);
        final GpuxClient rival = client(account("rival-s", Role.OWNER, 0), null);
        final Reports reportsA = new Reports();
        final Reports reportsB = new Reports();
        final GpuxClient ownerA = client(ownerKey, null);
        final OwnerAgent a = agent(new OwnerAgentContext().client(ownerA).machineName("s1")
            .market("SIBLING-TEST").reservePrice(Money.parsePrice("2.0")).price(Money.parsePrice("3.0")).undercut(true)
            .listener(reportsA));
        a.start();
        await("the first machine asks its price", () -> a.askPrice() == Money.parsePrice("3.0"));
        final OwnerAgent b = agent(new OwnerAgentContext().client(client(ownerKey, null)).machineName("s2")
            .market("SIBLING-TEST").reservePrice(Money.parsePrice("2.0")).price(Money.parsePrice("3.0")).undercut(true)
            .listener(reportsB));
        b.start();
        await("the second machine asks its price too", () -> b.askPrice() == Money.parsePrice("3.0"));
        awaitIntervals(a, b);
        assertEquals(List.of(ask(a.askOrderId(), 2, "3.0000"), ask(b.askOrderId(), 2, "3.0000")),
            asks(ownerA.portfolio(TIMEOUT)), "neither went under the other");
        assertTrue(reportsA.lines.stream().noneMatch(l -> l.startsWith("replaced"))
            && reportsB.lines.stream().noneMatch(l -> l.startsWith("replaced")), reportsA.lines + " " + reportsB.lines);

        final long rivalMachine = rival.call(Envelope.newBuilder().setRegisterMachine(RegisterMachine.newBuilder()
            .setName("rs1").setMarket("SIBLING-TEST").setGpus(1)), TIMEOUT).getAssignedId();
        rival.call(Envelope.newBuilder().setMachineHeartbeat(MachineHeartbeat.newBuilder().setMachineId(rivalMachine)), TIMEOUT);
        assertEquals(Reason.REASON_OK, rival.call(Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder().setOrderId(9)
            .setMachineId(rivalMachine).setGpus(1).setPrice(Money.parsePrice("2.5"))), TIMEOUT).getReason());
        await("both one tick below the rival", () -> a.askPrice() == Money.parsePrice("2.4999")
            && b.askPrice() == Money.parsePrice("2.4999"));
        awaitIntervals(a, b);
        assertEquals(Money.parsePrice("2.4999"), a.askPrice(), "they stay there: " + reportsA.lines);
        assertEquals(Money.parsePrice("2.4999"), b.askPrice(), "they stay there: " + reportsB.lines);
        assertEquals(List.of(ask(a.askOrderId(), 2, "2.4999"), ask(b.askOrderId(), 2, "2.4999")),
            asks(ownerA.portfolio(TIMEOUT)));

        assertEquals(Reason.REASON_OK, rival.call(Envelope.newBuilder().setCancel(Cancel.newBuilder().setOrderId(9)),
            TIMEOUT).getReason());
        await("the rival gone, both back to their price", () -> a.askPrice() == Money.parsePrice("3.0")
            && b.askPrice() == Money.parsePrice("3.0"));
    }

    /** Waits until both agents have heartbeated five more times: five intervals of pricing each. */
    private void awaitIntervals(final OwnerAgent a, final OwnerAgent b) throws Exception
    {
        final long heartbeatsA = a.heartbeats();
        final long heartbeatsB = b.heartbeats();
        await("intervals go by", () -> a.heartbeats() >= heartbeatsA + 5 && b.heartbeats() >= heartbeatsB + 5);
    }

    @Test
    void reclaimNoticesTheRenterEndsTheLeaseAfterTheGraceAndResumePostsAgain() throws Exception
    {
        createMarket(CreateMarket.newBuilder().setSymbol("RECLAIM-TEST").setGraceMs(200));
        final GpuxClient owner = client(account("owner-r", Role.OWNER, 0), null);
        final Recorder renterEvents = new Recorder();
        final GpuxClient renter = client(account("renter-r", Role.RENTER, 1_000), renterEvents);
        final Reports reports = new Reports();
        final Path reclaimFile = dir.resolve("reclaim");
        final OwnerAgent agent = agent(new OwnerAgentContext().client(owner).machineName("r1").market("RECLAIM-TEST")
            .reservePrice(Money.parsePrice("1.0")).reclaimFile(reclaimFile).listener(reports));
        agent.start();
        await("the ask is posted", () -> agent.askOrderId() != 0);
        final long firstAsk = agent.askOrderId();
        assertEquals(Reason.REASON_OK, renter.call(Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder().setOrderId(1)
            .setMarket("RECLAIM-TEST").setGpus(1).setPrice(Money.parsePrice("1.0"))), TIMEOUT).getReason());
        final long lease = renterEvents.first(AccountEvent.KindCase.LEASE_STARTED).getLeaseStarted().getLeaseId();

        Files.createFile(reclaimFile);
        await("the renter gets an owner-reclaim notice", () -> renterEvents.has(AccountEvent.KindCase.PREEMPT_NOTICE));
        final AccountEvent notice = renterEvents.first(AccountEvent.KindCase.PREEMPT_NOTICE);
        assertEquals(lease, notice.getPreemptNotice().getLeaseId());
        assertEquals(NoticeReason.NOTICE_OWNER_RECLAIM, notice.getPreemptNotice().getReason());
        assertEquals(notice.getTimeMs() + 200, notice.getPreemptNotice().getEffectiveMs(), "the market's grace");
        await("the agent reports the reclaim", () -> reports.lines.contains("reclaimed " + firstAsk));
        assertTrue(agent.isReclaimed());

        await("the lease ends at the notice's effective time", () -> renterEvents.has(AccountEvent.KindCase.LEASE_ENDED));
        final AccountEvent ended = renterEvents.first(AccountEvent.KindCase.LEASE_ENDED);
        assertEquals(EndReason.OWNER_RECLAIMED, ended.getLeaseEnded().getReason());
        assertEquals(notice.getPreemptNotice().getEffectiveMs(), ended.getTimeMs());

        awaitFullCycles(agent, 2);
        assertEquals(List.of(), asks(owner.portfolio(TIMEOUT)), "nothing is posted while reclaimed");
        assertTrue(owner.portfolio(TIMEOUT).getMachines(0).getOnline());

        Files.delete(reclaimFile);
        await("posted again once the file is gone", () -> agent.askOrderId() != 0);
        assertFalse(agent.isReclaimed());
        assertNotEquals(firstAsk, agent.askOrderId());
        assertEquals(List.of(ask(agent.askOrderId(), 2, "1.0000")), asks(owner.portfolio(TIMEOUT)), "both GPUs free again");
        await("the agent reports the resume", () -> reports.lines.contains("resumed"));

        agent.reclaim();
        await("reclaimed by a call", () -> agent.isReclaimed() && agent.askOrderId() == 0);
        assertEquals(List.of(), asks(owner.portfolio(TIMEOUT)));
        agent.resume();
        await("resumed by a call", () -> !agent.isReclaimed() && agent.askOrderId() != 0);
    }

    @Test
    void keepsItsAskFromTheEventsAndReadsThePortfolioOnlyAtItsStart() throws Exception
    {
        createMarket(CreateMarket.newBuilder().setSymbol("EVENTS-TEST"));
        final AtomicInteger portfolios = new AtomicInteger();
        final GpuxClient owner = client(account("owner-e", Role.OWNER, 0), new ClientListener()
        {
            @Override
            public void onPortfolio(final long requestId, final Portfolio portfolio)
            {
                portfolios.incrementAndGet();
            }
        });
        final Recorder renterEvents = new Recorder();
        final GpuxClient renter = client(account("renter-e", Role.RENTER, 1_000), renterEvents);
        final Reports reports = new Reports();
        final OwnerAgent agent = agent(new OwnerAgentContext().client(owner).machineName("e1").market("EVENTS-TEST")
            .reservePrice(Money.parsePrice("2.0")).price(Money.parsePrice("3.0")).listener(reports));
        agent.start();
        await("the ask is posted", () -> agent.askOrderId() != 0);
        final long ask = agent.askOrderId();

        assertEquals(Reason.REASON_OK, renter.call(Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder().setOrderId(1)
            .setMarket("EVENTS-TEST").setGpus(1).setPrice(Money.parsePrice("3.0"))), TIMEOUT).getReason());
        final long lease = renterEvents.first(AccountEvent.KindCase.LEASE_STARTED).getLeaseStarted().getLeaseId();
        await("the agent counts the lease", () -> agent.leasesOnMachine() == 1);

        // the renter lets it go: its GPU goes back to the ask, which the agent knows without asking
        assertEquals(Reason.REASON_OK, renter.call(Envelope.newBuilder().setRelease(Release.newBuilder().setLeaseId(lease)),
            TIMEOUT).getReason());
        await("the agent counts no lease", () -> agent.leasesOnMachine() == 0);
        final long heartbeats = agent.heartbeats();
        await("intervals go by", () -> agent.heartbeats() >= heartbeats + 5);
        assertEquals(1, portfolios.get(), "one portfolio, at the start, whatever the intervals and events since");
        assertTrue(reports.lines.stream().noneMatch(l -> l.startsWith("replaced")),
            "no Replace: the agent knew the GPU was back on its ask: " + reports.lines);
        assertEquals(ask, agent.askOrderId());
        assertEquals(List.of(ask(ask, 2, "3.0000")), asks(owner.portfolio(TIMEOUT)), "both GPUs on the same ask");
    }

    @Test
    void keepsHeartbeatingWithoutTelemetryWhileNvidiaSmiFails() throws Exception
    {
        createMarket(CreateMarket.newBuilder().setSymbol("FAILING-SMI"));
        final GpuxClient owner = client(account("owner-f", Role.OWNER, 0), null);
        final Reports reports = new Reports();
        final OwnerAgent agent = agent(new OwnerAgentContext().client(owner).machineName("f1").market("FAILING-SMI")
            .reservePrice(Money.parsePrice("1.0")).listener(reports));
        agent.start();
        await("the ask is posted", () -> agent.askOrderId() != 0);

        Files.createFile(dir.resolve("fail"));
        await("the failure is reported", () -> agent.telemetryFailures() >= 2);
        final long heartbeats = agent.heartbeats();
        await("heartbeats go on", () -> agent.heartbeats() >= heartbeats + 3);
        assertEquals(1, reports.lines.stream().filter(l -> l.startsWith("nvidia-smi failed")).count(),
            "reported once per run of failures: " + reports.lines);
        assertTrue(owner.portfolio(TIMEOUT).getMachines(0).getOnline());

        Files.delete(dir.resolve("fail"));
        await("recovery is reported", () -> reports.lines.contains("nvidia-smi recovered"));
    }

    @Test
    void reRegistersAndGoesOnAfterTheExchangeRestarts(@TempDir final Path dataDir) throws Exception
    {
        Exchange own = Exchange.start(exchangeContext(dataDir).port(0));
        final int port = own.port();
        try
        {
            final Exchange.Key key = own.bootstrapKey();
            final String[] ownerKey;
            try (GpuxClient ownAdmin = connect(port, key.keyId(), key.secret(), null))
            {
                ownerKey = account(ownAdmin, "owner-x", Role.OWNER, 0);
            }
            final AtomicInteger logins = new AtomicInteger();
            final AtomicInteger portfolios = new AtomicInteger();
            final GpuxClient owner = connect(port, Long.parseLong(ownerKey[0]), ownerKey[1], new ClientListener()
            {
                @Override
                public void onLoginAccepted(final io.gpux.proto.v1.LoginAccepted accepted)
                {
                    logins.incrementAndGet();
                }

                @Override
                public void onPortfolio(final long requestId, final Portfolio portfolio)
                {
                    portfolios.incrementAndGet();
                }
            });
            closeAfter.add(owner);
            final OwnerAgent agent = agent(new OwnerAgentContext().client(owner).machineName("x1")
                .reservePrice(Money.parsePrice("1.0")));
            agent.start();
            await("the ask is posted", () -> agent.askOrderId() != 0);
            final long machine = agent.machineId();
            final long ask = agent.askOrderId();
            assertEquals(1, portfolios.get(), "read at the start");

            own.close();
            own = Exchange.start(exchangeContext(dataDir).port(port));
            await("the client logs in again", () -> logins.get() >= 2);
            final long heartbeats = agent.heartbeats();
            await("heartbeats go on", () -> agent.heartbeats() >= heartbeats + 2);
            assertEquals(machine, agent.machineId(), "registered again under the same id");
            assertEquals(ask, agent.askOrderId(), "the ask survived the restart");
            final int read = portfolios.get();
            assertTrue(read >= 2 && read <= logins.get(), "read again after the login, once a session: " + read
                + " portfolios, " + logins.get() + " logins");
            final Portfolio p = owner.portfolio(TIMEOUT);
            assertTrue(p.getMachines(0).getOnline());
            assertEquals(List.of(ask(ask, 2, "1.0000")), asks(p));
        }
        finally
        {
            closeAll();
            closeAfter.clear();
            own.close();
        }
    }

    // ------------------------------------------------------------------------------------------

    private OwnerAgent agent(final OwnerAgentContext settings) throws IOException
    {
        final OwnerAgent agent = new OwnerAgent(settings.nvidiaSmi(new NvidiaSmi(fakeNvidiaSmi(), TIMEOUT))
            .heartbeatInterval(INTERVAL).requestTimeout(TIMEOUT).nanoClock(clock));
        closeAfter.add(agent);
        agents.add(agent);
        return agent;
    }

    /**
     * A script that prints the H200 fixture for two GPUs (the captured one and a copy with another
     * uuid): discovery from query-idle.csv, telemetry from the first sample of telemetry-load.csv; it
     * fails like a broken driver while a file named {@code fail} is next to it.
     */
    private String fakeNvidiaSmi() throws IOException
    {
        final String[] idle = H200Fixtures.read("query-idle.csv").split("\n");
        Files.writeString(dir.resolve("discovery.csv"),
            idle[0] + "\n" + idle[1] + "\n" + idle[1].replace(H200Fixtures.UUID, UUID_2) + "\n");
        final String[] load = H200Fixtures.read("telemetry-load.csv").split("\n");
        Files.writeString(dir.resolve("telemetry.csv"),
            load[0] + "\n" + load[1] + "\n" + load[1].replace(H200Fixtures.UUID, UUID_2) + "\n");
        final Path script = dir.resolve("nvidia-smi");
        Files.writeString(script, "#!/bin/sh\n"
            + "d='" + dir + "'\n"
            + "if [ -e \"$d/fail\" ]; then echo 'NVIDIA-SMI has failed because it could not communicate with the driver' >&2; exit 9; fi\n"
            + "case \"$1\" in\n"
            + "  --query-gpu=timestamp,*) cat \"$d/telemetry.csv\" ;;\n"
            + "  *) cat \"$d/discovery.csv\" ;;\n"
            + "esac\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return script.toString();
    }

    private static OpenOrder ask(final long orderId, final int gpus, final String price)
    {
        return OpenOrder.newBuilder().setOrderId(orderId).setMarket("").setSide(io.gpux.proto.v1.Side.ASK)
            .setPrice(Money.parsePrice(price)).setOpenGpus(gpus).build();
    }

    /** The portfolio's asks, without market and machine, to compare with {@link #ask}. */
    private static List<OpenOrder> asks(final Portfolio p)
    {
        final List<OpenOrder> asks = new ArrayList<>();
        for (final OpenOrder o : p.getOrdersList())
        {
            if (o.getSide() == io.gpux.proto.v1.Side.ASK)
            {
                asks.add(o.toBuilder().setMarket("").setMachineId(0).build());
            }
        }
        return asks;
    }

    private static void createMarket(final CreateMarket.Builder market) throws Exception
    {
        final Response r = admin.call(Envelope.newBuilder().setCreateMarket(market), TIMEOUT);
        assertEquals(Reason.REASON_OK, r.getReason(), r.toString());
    }

    private static String[] account(final String name, final Role role, final long money) throws Exception
    {
        return account(admin, name, role, money);
    }

    /** Creates an account with a key and money (whole units); returns {keyId, secret}. */
    private static String[] account(final GpuxClient adminClient, final String name, final Role role, final long money)
        throws Exception
    {
        Response r = adminClient.call(Envelope.newBuilder().setCreateAccount(
            CreateAccount.newBuilder().setName(name).addRoles(role)), TIMEOUT);
        assertEquals(Reason.REASON_OK, r.getReason(), r.toString());
        if (money > 0)
        {
            r = adminClient.call(Envelope.newBuilder().setDeposit(
                Deposit.newBuilder().setAccount(name).setAmount(money * 1_000_000)), TIMEOUT);
            assertEquals(Reason.REASON_OK, r.getReason(), r.toString());
        }
        r = adminClient.call(Envelope.newBuilder().setCreateKey(CreateKey.newBuilder().setAccount(name)), TIMEOUT);
        assertEquals(Reason.REASON_OK, r.getReason(), r.toString());
        return new String[] {Long.toString(r.getAssignedId()), r.getSecret()};
    }

    private GpuxClient client(final String[] key, final ClientListener listener) throws Exception
    {
        final GpuxClient c = connect(exchange.port(), Long.parseLong(key[0]), key[1], listener);
        closeAfter.add(c);
        return c;
    }

    private static GpuxClient connect(final int port, final long keyId, final String secret, final ClientListener listener)
        throws Exception
    {
        final GpuxClient c = new GpuxClient(new ClientContext().port(port).keyId(keyId).secretHex(secret)
            .listener(listener).reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(200)).errorHandler(t -> { }));
        c.connect();
        return c;
    }

    /**
     * Waits until the agent has run at least this many whole cycles (heartbeat, then reclaim or ask) after the call: a
     * cycle heartbeats before it keeps its ask, so the heartbeat after them comes after their ask. The positive marker a
     * "nothing changed" assertion waits for.
     */
    private void awaitFullCycles(final OwnerAgent agent, final int cycles) throws Exception
    {
        final long heartbeats = agent.heartbeats();
        await(cycles + " more cycles of the agent", () -> agent.heartbeats() >= heartbeats + cycles + 1);
    }

    /**
     * Waits until the condition holds; while it does not, moves the agents' clock one heartbeat interval per poll
     * and wakes them, so that the next interval is due at once.
     */
    private void await(final String what, final Condition condition) throws Exception
    {
        // generous: a loaded 2-core machine runs the fake nvidia-smi slowly
        final long deadline = System.nanoTime() + 2 * TIMEOUT.toNanos();
        while (!condition.test())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("timed out waiting until " + what);
            }
            clock.advance(INTERVAL.toNanos());
            for (final OwnerAgent agent : agents)
            {
                agent.wake();
            }
            Thread.sleep(5);
        }
    }

    interface Condition
    {
        boolean test() throws Exception;
    }

    /** An account's events. */
    static final class Recorder implements ClientListener
    {
        final List<AccountEvent> events = new CopyOnWriteArrayList<>();

        @Override
        public void onEvent(final AccountEvent event)
        {
            events.add(event);
        }

        boolean has(final AccountEvent.KindCase kind)
        {
            return has(e -> e.getKindCase() == kind);
        }

        boolean has(final java.util.function.Predicate<AccountEvent> test)
        {
            return events.stream().anyMatch(test);
        }

        AccountEvent first(final AccountEvent.KindCase kind)
        {
            return events.stream().filter(e -> e.getKindCase() == kind).findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " in " + events));
        }
    }

    /** What the agent reported, as short lines. */
    static final class Reports implements OwnerAgentListener
    {
        final List<String> lines = new CopyOnWriteArrayList<>();

        @Override
        public void onRegistered(final long machineId, final String name, final String market, final int gpus)
        {
            lines.add("registered " + name + " " + market + " " + gpus);
        }

        @Override
        public void onMachineOnline(final long machineId)
        {
            lines.add("online " + machineId);
        }

        @Override
        public void onLeaseStarted(final long leaseId, final int gpus, final long price)
        {
            lines.add("lease " + leaseId + " " + gpus + " " + Money.formatPrice(price));
        }

        @Override
        public void onAskReplaced(final long orderId, final int openGpus, final long price)
        {
            lines.add("replaced " + orderId + " " + openGpus + " " + Money.formatPrice(price));
        }

        @Override
        public void onReclaimed(final long orderId)
        {
            lines.add("reclaimed " + orderId);
        }

        @Override
        public void onResumed()
        {
            lines.add("resumed");
        }

        @Override
        public void onTelemetryFailed(final NvidiaSmiException error)
        {
            lines.add("nvidia-smi failed: " + error.getMessage());
        }

        @Override
        public void onTelemetryRecovered()
        {
            lines.add("nvidia-smi recovered");
        }
    }
}
