package io.gpux.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.client.ClientListener;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Fill;
import io.gpux.proto.v1.LeaseInfo;
import io.gpux.proto.v1.LeaseStarted;
import io.gpux.proto.v1.LeaseState;
import io.gpux.proto.v1.LoginAccepted;
import io.gpux.proto.v1.NoticeReason;
import io.gpux.proto.v1.OpenOrder;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.PreemptNotice;
import io.gpux.proto.v1.Side;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * What the demo says of a lease or an order still open after the wind-down: the lease once, with its market,
 * machine, state, renter and owner, its last events as the clients delivered them and the accounts' last logins and
 * drops; an open order with its account and its last events.
 */
class DemoAuditTest
{
    private static final long T0 = 1_748_833_200_000L; // 2025-06-02T03:00:00Z

    @Test
    void aLeaseLeftOpenIsNamedWithItsAccountsMarketAndLastEvents()
    {
        final LeaseTrail trail = new LeaseTrail(() -> T0 + 9_000);
        final ClientListener renter = trail.listener("lane-renter-1");
        final ClientListener owner = trail.listener("lane-owner-1");
        renter.onLoginAccepted(LoginAccepted.newBuilder().setLastSeq(0).build());
        deliver(renter, AccountEvent.newBuilder().setSeq(5).setTimeMs(T0 + 1_000)
            .setFill(Fill.newBuilder().setOrderId(42).setLeaseId(7).setGpus(1)).build());
        deliver(renter, AccountEvent.newBuilder().setSeq(6).setTimeMs(T0 + 2_000)
            .setLeaseStarted(LeaseStarted.newBuilder().setLeaseId(7).setMarket("H200-141G").setRenter(true)).build());
        deliver(owner, AccountEvent.newBuilder().setSeq(11).setTimeMs(T0 + 3_000).setPreemptNotice(PreemptNotice.newBuilder()
            .setLeaseId(7).setReason(NoticeReason.NOTICE_OWNER_RECLAIM).setEffectiveMs(T0 + 8_000)).build());
        owner.onDisconnected("connection closed", true);

        final Map<String, Portfolio> finals = new TreeMap<>();
        final LeaseInfo lease = LeaseInfo.newBuilder().setLeaseId(7).setMarket("H200-141G").setMachineId(3).setGpus(1)
            .setState(LeaseState.PREEMPTING).setNoticeEffectiveMs(T0 + 8_000).build();
        finals.put("lane-owner-1", Portfolio.newBuilder().addLeases(lease.toBuilder().setRenter(false)).build());
        finals.put("lane-renter-1", Portfolio.newBuilder().addLeases(lease.toBuilder().setRenter(true))
            .addOrders(OpenOrder.newBuilder().setOrderId(43).setMarket("H200-141G").setSide(Side.BID).setOpenGpus(1)).build());
        finals.put("renter-1", Portfolio.getDefaultInstance());

        final List<String> left = DemoAudit.leftOpen(finals, trail);
        assertEquals(2, left.size(), "the order, then the lease once (both its accounts hold it): " + left);
        final String order = left.get(0);
        assertTrue(order.startsWith("order 43 (BID H200-141G, 1 GPUs open") && order.contains("of lane-renter-1")
            && order.contains("its last events: none seen"), order);
        final String l = left.get(1);
        assertTrue(l.startsWith("lease 7 (H200-141G, machine 3, 1 GPUs, PREEMPTING, notice effective 03:00:08.000)"), l);
        assertTrue(l.contains("rented by lane-renter-1 on a machine of lane-owner-1"), l);
        assertTrue(l.contains("lane-renter-1 03:00:01.000 #5 Fill of order 42 (1 GPUs); lane-renter-1 03:00:02.000 #6 "
            + "LeaseStarted; lane-owner-1 03:00:03.000 #11 PreemptNotice NOTICE_OWNER_RECLAIM effective 03:00:08.000"), l);
        assertTrue(l.contains("lane-renter-1: logged in at 03:00:09.000 (last event 0)"), l);
        assertTrue(l.contains("lane-owner-1: dropped at 03:00:09.000 (connection closed)"), l);
    }

    @Test
    void nothingLeftOpenSaysNothing()
    {
        final Map<String, Portfolio> finals = Map.of("renter-1", Portfolio.getDefaultInstance(), "owner-1",
            Portfolio.getDefaultInstance());
        assertTrue(DemoAudit.leftOpen(finals, new LeaseTrail(() -> T0)).isEmpty());
    }

    private static void deliver(final ClientListener listener, final AccountEvent e)
    {
        listener.onEvent(e);
    }
}
