package io.gpux.gateway.egress;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.command.Command;
import io.gpux.engine.replay.ScenarioException;
import io.gpux.engine.replay.ScenarioParser;
import io.gpux.engine.replay.Symbols;
import io.gpux.gateway.directory.Directory;
import io.gpux.gateway.directory.MachineTelemetry;
import io.gpux.proto.v1.GpuTelemetry;
import io.gpux.proto.v1.LeaseInfo;
import io.gpux.proto.v1.LeaseState;
import io.gpux.proto.v1.MachineInfo;
import io.gpux.proto.v1.OpenOrder;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.Side;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A portfolio holds exactly the account's own orders, leases (as renter and as owner) and machines, read from
 * the account's lists, among machines and leases of other accounts; it follows leases ending; an account that
 * does not exist has an empty one.
 */
class PortfolioViewTest
{
    private final Symbols symbols = new Symbols();
    private final ScenarioParser parser = new ScenarioParser(symbols);
    private final MatchingEngine engine = new MatchingEngine(event -> { });
    private final Directory directory = new Directory();
    private final Map<Long, MachineTelemetry> telemetry = new ConcurrentHashMap<>();
    private int line;

    private void run(final String text) throws ScenarioException
    {
        final Command c = new Command();
        for (final String l : text.split("\n"))
        {
            if (parser.parse(l, ++line, c))
            {
                engine.apply(c);
            }
        }
    }

    private Portfolio portfolio(final String account)
    {
        return PortfolioView.copy(engine.account(symbols.accounts.existing(account)), engine.lastCommandTime(), directory, telemetry).encode().build();
    }

    @Test
    void holdsWhatTheAccountHasAndNothingElse() throws ScenarioException
    {
        run("""
            0 CONFIG heartbeatTimeoutMs=0
            0 MARKET id=H100 preemption=off
            0 ACCOUNT id=o1 roles=OWNER
            0 ACCOUNT id=both roles=OWNER,RENTER
            0 ACCOUNT id=r1 roles=RENTER
            0 DEPOSIT account=both amount=1000
            0 DEPOSIT account=r1 amount=1000
            0 MACHINE id=m1 owner=o1 market=H100 gpus=4
            0 MACHINE id=m2 owner=both market=H100 gpus=2
            0 MACHINE id=m3 owner=o1 market=H100 gpus=8
            0 HEARTBEAT machine=m1
            0 HEARTBEAT machine=m2
            0 HEARTBEAT machine=m3
            10 ASK id=a1 account=o1 machine=m1 gpus=4 price=1.0000
            20 ASK id=a2 account=both machine=m2 gpus=2 price=2.0000
            30 ASK id=a3 account=o1 machine=m3 gpus=8 price=1.5000
            40 BID id=b1 account=both market=H100 gpus=1 price=1.0000
            50 BID id=b2 account=r1 market=H100 gpus=3 price=1.0000
            60 BID id=b3 account=r1 market=H100 gpus=8 price=1.5000
            70 BID id=b4 account=r1 market=H100 gpus=1 price=2.0000
            80 BID id=b5 account=both market=H100 gpus=1 price=0.5000
            """);
        final long m1 = symbols.machines.existing("m1");
        final long m2 = symbols.machines.existing("m2");
        final GpuTelemetry gpu = GpuTelemetry.newBuilder().setUuid("GPU-0").setUtilizationPct(50).build();
        telemetry.put(m2, new MachineTelemetry(0, List.of(gpu)));

        final Portfolio p = portfolio("both");
        final long both = symbols.accounts.existing("both");
        assertEquals(engine.account(both).balance, p.getBalance());
        assertEquals(engine.account(both).available(), p.getAvailable());
        assertEquals(List.of(
            OpenOrder.newBuilder().setOrderId(symbols.orders.existing("a2")).setMarket("H100").setSide(Side.ASK)
                .setPrice(engine.account(both).openOrder(symbols.orders.existing("a2")).price).setOpenGpus(1)
                .setMachineId(m2).build(),
            OpenOrder.newBuilder().setOrderId(symbols.orders.existing("b5")).setMarket("H100").setSide(Side.BID)
                .setPrice(engine.account(both).openOrder(symbols.orders.existing("b5")).price).setOpenGpus(1).build()),
            p.getOrdersList());
        assertEquals(2, p.getLeasesCount(), p.toString());
        final LeaseInfo rented = p.getLeases(0);
        assertTrue(rented.getRenter());
        assertEquals(m1, rented.getMachineId());
        assertEquals(1, rented.getGpus());
        assertEquals(LeaseState.ACTIVE, rented.getState());
        assertEquals(40, rented.getStartMs());
        final LeaseInfo owned = p.getLeases(1);
        assertTrue(!owned.getRenter());
        assertEquals(m2, owned.getMachineId());
        assertEquals(70, owned.getStartMs());
        assertEquals(List.of(MachineInfo.newBuilder().setMachineId(m2).setName(engine.machine(m2).name).setMarket("H100")
            .setGpus(2).setOnline(true).setReliabilityPpm(950_000).addTelemetry(gpu).build()), p.getMachinesList());

        final Portfolio other = portfolio("o1");
        assertEquals(2, other.getMachinesCount());
        assertEquals(3, other.getLeasesCount(), "b1 and b2 on m1, b3 on m3: " + other);
        assertTrue(other.getLeasesList().stream().noneMatch(LeaseInfo::getRenter));

        run("90 RELEASE account=both lease=L" + rented.getLeaseId());
        final Portfolio after = portfolio("both");
        assertEquals(1, after.getLeasesCount());
        assertEquals(owned.getLeaseId(), after.getLeases(0).getLeaseId());
    }

    @Test
    void anAccountThatDoesNotExistHasNothing()
    {
        final Portfolio p = PortfolioView.copy(null, 0, directory, telemetry).encode().build();
        assertEquals(Portfolio.getDefaultInstance(), p);
    }
}
