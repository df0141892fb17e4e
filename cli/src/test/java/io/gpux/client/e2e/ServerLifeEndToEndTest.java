package io.gpux.client.e2e;

import io.gpux.client.GpuxClient;
import io.gpux.common.Money;
import io.gpux.client.SpotRequest;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.CancelReason;
import io.gpux.proto.v1.EndReason;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.LeaseEnded;
import io.gpux.proto.v1.NoticeReason;
import io.gpux.proto.v1.OpenOrder;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Release;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.ResendComplete;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.Side;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static io.gpux.client.e2e.E2e.MARKET;
import static io.gpux.client.e2e.E2e.TIMEOUT;
import static io.gpux.client.e2e.E2e.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The life of a market over the real server, run as its own process ({@link ServerProcess}), through
 * the client library only: accounts and keys made by the admin, an owner's machine kept online by
 * heartbeats, a renter's {@link SpotRequest} leasing it, a market-maker's cancel/replace burst and a
 * higher bid that preempts the renter (notice first, {@code graceMs} of exchange time before the
 * end), payment with money conserved to the micro-unit, an owner reclaim, then SIGTERM and a restart
 * on the same data directory: the keys still log in and {@code last_seq} resumes exactly.
 */
class ServerLifeEndToEndTest
{
    private static final long GRACE_MS = 750;
    private static final int FEE_BPS = 250;
    private static final long DEPOSIT = 10_000_000_000L;
    private static final long ASK_PRICE = Money.parsePrice("2.0000");
    private static final long SPOT_PRICE = Money.parsePrice("2.5000");
    private static final long OUTBID_PRICE = Money.parsePrice("3.0000");
    private static final int REPLACES = 300;

    @TempDir
    Path dir;

    @RegisterExtension
    final DumpOnFailure dump = new DumpOnFailure();

    private ServerProcess server;
    private ScheduledExecutorService heartbeats;
    private final List<GpuxClient> clients = new CopyOnWriteArrayList<>();

    @AfterEach
    void tearDown() throws Exception
    {
        if (heartbeats != null)
        {
            heartbeats.shutdownNow();
        }
        clients.forEach(E2e::closeQuietly);
        if (server != null)
        {
            server.close();
        }
    }

    private GpuxClient connect(final E2e.Key key, final Recorder recorder, final long lastSeq) throws Exception
    {
        final GpuxClient client = E2e.connect(server.port(), key, recorder, ctx -> ctx.lastSeq(lastSeq));
        clients.add(client);
        return client;
    }

    private GpuxClient connect(final E2e.Key key, final Recorder recorder) throws Exception
    {
        return connect(key, recorder, -1);
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void wholeLifeOverARealServerProcessThenRestart() throws Exception
    {
        server = new ServerProcess(dir, E2e.resource("life.scn", dir), 1000);
        dump.register("server process output", server::log);
        server.start();

        // ---- accounts and keys, made by the admin
        final GpuxClient admin = connect(server.adminKey(), new Recorder("admin"));
        final E2e.Key ownerKey = E2e.account(admin, "owner", Role.OWNER, 0);
        final E2e.Key renterKey = E2e.account(admin, "renter", Role.RENTER, DEPOSIT);
        final E2e.Key mmKey = E2e.account(admin, "mm", Role.MARKET_MAKER, DEPOSIT);

        final Recorder ownerEvents = new Recorder("owner");
        final Recorder renterEvents = new Recorder("renter");
        final Recorder mmEvents = new Recorder("mm");
        final GpuxClient owner = connect(ownerKey, ownerEvents);
        final GpuxClient renter = connect(renterKey, renterEvents);
        final GpuxClient mm = connect(mmKey, mmEvents);
        dump.register("renter events", () -> E2e.describe(renterEvents.events()));
        dump.register("owner events", () -> E2e.describe(ownerEvents.events()));
        dump.register("mm events", () -> E2e.describe(mmEvents.events()));

        // ---- the owner's machine, online and kept online, and its ask
        final long machine = ok(owner, Envelope.newBuilder().setRegisterMachine(RegisterMachine.newBuilder()
            .setName("node-1").setMarket(MARKET).setGpus(4).setRegion("eu"))).getAssignedId();
        final long mmMachine = ok(mm, Envelope.newBuilder().setRegisterMachine(RegisterMachine.newBuilder()
            .setName("mm-node-1").setMarket(MARKET).setGpus(2).setRegion("eu"))).getAssignedId();
        heartbeats = Executors.newSingleThreadScheduledExecutor();
        heartbeats.scheduleAtFixedRate(() ->
        {
            E2e.machineHeartbeat(owner, machine);
            E2e.machineHeartbeat(mm, mmMachine);
        }, 0, 250, TimeUnit.MILLISECONDS);
        ownerEvents.await("machine online", TIMEOUT, e -> e.hasMachineOnline() && e.getMachineOnline().getMachineId() == machine);
        mmEvents.await("machine online", TIMEOUT, e -> e.hasMachineOnline() && e.getMachineOnline().getMachineId() == mmMachine);
        final long askId = owner.nextOrderId();
        ok(owner, Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder()
            .setOrderId(askId).setMachineId(machine).setGpus(4).setPrice(ASK_PRICE)));

        // ---- the renter keeps 4 GPUs leased: its bid fills from the ask at the ask's price
        final List<String> spotLog = new CopyOnWriteArrayList<>();
        final SpotRequest spot = SpotRequest.start(renter, MARKET, 4, SPOT_PRICE, SpotRequest.Constraints.NONE,
            new SpotRequest.Listener()
            {
                @Override
                public void onLeaseStarted(final long leaseId, final long machineId, final int gpus, final long price)
                {
                    spotLog.add("started " + leaseId);
                }

                @Override
                public void onPreemptionNotice(final long leaseId, final long effectiveAtMs)
                {
                    spotLog.add("notice " + leaseId);
                }

                @Override
                public void onLeaseEnded(final long leaseId, final EndReason reason)
                {
                    spotLog.add("ended " + leaseId + " " + reason);
                }

                @Override
                public void onBidFailed(final long orderId, final Reason reason)
                {
                    spotLog.add("failed " + orderId + " " + reason);
                }
            });
        final AccountEvent firstLease = renterEvents.await("a lease", TIMEOUT,
            e -> e.hasLeaseStarted() && e.getLeaseStarted().getRenter());
        final long lease1 = firstLease.getLeaseStarted().getLeaseId();
        assertEquals(4, firstLease.getLeaseStarted().getGpus());
        assertEquals(ASK_PRICE, firstLease.getLeaseStarted().getPrice(), "the resting ask sets the price");
        assertEquals(machine, firstLease.getLeaseStarted().getMachineId());
        final AccountEvent fill1 = renterEvents.await("the fill", TIMEOUT, e -> e.hasFill() && e.getFill().getLeaseId() == lease1);
        assertEquals(askId, fill1.getFill().getCounterOrderId());
        assertTrue(renterEvents.indexOf(fill1) < renterEvents.indexOf(firstLease), "Fill before LeaseStarted");
        ownerEvents.await("the owner's side of the lease", TIMEOUT,
            e -> e.hasLeaseStarted() && e.getLeaseStarted().getLeaseId() == lease1 && !e.getLeaseStarted().getRenter());

        // ---- the market-maker quotes both sides away from the market, then a cancel/replace burst
        final long mmAsk = mm.nextOrderId();
        final long mmBid = mm.nextOrderId();
        ok(mm, Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder()
            .setOrderId(mmAsk).setMachineId(mmMachine).setGpus(2).setPrice(Money.parsePrice("4.0000"))));
        ok(mm, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
            .setOrderId(mmBid).setMarket(MARKET).setGpus(2).setPrice(Money.parsePrice("1.0000"))));
        final List<Long> burst = new ArrayList<>();
        long bidPrice = 0;
        long askPrice = 0;
        for (int i = 0; i < REPLACES; i++)
        {
            if (i % 2 == 0)
            {
                bidPrice = Money.parsePrice("1.0000") + i * 10L;
                burst.add(mm.replace(mmBid, bidPrice, 2));
            }
            else
            {
                askPrice = Money.parsePrice("4.0000") + i * 10L;
                burst.add(mm.replace(mmAsk, askPrice, 2));
            }
        }
        final long[] extraBids = new long[20];
        for (int i = 0; i < extraBids.length; i++)
        {
            extraBids[i] = mm.nextOrderId();
            burst.add(mm.placeBid(extraBids[i], MARKET, 1, Money.parsePrice("0.5000") + i));
            burst.add(mm.cancel(extraBids[i]));
        }
        E2e.await("the market-maker's burst answered", TIMEOUT, () -> mm.unansweredCommands() == 0,
            () -> mm.unansweredCommands() + " unanswered");
        for (final long requestId : burst)
        {
            final List<Response> answers = mmEvents.responses(requestId);
            assertEquals(1, answers.size(), () -> "request " + requestId + ": " + answers);
            assertEquals(Reason.REASON_OK, answers.get(0).getReason(), () -> "request " + requestId + ": " + answers);
        }
        final Portfolio mmQuotes = mm.portfolio(TIMEOUT);
        final Map<Long, OpenOrder> mmOrders = new HashMap<>();
        mmQuotes.getOrdersList().forEach(o -> mmOrders.put(o.getOrderId(), o));
        assertEquals(2, mmOrders.size(), mmQuotes::toString);
        assertEquals(bidPrice, mmOrders.get(mmBid).getPrice());
        assertEquals(askPrice, mmOrders.get(mmAsk).getPrice());
        assertTrue(renterEvents.events(AccountEvent.KindCase.PREEMPT_NOTICE).isEmpty(), "quotes away from the market touch no lease");

        // ---- the market-maker outbids the renter's lease by more than minIncrement
        final long outbid = mm.nextOrderId();
        ok(mm, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
            .setOrderId(outbid).setMarket(MARKET).setGpus(4).setPrice(OUTBID_PRICE)));
        final AccountEvent notice = renterEvents.await("the preemption notice", TIMEOUT,
            e -> e.hasPreemptNotice() && e.getPreemptNotice().getLeaseId() == lease1);
        assertEquals(NoticeReason.OUTBID, notice.getPreemptNotice().getReason());
        assertEquals(GRACE_MS, notice.getPreemptNotice().getEffectiveMs() - notice.getTimeMs(),
            "the notice comes graceMs (exchange time) before the lease ends");
        final AccountEvent mmFill = mmEvents.await("the preempting fill", TIMEOUT, e -> e.hasFill() && e.getFill().getOrderId() == outbid);
        assertEquals(lease1, mmFill.getFill().getPreemptsLeaseId());
        assertEquals(OUTBID_PRICE, mmFill.getFill().getPrice(), "pay-as-bid");
        final long lease2 = mmFill.getFill().getLeaseId();

        final AccountEvent ended1 = renterEvents.await("the preempted lease's end", TIMEOUT,
            e -> e.hasLeaseEnded() && e.getLeaseEnded().getLeaseId() == lease1);
        assertEquals(EndReason.PREEMPTED, ended1.getLeaseEnded().getReason());
        assertTrue(renterEvents.indexOf(notice) < renterEvents.indexOf(ended1), "the notice arrives before the end");
        assertTrue(notice.getSeq() < ended1.getSeq());
        assertEquals(notice.getPreemptNotice().getEffectiveMs(), ended1.getTimeMs(), "the lease ends at the notice's effective time");
        assertTrue(ended1.getLeaseEnded().getCost() > 0, ended1::toString);
        assertSettlementsAddUp(renterEvents, ended1);

        // the SpotRequest re-bid at once on the notice; the bid rests (it cannot preempt 3.0000 by 0.5000)
        final List<AccountEvent> spotBids = renterEvents.events(AccountEvent.KindCase.ACCEPTED);
        assertEquals(2, spotBids.size(), () -> "the first bid and the re-bid: " + E2e.describe(renterEvents.events()));
        assertTrue(renterEvents.indexOf(spotBids.get(1)) > renterEvents.indexOf(notice), "re-bid after the notice");
        final AccountEvent lease2Started = mmEvents.await("the preempting lease's start", TIMEOUT,
            e -> e.hasLeaseStarted() && e.getLeaseStarted().getLeaseId() == lease2);
        assertEquals(ended1.getTimeMs(), lease2Started.getTimeMs(), "the GPUs are handed over at the effective time");

        // the owner is paid for lease 1
        final AccountEvent ownerEnded1 = ownerEvents.await("lease 1's end for the owner", TIMEOUT,
            e -> e.hasLeaseEnded() && e.getLeaseEnded().getLeaseId() == lease1);
        assertEquals(ended1.getLeaseEnded(), ownerEnded1.getLeaseEnded());
        assertSettlementsAddUp(ownerEvents, ownerEnded1);

        // ---- the market-maker releases its lease: the GPUs go back to the ask and fill the renter's re-bid
        ok(mm, Envelope.newBuilder().setRelease(Release.newBuilder().setLeaseId(lease2)));
        final AccountEvent ended2 = mmEvents.await("lease 2's end", TIMEOUT, e -> e.hasLeaseEnded() && e.getLeaseEnded().getLeaseId() == lease2);
        assertEquals(EndReason.RELEASED, ended2.getLeaseEnded().getReason());
        assertTrue(ended2.getLeaseEnded().getCost() > 0);
        final AccountEvent lease3Started = renterEvents.await("a new lease from the re-bid", TIMEOUT,
            e -> e.hasLeaseStarted() && e.getLeaseStarted().getRenter() && e.getLeaseStarted().getLeaseId() != lease1);
        final long lease3 = lease3Started.getLeaseStarted().getLeaseId();
        assertEquals(ASK_PRICE, lease3Started.getLeaseStarted().getPrice(), "the ask is older: its price");
        assertEquals(4, lease3Started.getLeaseStarted().getGpus());

        // ---- the owner reclaims the machine: a notice to the renter, then the end
        final Response reclaim = ok(owner, Envelope.newBuilder().setCancel(
            io.gpux.proto.v1.Cancel.newBuilder().setOrderId(askId).setReclaim(true)));
        assertNotEquals(0, reclaim.getCommandSeq());
        ownerEvents.await("the ask's cancel", TIMEOUT, e -> e.hasCancelled() && e.getCancelled().getOrderId() == askId
            && e.getCancelled().getReason() == CancelReason.OWNER_RECLAIM);
        final AccountEvent reclaimNotice = renterEvents.await("the reclaim notice", TIMEOUT,
            e -> e.hasPreemptNotice() && e.getPreemptNotice().getLeaseId() == lease3);
        assertEquals(NoticeReason.NOTICE_OWNER_RECLAIM, reclaimNotice.getPreemptNotice().getReason());
        assertEquals(GRACE_MS, reclaimNotice.getPreemptNotice().getEffectiveMs() - reclaimNotice.getTimeMs());
        final AccountEvent ended3 = renterEvents.await("lease 3's end", TIMEOUT,
            e -> e.hasLeaseEnded() && e.getLeaseEnded().getLeaseId() == lease3);
        assertEquals(EndReason.OWNER_RECLAIMED, ended3.getLeaseEnded().getReason());
        assertTrue(renterEvents.indexOf(reclaimNotice) < renterEvents.indexOf(ended3));
        assertEquals(reclaimNotice.getPreemptNotice().getEffectiveMs(), ended3.getTimeMs());
        assertTrue(ended3.getLeaseEnded().getCost() > 0);
        assertSettlementsAddUp(renterEvents, ended3);
        E2e.await("the spot request's view", () -> spotLog.contains("ended " + lease3 + " OWNER_RECLAIMED"));
        assertTrue(spotLog.containsAll(List.of("started " + lease1, "notice " + lease1, "ended " + lease1 + " PREEMPTED",
            "started " + lease3, "notice " + lease3)), spotLog::toString);
        assertFalse(spotLog.stream().anyMatch(s -> s.startsWith("failed")), spotLog::toString);

        // ---- money is conserved: what the three accounts lost is exactly the exchange's fees
        final List<LeaseEnded> ends = new ArrayList<>();
        for (final long lease : new long[] {lease1, lease2, lease3})
        {
            ends.add(ownerEvents.await("lease " + lease + "'s end for the owner", TIMEOUT,
                e -> e.hasLeaseEnded() && e.getLeaseEnded().getLeaseId() == lease).getLeaseEnded());
        }
        final long fees = ends.stream().mapToLong(LeaseEnded::getFee).sum();
        final long costs = ends.stream().mapToLong(LeaseEnded::getCost).sum();
        final Portfolio renterFolio = renter.portfolio(TIMEOUT);
        final Portfolio ownerFolio = owner.portfolio(TIMEOUT);
        final Portfolio mmFolio = mm.portfolio(TIMEOUT);
        assertEquals(0, renterFolio.getLeasesCount() + ownerFolio.getLeasesCount() + mmFolio.getLeasesCount(),
            "every lease has ended");
        assertTrue(fees > 0);
        assertEquals(2 * DEPOSIT - fees, renterFolio.getBalance() + ownerFolio.getBalance() + mmFolio.getBalance(),
            "balances + fees = deposits");
        assertEquals(costs - fees, ownerFolio.getBalance(), "the owner is credited each charge less its fee");
        assertEquals(DEPOSIT - ended1.getLeaseEnded().getCost() - ended3.getLeaseEnded().getCost(), renterFolio.getBalance());
        assertEquals(DEPOSIT - ended2.getLeaseEnded().getCost(), mmFolio.getBalance());

        // ---- quiet down, then SIGTERM and restart on the same data directory
        spot.close();
        renterEvents.await("the spot request's bid cancelled", TIMEOUT,
            e -> e.hasCancelled() && e.getCancelled().getReason() == CancelReason.USER);
        E2e.await("the renter's commands answered", () -> renter.unansweredCommands() == 0);
        assertEquals(0, renter.portfolio(TIMEOUT).getOrdersCount());
        heartbeats.shutdownNow();
        heartbeats.awaitTermination(10, TimeUnit.SECONDS);
        final long renterSeen = renter.lastSeq();
        final List<AccountEvent> renterBefore = renterEvents.events();
        assertContiguous(renterBefore, renterEvents.logins().get(0).getLastSeq() + 1, renterSeen);
        final long ownerSeen = owner.lastSeq();
        final List<AccountEvent> ownerBefore = ownerEvents.events();
        final List<OpenOrder> mmOrdersBefore = sorted(mm.portfolio(TIMEOUT).getOrdersList());
        clients.forEach(E2e::closeQuietly);
        clients.clear();

        server.stop();
        assertFalse(server.isAlive());
        assertTrue(server.log().contains("gpux server: shutting down"), "SIGTERM ran the shutdown hook");
        server.restart();

        // the same keys log in; the admin can still administer
        final GpuxClient admin2 = connect(server.adminKey(), new Recorder("admin after restart"));
        ok(admin2, Envelope.newBuilder().setDeposit(io.gpux.proto.v1.Deposit.newBuilder().setAccount("mm").setAmount(1)));

        // resume from the last seq seen: exactly the events after it (none: the renter's account was quiet)
        final Recorder resumed = new Recorder("renter resumed");
        final GpuxClient renter2 = connect(renterKey, resumed, renterSeen);
        E2e.await("the resend", () -> !resumed.resends().isEmpty());
        final ResendComplete complete = resumed.resends().get(0);
        assertEquals(renterSeen, resumed.logins().get(0).getLastSeq(), "the account's last event survived the restart");
        assertEquals(renterSeen, complete.getLastSeq());
        assertEquals(0, complete.getEventsResent());
        assertTrue(resumed.events().isEmpty(), () -> E2e.describe(resumed.events()));

        // resume from the middle: the events seen before the restart, identical, numbered as before
        final long middle = renterSeen / 2;
        final Recorder fromMiddle = new Recorder("renter from the middle");
        connect(renterKey, fromMiddle, middle);
        E2e.await("the resend", () -> !fromMiddle.resends().isEmpty());
        assertEquals(renterSeen - middle, fromMiddle.resends().get(0).getEventsResent());
        assertEquals(renterBefore.subList(renterBefore.size() - (int)(renterSeen - middle), renterBefore.size()), fromMiddle.events());

        // the owner's account: exactly the events after its last seq, numbered on without a gap
        final Recorder ownerResumed = new Recorder("owner resumed");
        connect(ownerKey, ownerResumed, ownerSeen);
        E2e.await("the owner's resend", () -> !ownerResumed.resends().isEmpty());
        final long ownerLast = ownerResumed.logins().get(0).getLastSeq();
        assertTrue(ownerLast >= ownerSeen);
        assertEquals(ownerLast - ownerSeen, ownerResumed.resends().get(0).getEventsResent());
        E2e.await("the owner's resent events", () -> ownerResumed.events().size() >= ownerLast - ownerSeen);
        assertContiguous(ownerResumed.events(), ownerSeen + 1, ownerResumed.events().isEmpty() ? ownerSeen
            : ownerResumed.events().get(ownerResumed.events().size() - 1).getSeq());
        assertTrue(ownerBefore.stream().noneMatch(e -> e.getSeq() > ownerSeen));

        // the market-maker's resting quotes survived, and it trades on
        final Recorder mmAfter = new Recorder("mm after restart");
        final GpuxClient mm2 = connect(mmKey, mmAfter);
        assertEquals(mmOrdersBefore, sorted(mm2.portfolio(TIMEOUT).getOrdersList()));
        ok(mm2, Envelope.newBuilder().setReplace(io.gpux.proto.v1.Replace.newBuilder()
            .setOrderId(mmBid).setPrice(Money.parsePrice("1.2000"))));
        assertEquals(Money.parsePrice("1.2000"), mm2.portfolio(TIMEOUT).getOrdersList().stream()
            .filter(o -> o.getOrderId() == mmBid).findFirst().orElseThrow().getPrice());
        assertTrue(renter2.isConnected());
        assertEquals(Side.BID, mmOrdersBefore.stream().filter(o -> o.getOrderId() == mmBid).findFirst().orElseThrow().getSide());

        // ---- SIGKILL this time: what was answered before the kill is still there after the restart
        final List<OpenOrder> mmOrdersBeforeKill = sorted(mm2.portfolio(TIMEOUT).getOrdersList());
        final long mmSeenBeforeKill = mm2.lastSeq();
        clients.forEach(E2e::closeQuietly);
        clients.clear();
        server.kill();
        assertFalse(server.isAlive());
        server.start();
        final Recorder mmAfterKill = new Recorder("mm after kill");
        final GpuxClient mm3 = connect(mmKey, mmAfterKill, mmSeenBeforeKill);
        E2e.await("the mm's resend", () -> !mmAfterKill.resends().isEmpty());
        assertTrue(mmAfterKill.logins().get(0).getLastSeq() >= mmSeenBeforeKill);
        assertEquals(mmOrdersBeforeKill, sorted(mm3.portfolio(TIMEOUT).getOrdersList()));
        final Recorder renterAfterKill = new Recorder("renter after kill");
        connect(renterKey, renterAfterKill, renterSeen);
        E2e.await("the renter's resend", () -> !renterAfterKill.resends().isEmpty());
        assertEquals(renterSeen, renterAfterKill.logins().get(0).getLastSeq());
        assertTrue(renterAfterKill.events().isEmpty());
    }

    /** The lease's settlements sum to what its end reports, each fee being the market's share of its charge. */
    private static void assertSettlementsAddUp(final Recorder recorder, final AccountEvent end)
    {
        final long lease = end.getLeaseEnded().getLeaseId();
        final List<AccountEvent> settled = recorder.events(AccountEvent.KindCase.SETTLED).stream()
            .filter(e -> e.getSettled().getLeaseId() == lease).toList();
        assertFalse(settled.isEmpty(), "lease " + lease + " settled");
        assertEquals(end.getLeaseEnded().getCost(), settled.stream().mapToLong(e -> e.getSettled().getCharge()).sum());
        assertEquals(end.getLeaseEnded().getFee(), settled.stream().mapToLong(e -> e.getSettled().getFee()).sum());
        for (final AccountEvent s : settled)
        {
            assertEquals(s.getSettled().getCharge() * FEE_BPS / 10_000, s.getSettled().getFee(), s::toString);
            assertTrue(recorder.indexOf(s) < recorder.indexOf(end), "SETTLED before LEASE_ENDED");
        }
    }

    private static void assertContiguous(final List<AccountEvent> events, final long first, final long last)
    {
        assertEquals(last - first + 1, events.size(), () -> "seqs " + first + ".." + last + ":\n" + E2e.describe(events));
        for (int i = 0; i < events.size(); i++)
        {
            assertEquals(first + i, events.get(i).getSeq(), E2e.describe(events));
        }
    }

    private static List<OpenOrder> sorted(final List<OpenOrder> orders)
    {
        final List<OpenOrder> copy = new ArrayList<>(orders);
        copy.sort(Comparator.comparingLong(OpenOrder::getOrderId));
        return copy;
    }
}
