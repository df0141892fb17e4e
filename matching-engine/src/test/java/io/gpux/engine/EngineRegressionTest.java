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
}
