package io.gpux.client.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.client.ClientListener;
import io.gpux.client.GpuxClient;
import io.gpux.common.Money;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.CreateMarket;
import io.gpux.proto.v1.EndReason;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.NoticeReason;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Release;
import io.gpux.proto.v1.Role;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** The owner agent with leases on its machine: reclaim and resume, and an ask kept from the events. */
@DisabledOnOs(OS.WINDOWS)
class OwnerAgentLeaseTest extends OwnerAgentHarness
{
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
}
