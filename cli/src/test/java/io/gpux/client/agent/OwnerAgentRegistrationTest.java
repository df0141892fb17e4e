package io.gpux.client.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.client.ClientListener;
import io.gpux.client.GpuxClient;
import io.gpux.common.Money;
import io.gpux.gateway.Exchange;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.CreateMarket;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.GpuTelemetry;
import io.gpux.proto.v1.MachineInfo;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.Role;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The owner agent registers its machine, brings it online and keeps it so: the fixture machine leases to a renter,
 * the injected clock says when an interval is due, heartbeats go on while nvidia-smi fails, and after the exchange
 * restarts the agent registers again under the same id.
 */
@DisabledOnOs(OS.WINDOWS)
class OwnerAgentRegistrationTest extends OwnerAgentHarness
{
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
}
