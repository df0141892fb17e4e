package io.gpux.engine;

import io.gpux.engine.replay.ScenarioReplayer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Engine bugs found by {@link EngineInvariantProperties} and {@link ReferenceBookDifferentialTest},
 * each kept as its minimal scenario with the output the rulebook requires.
 */
class EngineRegressionTest
{
    /**
     * 13.11 and 13.15: a gang bid that shrinks (same price, fewer GPUs: it keeps its priority) is matched
     * like a new order, and now fits an ask with 2 open GPUs that could not cover 8. The book must not be
     * left crossed (invariant 2).
     */
    @Test
    void shrinkingGangBidMatchesAnAskItNowFits() throws Exception
    {
        final String scenario = """
            0 MARKET id=A100 preemption=off
            0 CONFIG heartbeatTimeoutMs=0
            0 ACCOUNT id=own roles=OWNER
            0 ACCOUNT id=r1 roles=RENTER
            0 DEPOSIT account=r1 amount=1000
            0 MACHINE id=m1 owner=own market=A100 gpus=8
            0 HEARTBEAT machine=m1
            1 ASK id=s1 account=own machine=m1 gpus=2 price=1.1000
            2 BID id=b1 account=r1 market=A100 gpus=8 price=1.1500 gang=true
            3 REPLACE id=b1 account=r1 gpus=1
            4 BOOK market=A100
            """;
        assertEquals("""
            0 BALANCE account=r1 balance=1000.000000 available=1000.000000
            0 MACHINE_ONLINE machine=m1
            1 ACCEPTED order=s1 account=own
            2 ACCEPTED order=b1 account=r1
            3 ACCEPTED order=b1 account=r1
            3 FILL order=b1 account=r1 counter=s1 lease=L1 gpus=1 price=1.1000
            3 FILL order=s1 account=own counter=b1 lease=L1 gpus=1 price=1.1000
            3 TRADE market=A100 gpus=1 price=1.1000
            3 LEASE_STARTED lease=L1 renter=r1 owner=own machine=m1 market=A100 gpus=1 price=1.1000
            4 BOOK market=A100 bids=- asks=1.1000:1
            """, ScenarioReplayer.replay(scenario));
    }

    /** 6.7: a reclaim of an ask with a running lease gives the lease a notice, and does not throw. */
    @Test
    void reclaimOfAnAskWithALeaseGivesItANotice() throws Exception
    {
        final String scenario = """
            0 MARKET id=H100
            0 ACCOUNT id=own roles=OWNER
            0 ACCOUNT id=r1 roles=RENTER
            0 DEPOSIT account=r1 amount=100
            0 MACHINE id=m1 owner=own market=H100 gpus=4
            0 HEARTBEAT machine=m1
            1 ASK id=a1 account=own machine=m1 gpus=4 price=1.0000
            2 BID id=b1 account=r1 market=H100 gpus=1 price=1.0000
            3 CANCEL id=a1 account=own reclaim=true
            """;
        assertEquals("""
            0 BALANCE account=r1 balance=100.000000 available=100.000000
            0 MACHINE_ONLINE machine=m1
            1 ACCEPTED order=a1 account=own
            2 ACCEPTED order=b1 account=r1
            2 FILL order=b1 account=r1 counter=a1 lease=L1 gpus=1 price=1.0000
            2 FILL order=a1 account=own counter=b1 lease=L1 gpus=1 price=1.0000
            2 TRADE market=H100 gpus=1 price=1.0000
            2 LEASE_STARTED lease=L1 renter=r1 owner=own machine=m1 market=H100 gpus=1 price=1.0000
            3 CANCELLED order=a1 account=own reason=OWNER_RECLAIM remaining=3
            3 PREEMPT_NOTICE lease=L1 reason=OWNER_RECLAIM effective=30003
            """, ScenarioReplayer.replay(scenario));
    }

    /**
     * 14: a lease whose start falls inside an outage waits for the restart; if it ends before then (here a
     * waiting lease ended by its owner's reclaim), the restart starts nothing in its place and does not throw.
     */
    @Test
    void aDeferredLeaseThatEndsInTheOutageIsNotStartedAtTheRestart() throws Exception
    {
        final String scenario = """
            0 CONFIG heartbeatTimeoutMs=0
            0 MARKET id=L4 preemption=on graceMs=30000 prepayMs=120000 maxGpusPerOrder=8 feeBps=100
            0 ACCOUNT id=own2 roles=OWNER
            0 ACCOUNT id=r1 roles=RENTER
            0 ACCOUNT id=r2 roles=RENTER
            0 ACCOUNT id=r4 roles=RENTER
            0 DEPOSIT account=r1 amount=1.130696
            0 DEPOSIT account=r4 amount=1.000142
            0 MACHINE id=l2 owner=own2 market=L4 gpus=4
            40262 HEARTBEAT machine=l2
            40264 DEPOSIT account=r2 amount=3.516000
            40264 BID id=o1 account=r1 market=L4 gpus=1 price=0.3500 postOnly=true
            40285 BID id=o4 account=r4 market=L4 gpus=2 price=0.3800
            11379225 ASK id=o2 account=own2 machine=l2 gpus=4 price=0.2100
            11391659 BID id=o0 account=r2 market=L4 gpus=2 price=0.4000 tif=IOC gang=true maxDurationMs=60000
            11412250 CANCEL id=o2 account=own2 reclaim=true
            11473296 RESTART
            """;
        assertEquals("""
            0 BALANCE account=r1 balance=1.130696 available=1.130696
            0 BALANCE account=r4 balance=1.000142 available=1.000142
            40262 MACHINE_ONLINE machine=l2
            40264 BALANCE account=r2 balance=3.516000 available=3.516000
            40264 ACCEPTED order=o1 account=r1
            40285 ACCEPTED order=o4 account=r4
            11379225 ACCEPTED order=o2 account=own2
            11379225 FILL order=o2 account=own2 counter=o4 lease=L1 gpus=2 price=0.3800
            11379225 FILL order=o4 account=r4 counter=o2 lease=L1 gpus=2 price=0.3800
            11379225 TRADE market=L4 gpus=2 price=0.3800
            11379225 LEASE_STARTED lease=L1 renter=r4 owner=own2 machine=l2 market=L4 gpus=2 price=0.3800
            11379225 FILL order=o2 account=own2 counter=o1 lease=L2 gpus=1 price=0.3500
            11379225 FILL order=o1 account=r1 counter=o2 lease=L2 gpus=1 price=0.3500
            11379225 TRADE market=L4 gpus=1 price=0.3500
            11379225 LEASE_STARTED lease=L2 renter=r1 owner=own2 machine=l2 market=L4 gpus=1 price=0.3500
            11391659 ACCEPTED order=o0 account=r2
            11391659 PREEMPT_NOTICE lease=L2 reason=OUTBID effective=11421659
            11391659 FILL order=o0 account=r2 counter=o2 lease=L3 gpus=1 price=0.4000
            11391659 FILL order=o2 account=own2 counter=o0 lease=L3 gpus=1 price=0.4000
            11391659 TRADE market=L4 gpus=1 price=0.4000
            11391659 FILL order=o0 account=r2 counter=o2 lease=L3 gpus=1 price=0.4000 preempts=L2
            11391659 FILL order=o2 account=own2 counter=o0 lease=L3 gpus=1 price=0.4000 preempts=L2
            11391659 TRADE market=L4 gpus=1 price=0.4000
            11412250 CANCELLED order=o2 account=own2 reason=OWNER_RECLAIM remaining=0
            11412250 PREEMPT_NOTICE lease=L1 reason=OWNER_RECLAIM effective=11442250
            11412250 PREEMPT_NOTICE lease=L3 reason=OWNER_RECLAIM effective=11442250
            11421659 SETTLED lease=L2 charge=0.004125 fee=0.000041 period=1 ms=42434
            11421659 LEASE_ENDED lease=L2 reason=PREEMPTED cost=0.004125 fee=0.000041
            11442250 SETTLED lease=L1 charge=0.013305 fee=0.000133 period=1 ms=63025
            11442250 LEASE_ENDED lease=L1 reason=OWNER_RECLAIMED cost=0.013305 fee=0.000133
            11442250 LEASE_ENDED lease=L3 reason=OWNER_RECLAIMED cost=0.000000 fee=0.000000
            """, ScenarioReplayer.replay(scenario));
    }
}
