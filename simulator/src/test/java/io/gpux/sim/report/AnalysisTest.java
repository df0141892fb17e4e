package io.gpux.sim.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The measurements on a market small enough to work out by hand. */
class AnalysisTest
{
    private static final long H = 3_600_000L;

    /** An owner with one A100 machine (id 5, cost 1.00) online from time 0. */
    private static MachineRecord machineOf(final AgentRecords owner, final int gpus)
    {
        final MachineRecord m = new MachineRecord("o-m1", "o", "A100-80G", gpus, "eu-west", 1.0);
        m.machineId = 5;
        m.online.open(0);
        owner.machines.add(m);
        return m;
    }

    @Test
    void utilizationAndEfficiencyOfAHandMadeMarket()
    {
        // one owner: a 2-GPU A100 machine, cost 1.00, online and listed for the 4 hours
        final AgentRecords owner = new AgentRecords("o", "owner");
        machineOf(owner, 2).listed.open(0);
        // two renters, values 3.00 (1 GPU, whole window) and 0.50 (1 GPU: below cost, should not trade)
        final AgentRecords r1 = new AgentRecords("r1", "renter");
        final JobRecord j1 = new JobRecord(1, "r1", "A100-80G", 1, false, 3.0, 0, 4 * H);
        r1.jobs.add(j1);
        final AgentRecords r2 = new AgentRecords("r2", "renter");
        r2.jobs.add(new JobRecord(2, "r2", "A100-80G", 1, false, 0.5, 0, 4 * H));
        // r1 leases 1 GPU for the first 2 hours only
        final LeaseRecord renterSide = new LeaseRecord(9, true);
        renterSide.market = "A100-80G";
        renterSide.machineId = 5;
        renterSide.gpus = 1;
        renterSide.startMs = 0;
        renterSide.endMs = 2 * H;
        renterSide.endReason = "RELEASED";
        renterSide.jobId = 1;
        renterSide.value = 3.0;
        r1.renterLeases.put(9L, renterSide);
        final LeaseRecord ownerSide = new LeaseRecord(9, false);
        ownerSide.market = "A100-80G";
        ownerSide.machineId = 5;
        ownerSide.gpus = 1;
        ownerSide.startMs = 0;
        ownerSide.endMs = 2 * H;
        owner.ownerLeases.put(9L, ownerSide);
        owner.sales.add(new TradeRecord(0, "A100-80G", 1, 12_000));

        renterSide.usefulGpuMs = 2 * H;
        j1.doneGpuMs = 2 * H;
        ownerSide.price = 12_000;

        final Analysis a = new Analysis(List.of(owner, r1, r2), 0, 4 * H, 300_000);
        // 2 GPU-hours did work, of 8 online (and offered)
        assertEquals(0.25, a.all.utilization(), 1e-9);
        assertEquals(0.25, a.all.offeredUtilization(), 1e-9);
        // work worth 2 h x 3.00 = 6, leased GPU-hours cost 2 h x 1.00 = 2
        assertEquals(6.0, a.all.workValue, 1e-9);
        assertEquals(2.0, a.all.leasedCost, 1e-9);
        assertEquals(4.0, a.all.realizedSurplus(), 1e-9);
        // bound: the 3.00 job on one 1.00 GPU for 4 h = 8; values rounded up and costs down in tiers of 5 %:
        // at most 4 x (3 x 1.05 - 1 / 1.05)
        final double most = 4 * (3 * SurplusBound.TIER - 1 / SurplusBound.TIER);
        assertTrue(a.all.surplusBound >= 8.0 - 1e-6 && a.all.surplusBound <= most + 1e-6, "bound " + a.all.surplusBound);
        assertEquals(4.0 / a.all.surplusBound, a.all.efficiency(), 1e-9);
        assertTrue(a.all.efficiency() <= 0.5 + 1e-9, "at most the exact 4 / 8");
        // 1.20 per GPU-hour over 2 GPU-hours
        assertEquals(1.2, a.markets.get("A100-80G").vwap, 1e-9);
        assertEquals(0, a.noticeCheckFailures);
        assertEquals(0, Invariants.worstOversubscription(List.of(owner, r1, r2)) > 0 ? 1 : 0);
    }

    @Test
    void theNoticeCheckWantsTheFullGraceOnAWorkingMachine()
    {
        final AgentRecords owner = new AgentRecords("o", "owner");
        machineOf(owner, 8).failed.open(3 * H);
        final AgentRecords renter = new AgentRecords("r", "renter");
        // full grace; 1 minute of notice; no notice on a working machine (heartbeats late); no notice on a broken one
        final long[][] cases = {{H - 300_000, H, 1}, {H - 60_000, H, 1}, {-1, 2 * H, 1}, {-1, 3 * H + 300_000, 1}};
        final String[] reasons = {"PREEMPTED", "PREEMPTED", "MACHINE_OFFLINE", "MACHINE_OFFLINE"};
        for (int i = 0; i < cases.length; i++)
        {
            final LeaseRecord l = new LeaseRecord(i + 1, true);
            l.market = "A100-80G";
            l.machineId = 5;
            l.gpus = 1;
            l.startMs = 0;
            l.noticeMs = cases[i][0];
            l.noticeReason = cases[i][0] < 0 ? null : "OUTBID";
            l.endMs = cases[i][1];
            l.endReason = reasons[i];
            renter.renterLeases.put((long)i + 1, l);
        }
        final Analysis a = new Analysis(List.of(owner, renter), 0, 4 * H, 300_000);
        assertEquals(2, a.noticeCheckFailures, "the short notice and the healthy machine taken offline");
        assertEquals(1, a.noticeShort);
        assertEquals(1, a.offlineHeartbeatLapse);
        assertEquals(1, a.offlineMachineFailed);
        assertEquals(Boolean.FALSE, Invariants.fromRecords(List.of(owner, renter), a)
            .get("everyInterruptionOfAWorkingMachineNoticedWithFullGrace"));
    }

    @Test
    void oversubscriptionIsCaught()
    {
        final AgentRecords owner = new AgentRecords("o", "owner");
        final MachineRecord m = new MachineRecord("o-m1", "o", "A100-80G", 2, "", 1.0);
        m.machineId = 5;
        owner.machines.add(m);
        for (long id = 1; id <= 2; id++)
        {
            final LeaseRecord l = new LeaseRecord(id, false);
            l.machineId = 5;
            l.gpus = 2;
            l.startMs = id;
            l.endMs = id == 1 ? 10 : 20;
            owner.ownerLeases.put(id, l);
        }
        assertEquals(2, Invariants.worstOversubscription(List.of(owner)), "4 GPUs leased at once on a 2-GPU machine");
        owner.ownerLeases.get(2L).startMs = 10;
        assertEquals(0, Invariants.worstOversubscription(List.of(owner)), "a hand-over at the same instant is no overlap");
    }
}
