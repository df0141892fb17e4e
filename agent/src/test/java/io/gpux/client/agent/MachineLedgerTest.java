package io.gpux.client.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Accepted;
import io.gpux.proto.v1.CancelReason;
import io.gpux.proto.v1.Cancelled;
import io.gpux.proto.v1.EndReason;
import io.gpux.proto.v1.Fill;
import io.gpux.proto.v1.LeaseEnded;
import io.gpux.proto.v1.LeaseInfo;
import io.gpux.proto.v1.LeaseStarted;
import io.gpux.proto.v1.LeaseState;
import io.gpux.proto.v1.MachineInfo;
import io.gpux.proto.v1.NoticeReason;
import io.gpux.proto.v1.OpenOrder;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.PreemptNotice;
import io.gpux.proto.v1.Side;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The agent's picture of its machine follows the account's events as the exchange's rules move the ask
 * and the leases (docs/market-rules.md: fills, preemption and hand-over, reclaim), from a portfolio on.
 */
class MachineLedgerTest
{
    private static final long MACHINE = 5;
    private static final long ASK = 100;
    private static final String MARKET = "H200-141G";

    private final MachineLedger ledger = new MachineLedger();
    private long seq;

    @Test
    void aPortfolioSetsTheAskAndTheLeasesAndItsEventsAreNotAppliedTwice()
    {
        ledger.machine(MACHINE, 4, MARKET);
        assertFalse(ledger.view().current(), "nothing read yet");
        ledger.onPortfolio(Portfolio.newBuilder().setLastSeq(7)
            .addMachines(MachineInfo.newBuilder().setMachineId(MACHINE).setGpus(4))
            .addOrders(OpenOrder.newBuilder().setOrderId(ASK).setSide(Side.ASK).setMachineId(MACHINE).setOpenGpus(1)
                .setPrice(30_000))
            .addOrders(OpenOrder.newBuilder().setOrderId(200).setSide(Side.ASK).setMachineId(6).setOpenGpus(2))
            .addLeases(LeaseInfo.newBuilder().setLeaseId(1).setMachineId(MACHINE).setGpus(2).setState(LeaseState.ACTIVE))
            .addLeases(LeaseInfo.newBuilder().setLeaseId(2).setMachineId(MACHINE).setGpus(1)
                .setState(LeaseState.PREEMPTING).setNoticeEffectiveMs(9_000))
            .addLeases(LeaseInfo.newBuilder().setLeaseId(3).setMachineId(MACHINE).setGpus(1).setRenter(true))
            .build());
        assertEquals(new MachineLedger.View(true, true, ASK, 30_000, 1, 1, 2), ledger.view());
        assertEquals(List.of(ASK), ledger.asks(), "the machine's asks only");
        assertEquals(Map.of(2L, 9_000L), ledger.notices());

        // the portfolio ran ahead of the stream: the events it already counts pass
        seq = 6;
        assertFalse(ledger.onEvent(ended(1, EndReason.RELEASED)));
        assertEquals(2, ledger.leaseCount());
        assertTrue(ledger.onEvent(ended(1, EndReason.RELEASED)), "seq 8: after the portfolio");
        // which ask a lease the portfolio told of came from is unknown: the agent grows the ask to the free GPUs
        // (a Replace that keeps the ask's priority when the GPUs went back to it anyway)
        assertEquals(new MachineLedger.View(true, true, ASK, 30_000, 1, 3, 1), ledger.view());
    }

    @Test
    void theAgentsAskIsFilledAndAReleasedLeaseGivesItsGpusBack()
    {
        ledger.machine(MACHINE, 2, MARKET);
        ledger.onPortfolio(portfolio(2));
        ledger.placing(ASK, 2, 30_000);
        event(AccountEvent.newBuilder().setAccepted(Accepted.newBuilder().setOrderId(ASK)));
        assertEquals(new MachineLedger.View(true, true, ASK, 30_000, 2, 2, 0), ledger.view());
        ledger.accepted(ASK);
        assertEquals(2, ledger.view().askOpenGpus(), "the Response after the Accepted changes nothing");

        event(fill(ASK, 1, 1, 0));
        assertTrue(ledger.onEvent(started(1, 1)));
        assertEquals(new MachineLedger.View(true, true, ASK, 30_000, 1, 1, 1), ledger.view());
        event(fill(999, 7, 1, 0));
        assertEquals(1, ledger.leaseCount(), "another machine's fill");

        ledger.replacing(ASK, 0, 25_000);
        ledger.accepted(ASK);
        assertEquals(25_000, ledger.askPrice(), "the Response came first");
        event(AccountEvent.newBuilder().setAccepted(Accepted.newBuilder().setOrderId(ASK)));
        assertEquals(new MachineLedger.View(true, true, ASK, 25_000, 1, 1, 1), ledger.view());

        assertTrue(ledger.onEvent(ended(1, EndReason.RELEASED)));
        assertEquals(new MachineLedger.View(true, true, ASK, 25_000, 2, 2, 0), ledger.view());
    }

    @Test
    void aPreemptedLeasesGpusGoToItsWaitingLeaseAndTheRestBackToTheAsk()
    {
        leaseTheWholeMachine(2);
        assertEquals(0, ledger.view().askOpenGpus());

        // a bid for 1 GPU preempts lease 1 whole: lease 2 waits for one of its GPUs
        assertTrue(ledger.onEvent(notice(1, 30_000)));
        event(fill(ASK, 2, 1, 1));
        assertEquals(Map.of(1L, 30_000L), ledger.notices());
        assertEquals(2, ledger.leaseCount());
        assertEquals(0, ledger.view().askOpenGpus(), "a preempting fill takes the victim's GPUs, not the ask's");

        // the hand-over: one GPU to lease 2, the other back to the ask
        event(ended(1, EndReason.PREEMPTED));
        event(started(2, 1));
        assertEquals(new MachineLedger.View(true, true, ASK, 10_000, 1, 1, 1), ledger.view());
    }

    @Test
    void aWaitingLeaseReleasedBeforeItsVictimEndsLeavesTheVictimsGpusToTheAsk()
    {
        leaseTheWholeMachine(1);
        event(notice(1, 30_000));
        event(fill(ASK, 2, 1, 1));

        event(ended(2, EndReason.RELEASED));
        assertEquals(0, ledger.view().askOpenGpus(), "the victim still runs");
        event(ended(1, EndReason.PREEMPTED));
        assertEquals(new MachineLedger.View(true, true, ASK, 10_000, 1, 1, 0), ledger.view());
    }

    @Test
    void aReclaimedLeasesGpusStayIdleAndACancelledAskIsGone()
    {
        leaseTheWholeMachine(1);

        event(AccountEvent.newBuilder().setCancelled(Cancelled.newBuilder().setOrderId(ASK)
            .setReason(CancelReason.OWNER_RECLAIM)));
        event(notice(1, 30_000));
        assertEquals(List.of(), ledger.asks());
        event(ended(1, EndReason.OWNER_RECLAIMED));
        assertEquals(new MachineLedger.View(true, true, 0, 0, 0, 1, 0), ledger.view(), "no ask, one free GPU to post");
    }

    @Test
    void aLoginMakesItStaleAndAnotherMachineIdEmptiesIt()
    {
        askFor(1);
        ledger.stale();
        assertFalse(ledger.view().current());
        assertEquals(ASK, ledger.askOrderId(), "kept until the next portfolio says otherwise");

        ledger.machine(MACHINE + 1, 1, MARKET);
        assertEquals(new MachineLedger.View(false, true, 0, 0, 0, 1, 0), ledger.view());
    }

    @Test
    void keepsTheAccountsOtherAsksInTheMarketUntilAnEventItCannotApply()
    {
        ledger.machine(MACHINE, 2, MARKET);
        assertFalse(ledger.accountAsksCurrent(), "nothing read yet");
        ledger.onPortfolio(Portfolio.newBuilder()
            .addMachines(MachineInfo.newBuilder().setMachineId(MACHINE).setGpus(2))
            .addOrders(OpenOrder.newBuilder().setOrderId(ASK).setSide(Side.ASK).setMarket(MARKET).setMachineId(MACHINE)
                .setOpenGpus(2).setPrice(30_000))
            .addOrders(OpenOrder.newBuilder().setOrderId(200).setSide(Side.ASK).setMarket(MARKET).setMachineId(6)
                .setOpenGpus(3).setPrice(29_000))
            .addOrders(OpenOrder.newBuilder().setOrderId(300).setSide(Side.ASK).setMarket("A100-80G").setMachineId(7)
                .setOpenGpus(1).setPrice(29_000))
            .addOrders(OpenOrder.newBuilder().setOrderId(400).setSide(Side.BID).setMarket(MARKET).setOpenGpus(1)
                .setPrice(20_000))
            .build());
        final long[] prices = new long[4];
        final long[] gpus = new long[4];
        assertTrue(ledger.accountAsksCurrent());
        assertEquals(1, ledger.copyAccountAsks(prices, gpus), "the other machine's ask in the market, not the kept one");
        assertEquals(29_000, prices[0]);
        assertEquals(3, gpus[0]);

        event(fill(200, 9, 1, 0));
        assertEquals(1, ledger.copyAccountAsks(prices, gpus));
        assertEquals(2, gpus[0], "a fill takes its GPUs from the other ask");
        assertTrue(ledger.accountAsksCurrent());
        event(AccountEvent.newBuilder().setAccepted(Accepted.newBuilder().setOrderId(ASK)));
        assertTrue(ledger.accountAsksCurrent(), "the kept ask's Accepted says nothing of the others");
        event(AccountEvent.newBuilder().setAccepted(Accepted.newBuilder().setOrderId(200)));
        assertFalse(ledger.accountAsksCurrent(), "another machine's Replace: its price is unknown until a portfolio");

        ledger.onPortfolio(portfolio(2).toBuilder()
            .addOrders(OpenOrder.newBuilder().setOrderId(200).setSide(Side.ASK).setMarket(MARKET).setMachineId(6)
                .setOpenGpus(2).setPrice(28_000)).build());
        assertTrue(ledger.accountAsksCurrent());
        event(ended(9, EndReason.RELEASED));
        assertFalse(ledger.accountAsksCurrent(), "another machine's lease ended: its GPUs may be back on its ask");

        ledger.onPortfolio(portfolio(2).toBuilder()
            .addOrders(OpenOrder.newBuilder().setOrderId(200).setSide(Side.ASK).setMarket(MARKET).setMachineId(6)
                .setOpenGpus(3).setPrice(28_000)).build());
        event(AccountEvent.newBuilder().setCancelled(Cancelled.newBuilder().setOrderId(200)));
        assertTrue(ledger.accountAsksCurrent());
        assertEquals(0, ledger.copyAccountAsks(prices, gpus), "a cancel closes it");
    }

    // ------------------------------------------------------------------------------------------

    /** A machine of {@code gpus} GPUs, read from a portfolio, and the agent's ask of them all at 1.0000. */
    private void askFor(final int gpus)
    {
        ledger.machine(MACHINE, gpus, MARKET);
        ledger.onPortfolio(portfolio(gpus));
        ledger.placing(ASK, gpus, 10_000);
        ledger.accepted(ASK);
    }

    /** {@link #askFor} and lease 1, which took every GPU from the ask and started. */
    private void leaseTheWholeMachine(final int gpus)
    {
        askFor(gpus);
        event(fill(ASK, 1, gpus, 0));
        event(started(1, gpus));
    }

    private static Portfolio portfolio(final int gpus)
    {
        return Portfolio.newBuilder().addMachines(MachineInfo.newBuilder().setMachineId(MACHINE).setGpus(gpus)).build();
    }

    private void event(final AccountEvent.Builder e)
    {
        ledger.onEvent(e.setSeq(++seq).build());
    }

    private AccountEvent.Builder fill(final long orderId, final long lease, final int gpus, final long preempts)
    {
        return AccountEvent.newBuilder().setFill(Fill.newBuilder().setOrderId(orderId).setLeaseId(lease).setGpus(gpus)
            .setPreemptsLeaseId(preempts));
    }

    private AccountEvent started(final long lease, final int gpus)
    {
        return AccountEvent.newBuilder().setSeq(++seq).setLeaseStarted(LeaseStarted.newBuilder().setLeaseId(lease)
            .setMachineId(MACHINE).setGpus(gpus)).build();
    }

    private AccountEvent notice(final long lease, final long effectiveMs)
    {
        return AccountEvent.newBuilder().setSeq(++seq).setPreemptNotice(PreemptNotice.newBuilder().setLeaseId(lease)
            .setReason(NoticeReason.OUTBID).setEffectiveMs(effectiveMs)).build();
    }

    private AccountEvent ended(final long lease, final EndReason reason)
    {
        return AccountEvent.newBuilder().setSeq(++seq).setLeaseEnded(LeaseEnded.newBuilder().setLeaseId(lease)
            .setReason(reason)).build();
    }

    private void event(final AccountEvent e)
    {
        ledger.onEvent(e);
    }
}
