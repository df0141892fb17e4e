package io.gpux.client.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.client.GpuxClient;
import io.gpux.common.Money;
import io.gpux.proto.v1.Cancel;
import io.gpux.proto.v1.CreateMarket;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Replace;
import io.gpux.proto.v1.Role;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** The owner agent re-prices its ask: undercutting a rival down to the reserve, clearing, and never against its own. */
@DisabledOnOs(OS.WINDOWS)
class OwnerAgentRepricingTest extends OwnerAgentHarness
{
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
}
