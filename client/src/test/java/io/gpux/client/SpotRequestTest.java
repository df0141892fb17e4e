package io.gpux.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.CancelReason;
import io.gpux.proto.v1.Cancelled;
import io.gpux.proto.v1.EndReason;
import io.gpux.proto.v1.Fill;
import io.gpux.proto.v1.LeaseEnded;
import io.gpux.proto.v1.LeaseStarted;
import io.gpux.proto.v1.NoticeReason;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.PreemptNotice;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.TimeInForce;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** SpotRequest's bidding, driven by synthetic account events through a fake sender. */
class SpotRequestTest
{
    private static final String MARKET = "H100-SXM-80G";
    private static final long PRICE = 25_000;

    /** Records what the request sends; runs tasks at once, keeps scheduled ones for the test to fire. */
    static final class FakeSender implements OrderSender
    {
        final List<PlaceBid> bids = new ArrayList<>();
        final List<Long> bidRequestIds = new ArrayList<>();
        final List<Long> cancels = new ArrayList<>();
        final List<Long> releases = new ArrayList<>();
        final List<Runnable> scheduled = new ArrayList<>();
        long nextOrderId = 1000;
        long nextRequestId = 1;

        @Override
        public long nextOrderId()
        {
            return nextOrderId++;
        }

        @Override
        public long placeBid(final PlaceBid bid)
        {
            bids.add(bid);
            bidRequestIds.add(nextRequestId);
            return nextRequestId++;
        }

        @Override
        public long cancel(final long orderId)
        {
            cancels.add(orderId);
            return nextRequestId++;
        }

        @Override
        public long release(final long leaseId)
        {
            releases.add(leaseId);
            return nextRequestId++;
        }

        @Override
        public void execute(final Runnable task)
        {
            task.run();
        }

        @Override
        public void schedule(final long delayMs, final Runnable task)
        {
            scheduled.add(task);
        }

        PlaceBid lastBid()
        {
            return bids.get(bids.size() - 1);
        }

        long lastBidRequestId()
        {
            return bidRequestIds.get(bidRequestIds.size() - 1);
        }
    }

    private final FakeSender sender = new FakeSender();
    private final List<String> heard = new ArrayList<>();
    private long seq;

    private final SpotRequest.Listener listener = new SpotRequest.Listener()
    {
        @Override
        public void onLeaseStarted(final long leaseId, final long machineId, final int gpus, final long price)
        {
            heard.add("started L" + leaseId + " m" + machineId + " x" + gpus);
        }

        @Override
        public void onPreemptionNotice(final long leaseId, final long effectiveAtMs)
        {
            heard.add("notice L" + leaseId + " at " + effectiveAtMs);
        }

        @Override
        public void onLeaseEnded(final long leaseId, final EndReason reason)
        {
            heard.add("ended L" + leaseId + " " + reason);
        }

        @Override
        public void onLeaseMoved(final long fromLeaseId, final long toLeaseId)
        {
            heard.add("moved L" + fromLeaseId + " to L" + toLeaseId);
        }

        @Override
        public void onBidFailed(final long orderId, final Reason reason)
        {
            heard.add("failed " + orderId + " " + reason);
        }
    };

    private SpotRequest request;

    @BeforeEach
    void start()
    {
        request = new SpotRequest(sender, MARKET, 8, PRICE, SpotRequest.Constraints.NONE, listener);
        request.start();
    }

    private void event(final AccountEvent.Builder event)
    {
        ClientListener.dispatchEvent(request, event.setSeq(++seq).build());
    }

    private void fill(final long orderId, final long leaseId, final int gpus, final long preempts)
    {
        event(AccountEvent.newBuilder().setFill(Fill.newBuilder().setOrderId(orderId).setCounterOrderId(1)
            .setLeaseId(leaseId).setGpus(gpus).setPrice(PRICE).setPreemptsLeaseId(preempts)));
    }

    private void started(final long leaseId, final int gpus)
    {
        started(leaseId, gpus, PRICE);
    }

    private void started(final long leaseId, final int gpus, final long price)
    {
        event(AccountEvent.newBuilder().setLeaseStarted(LeaseStarted.newBuilder().setLeaseId(leaseId).setMarket(MARKET)
            .setMachineId(7).setGpus(gpus).setPrice(price).setRenter(true)));
    }

    /** A request for 8 GPUs that looks for 20 % cheaper GPUs every 30 minutes, started, its first bid filled into lease 1. */
    private void movingRequestOnLease1()
    {
        sender.bids.clear();
        sender.scheduled.clear();
        sender.nextOrderId = 1000;
        request = new SpotRequest(sender, MARKET, 8, PRICE, new SpotRequest.Constraints(false, "eu-west", 900_000, 0), listener)
            .moveWhenCheaper(30 * 60_000L, 2000);
        request.start();
        assertEquals(1, sender.scheduled.size(), "the first look is scheduled");
        fill(1000, 1, 8, 0);
        started(1, 8);
    }

    private void look()
    {
        sender.scheduled.remove(0).run();
    }

    private void notice(final long leaseId, final long effectiveMs)
    {
        event(AccountEvent.newBuilder().setPreemptNotice(PreemptNotice.newBuilder().setLeaseId(leaseId)
            .setReason(NoticeReason.OUTBID).setEffectiveMs(effectiveMs)));
    }

    private void ended(final long leaseId, final EndReason reason)
    {
        event(AccountEvent.newBuilder().setLeaseEnded(LeaseEnded.newBuilder().setLeaseId(leaseId).setReason(reason)));
    }

    private void cancelled(final long orderId, final CancelReason reason, final int remaining)
    {
        event(AccountEvent.newBuilder().setCancelled(Cancelled.newBuilder().setOrderId(orderId).setReason(reason)
            .setRemaining(remaining)));
    }

    private void respond(final long requestId, final Reason reason)
    {
        request.onResponse(requestId, Response.newBuilder().setReason(reason).build());
    }

    @Test
    void movesOntoCheaperGpusWithAnIocBidThatNeverPreemptsAndReleasesTheOldLease()
    {
        movingRequestOnLease1();
        look();
        assertEquals(1, sender.scheduled.size(), "the next look is scheduled");
        final PlaceBid move = sender.lastBid();
        assertEquals(2, sender.bids.size());
        assertEquals(8, move.getGpus());
        assertEquals(PRICE * 8 / 10, move.getPrice(), "20 % below the lease's price");
        assertEquals(TimeInForce.IOC, move.getTif());
        assertTrue(move.getNoPreempt(), "a move takes free GPUs only");
        assertTrue(move.getGang(), "the lease's GPUs, on one machine");
        assertEquals("eu-west", move.getRegion());
        assertEquals(900_000, move.getMinReliabilityPpm());
        assertEquals(0, request.biddingGpus(), "a move's bid is not a bid for missing GPUs");

        look();
        assertEquals(2, sender.bids.size(), "one move's bid per lease at a time");

        fill(move.getOrderId(), 2, 8, 0);
        started(2, 8, 18_000);
        assertEquals(List.of("started L1 m7 x8", "started L2 m7 x8", "moved L1 to L2"), heard);
        assertEquals(List.of(1L), sender.releases);
        assertEquals(1, request.moves());
        ended(1, EndReason.RELEASED);
        assertEquals(2, sender.bids.size(), "nothing is missing");
        assertEquals(8, request.leasedGpus());

        look();
        assertEquals(18_000 * 8 / 10, sender.lastBid().getPrice(), "the next move must beat the new lease's price");
    }

    @Test
    void aMoveNotFoundLeavesTheLeaseWhereItIsAndIsTriedAgainAtTheNextLook()
    {
        movingRequestOnLease1();
        look();
        final long move = sender.lastBid().getOrderId();
        cancelled(move, CancelReason.CANCEL_IOC, 8);
        look();
        respond(sender.lastBidRequestId(), Reason.INSUFFICIENT_FUNDS);
        assertEquals(List.of("started L1 m7 x8"), heard, "a refused move is no failure of the request");
        assertEquals(3, sender.bids.size(), "nothing is bid for: nothing is missing");
        assertTrue(sender.releases.isEmpty());
        assertEquals(0, request.bidCount());
        look();
        assertEquals(4, sender.bids.size(), "tried again");
    }

    @Test
    void leasesUnderNoticeOrNotStartedAreNotMoved()
    {
        sender.bids.clear();
        sender.scheduled.clear();
        sender.nextOrderId = 1000;
        request = new SpotRequest(sender, MARKET, 8, PRICE, SpotRequest.Constraints.NONE, listener).calmAfterNoticeMs(0)
            .moveWhenCheaper(60_000, 500);
        request.start();
        fill(1000, 1, 4, 0);
        fill(1000, 2, 4, 0);
        started(2, 4);
        notice(2, 30_030);
        final int bids = sender.bids.size();
        sender.scheduled.remove(0).run();
        assertEquals(bids, sender.bids.size(), "lease 1 has not started and lease 2 is under notice");
    }

    @Test
    void aMoveWhoseOldLeaseEndedMeanwhileTakesOverFromTheBidPlacedForIt()
    {
        movingRequestOnLease1();
        look();
        final long move = sender.lastBid().getOrderId();
        ended(1, EndReason.MACHINE_OFFLINE);
        final long replacement = sender.lastBid().getOrderId();
        assertEquals(8, request.biddingGpus(), "the lost GPUs are bid for");
        fill(move, 2, 8, 0);
        started(2, 8, 18_000);
        assertEquals(0, request.moves(), "no lease was left");
        assertEquals(List.of(replacement), sender.cancels, "the move's lease covers what that bid was for");
        assertTrue(sender.releases.isEmpty());
        cancelled(replacement, CancelReason.USER, 8);
        assertEquals(0, request.biddingGpus(), "nothing is missing");
    }

    @Test
    void aMoveWhoseOldLeaseWasReplacedMeanwhileIsReleased()
    {
        movingRequestOnLease1();
        look();
        final long move = sender.lastBid().getOrderId();
        ended(1, EndReason.MACHINE_OFFLINE);
        fill(sender.lastBid().getOrderId(), 3, 8, 0);
        started(3, 8);
        fill(move, 2, 8, 0);
        started(2, 8, 18_000);
        assertEquals(List.of(2L), sender.releases, "one lease too many");
        assertEquals(0, request.moves());
    }

    @Test
    void movesAreOffByDefaultAndCheckedWhenSet()
    {
        assertTrue(sender.scheduled.isEmpty(), "no look for cheaper GPUs");
        final SpotRequest r = new SpotRequest(sender, MARKET, 1, PRICE, SpotRequest.Constraints.NONE, listener);
        assertThrows(IllegalArgumentException.class, () -> r.moveWhenCheaper(60_000, 0));
        assertThrows(IllegalArgumentException.class, () -> r.moveWhenCheaper(60_000, 10_000));
        assertThrows(IllegalArgumentException.class, () -> r.moveWhenCheaper(-1, 100));
    }

    @Test
    void startsWithOneBidForEverything()
    {
        assertEquals(1, sender.bids.size());
        final PlaceBid bid = sender.lastBid();
        assertEquals(1000, bid.getOrderId());
        assertEquals(MARKET, bid.getMarket());
        assertEquals(8, bid.getGpus());
        assertEquals(PRICE, bid.getPrice());
        assertFalse(bid.getGang());
        assertEquals(8, request.biddingGpus());
    }

    @Test
    void partialFillsDoNotRebid()
    {
        respond(sender.lastBidRequestId(), Reason.REASON_OK);
        fill(1000, 1, 5, 0);
        started(1, 5);
        assertEquals(1, sender.bids.size());
        assertEquals(5, request.activeGpus());
        assertEquals(3, request.biddingGpus());
        assertEquals(List.of("started L1 m7 x5"), heard);
    }

    @Test
    void aPreemptionNoticeWarnsAndRebidsAtOnceForWhatWillBeLost()
    {
        fill(1000, 1, 5, 0);
        started(1, 5);
        fill(1000, 2, 3, 0);
        started(2, 3);
        assertEquals(0, request.bidCount(), "fully filled bid is closed");

        notice(1, 30_030);
        assertEquals(List.of("started L1 m7 x5", "started L2 m7 x3", "notice L1 at 30030"), heard);
        assertEquals(2, sender.bids.size());
        assertEquals(5, sender.lastBid().getGpus());
        assertEquals(1001, sender.lastBid().getOrderId(), "a new order id");
        assertEquals(3, request.leasedGpus());

        ended(1, EndReason.PREEMPTED);
        assertEquals(2, sender.bids.size(), "the loss was already covered by the notice's bid");
        assertEquals("ended L1 PREEMPTED", heard.get(heard.size() - 1));
        assertEquals(1, request.leaseCount());
    }

    @Test
    void afterANoticeItBidsWithoutPreemptingUntilTheCalmPeriodEnds()
    {
        assertFalse(sender.lastBid().getNoPreempt(), "the first bid may preempt");
        fill(1000, 1, 8, 0);
        started(1, 8);
        notice(1, 30_030);
        assertTrue(request.calm());
        assertEquals(2, sender.bids.size());
        assertTrue(sender.lastBid().getNoPreempt(), "the notice's bid takes free GPUs only");
        assertEquals(1, sender.scheduled.size(), "the calm period's end is scheduled");

        respond(sender.lastBidRequestId(), Reason.REASON_OK);
        fill(1001, 2, 3, 0);
        sender.scheduled.remove(0).run();
        assertFalse(request.calm());
        assertEquals(List.of(1001L), sender.cancels, "the bid that may not preempt gives way");
        cancelled(1001, CancelReason.USER, 5);
        assertEquals(3, sender.bids.size());
        assertEquals(5, sender.lastBid().getGpus());
        assertFalse(sender.lastBid().getNoPreempt(), "after the calm period it may preempt again");
    }

    @Test
    void countsPreemptingFillsAndThoseOfBidsPlacedOnANotice()
    {
        request.calmAfterNoticeMs(0);
        fill(1000, 1, 8, 77);
        started(1, 8);
        assertEquals(1, request.preemptingFills());
        assertEquals(0, request.cascadingFills(), "the first bid is no cascade");
        notice(1, 30_030);
        fill(1001, 2, 8, 78);
        assertEquals(2, request.preemptingFills());
        assertEquals(1, request.cascadingFills(), "the notice's bid passed the preemption on");
    }

    @Test
    void aSecondNoticeProlongsTheCalmPeriod()
    {
        fill(1000, 1, 4, 0);
        started(1, 4);
        fill(1000, 2, 4, 0);
        started(2, 4);
        notice(1, 30_000);
        notice(2, 40_000);
        assertEquals(2, sender.scheduled.size());
        sender.scheduled.remove(0).run();
        assertTrue(request.calm(), "the second notice's period is still running");
        assertTrue(sender.cancels.isEmpty());
        sender.scheduled.remove(0).run();
        assertFalse(request.calm());
        assertEquals(2, sender.cancels.size(), "both notices' bids give way");
    }

    @Test
    void aCalmPeriodOfZeroRebidsAsAnyBid()
    {
        request.calmAfterNoticeMs(0);
        fill(1000, 1, 8, 0);
        started(1, 8);
        notice(1, 30_030);
        assertFalse(request.calm());
        assertFalse(sender.lastBid().getNoPreempt());
        assertTrue(sender.scheduled.isEmpty());
    }

    @Test
    void aLeaseEndingWithoutNoticeIsReplaced()
    {
        fill(1000, 1, 8, 0);
        started(1, 8);
        ended(1, EndReason.EXPIRED);
        assertEquals(2, sender.bids.size());
        assertEquals(8, sender.lastBid().getGpus());
        ended(1, EndReason.EXPIRED);     // a repeat (or another account's lease) is ignored
        assertEquals(2, sender.bids.size());
    }

    @Test
    void aPreemptingFillWaitsButCounts()
    {
        // the fill preempts someone else's lease: the new lease starts after the victim's grace
        fill(1000, 9, 8, 4);
        assertEquals(8, request.leasedGpus());
        assertEquals(0, request.activeGpus());
        started(9, 8);
        assertEquals(8, request.activeGpus());
        assertEquals(1, sender.bids.size());
    }

    @Test
    void aBidCancelledByOthersIsReplaced()
    {
        fill(1000, 1, 2, 0);
        cancelled(1000, CancelReason.MASS_CANCEL, 6);     // e.g. cancel-on-disconnect
        assertEquals(2, sender.bids.size());
        assertEquals(6, sender.lastBid().getGpus());
    }

    @Test
    void busyAndRateLimitedAreRetriedLater()
    {
        respond(sender.lastBidRequestId(), Reason.BUSY);
        assertEquals(1, sender.bids.size());
        assertEquals(1, sender.scheduled.size());
        assertEquals(0, request.biddingGpus());

        sender.scheduled.remove(0).run();
        assertEquals(2, sender.bids.size());
        assertEquals(8, sender.lastBid().getGpus());

        respond(sender.lastBidRequestId(), Reason.RATE_LIMITED);
        sender.scheduled.remove(0).run();
        assertEquals(3, sender.bids.size());
        assertTrue(heard.isEmpty());
    }

    @Test
    void otherRefusalsAreReportedAndWaitForRetry()
    {
        respond(sender.lastBidRequestId(), Reason.INSUFFICIENT_FUNDS);
        assertEquals(List.of("failed 1000 INSUFFICIENT_FUNDS"), heard);
        assertTrue(sender.scheduled.isEmpty());
        assertEquals(1, sender.bids.size());

        request.retry();
        assertEquals(2, sender.bids.size());
        respond(sender.lastBidRequestId(), Reason.REASON_OK);
        respond(sender.lastBidRequestId(), Reason.REASON_OK);    // answers of unknown requests are ignored
        assertEquals(8, request.biddingGpus());
    }

    @Test
    void eventsOfOtherOrdersAndLeasesAreIgnored()
    {
        fill(555, 77, 4, 0);
        started(77, 4);
        notice(77, 1);
        ended(77, EndReason.RELEASED);
        cancelled(555, CancelReason.USER, 1);
        assertEquals(1, sender.bids.size());
        assertEquals(0, request.leaseCount());
        assertTrue(heard.isEmpty());
    }

    @Test
    void gangRequestsBidForEverythingInOneGangBid()
    {
        final FakeSender gangSender = new FakeSender();
        final SpotRequest gang = new SpotRequest(gangSender, MARKET, 8, PRICE,
            new SpotRequest.Constraints(true, "eu", 950_000, 3_600_000), listener);
        gang.start();
        final PlaceBid bid = gangSender.lastBid();
        assertTrue(bid.getGang());
        assertEquals("eu", bid.getRegion());
        assertEquals(950_000, bid.getMinReliabilityPpm());
        assertEquals(3_600_000, bid.getMaxDurationMs());
        assertEquals(8, bid.getGpus());

        // one lease, several fills (one per source: a free ask and a preempted lease)
        ClientListener.dispatchEvent(gang, AccountEvent.newBuilder().setSeq(1).setFill(Fill.newBuilder()
            .setOrderId(bid.getOrderId()).setLeaseId(3).setGpus(2)).build());
        ClientListener.dispatchEvent(gang, AccountEvent.newBuilder().setSeq(2).setFill(Fill.newBuilder()
            .setOrderId(bid.getOrderId()).setLeaseId(3).setGpus(6).setPreemptsLeaseId(1)).build());
        assertEquals(1, gang.leaseCount());
        assertEquals(8, gang.leasedGpus());
        ClientListener.dispatchEvent(gang, AccountEvent.newBuilder().setSeq(3).setPreemptNotice(PreemptNotice.newBuilder()
            .setLeaseId(3).setEffectiveMs(5)).build());
        assertEquals(2, gangSender.bids.size());
        assertEquals(8, gangSender.lastBid().getGpus());
        assertTrue(gangSender.lastBid().getGang());
    }

    @Test
    void closeCancelsBidsAndReleasesLeasesIncludingLateFills()
    {
        fill(1000, 1, 5, 0);
        started(1, 5);
        final FakeSender closing = sender;
        request.close(true);
        assertTrue(request.isClosed());
        assertEquals(List.of(1000L), closing.cancels);
        assertEquals(List.of(1L), closing.releases);

        // the bid filled again before the cancel landed: that lease is released too
        fill(1000, 2, 3, 0);
        assertEquals(List.of(1L, 2L), closing.releases);
        // nothing is re-bid after close, whatever happens
        ended(1, EndReason.RELEASED);
        ended(2, EndReason.RELEASED);
        assertEquals(1, closing.bids.size());
        request.close(true);    // twice is harmless
        assertEquals(List.of(1000L), closing.cancels);
    }

    @Test
    void closeWithoutReleaseKeepsLeases()
    {
        fill(1000, 1, 8, 0);
        request.close();
        assertTrue(sender.cancels.isEmpty(), "no bid was open");
        assertTrue(sender.releases.isEmpty());
        notice(1, 10);
        assertEquals(1, sender.bids.size());
    }
}
