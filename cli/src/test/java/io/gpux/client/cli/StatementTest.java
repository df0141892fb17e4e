package io.gpux.client.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.EndReason;
import io.gpux.proto.v1.LeaseEnded;
import io.gpux.proto.v1.LeaseStarted;
import io.gpux.proto.v1.Settled;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A statement's range takes settlements at {@code from} and before {@code to}, and each role's sign. */
class StatementTest
{
    @Test
    void theRangeIncludesItsStartAndExcludesItsEnd()
    {
        final Statement statement = new Statement(1_000, 3_000);
        statement.add(started(7, true, 500));
        statement.add(settled(7, 999, 10_000_000, 100_000));
        statement.add(settled(7, 1_000, 2_000_000, 20_000));
        statement.add(settled(7, 2_999, 3_000_000, 30_000));
        statement.add(settled(7, 3_000, 40_000_000, 400_000));
        statement.add(AccountEvent.newBuilder().setTimeMs(3_000)
            .setLeaseEnded(LeaseEnded.newBuilder().setLeaseId(7).setReason(EndReason.RELEASED)).build());
        final List<Statement.Line> lines = statement.lines();
        assertEquals(1, lines.size());
        final Statement.Line line = lines.get(0);
        assertEquals(2, line.settlements);
        assertEquals(5_000_000, line.charge);
        assertEquals(50_000, line.fee);
        assertEquals(-5_000_000, line.net(), "a renter's charge is spend; the fee is inside it");
        assertEquals(3_000, line.endedMs);
        assertEquals("RELEASED", line.endReason);
        assertEquals(5_000_000, Statement.spend(lines));
        assertEquals(0, Statement.earnings(lines));
    }

    @Test
    void anOwnerEarnsTheChargeLessTheFeeAndLeasesComeInTheOrderTheyStarted()
    {
        final Statement statement = new Statement(0, Long.MAX_VALUE);
        statement.add(started(9, false, 2_000));
        statement.add(started(8, false, 1_000));
        statement.add(started(10, false, 3_000));
        statement.add(settled(9, 5_000, 1_000_000, 25_000));
        statement.add(settled(8, 5_000, 2_000_000, 50_000));
        final List<Statement.Line> lines = statement.lines();
        assertEquals(List.of(8L, 9L), lines.stream().map(l -> l.leaseId).toList(), "lease 10 never settled");
        assertEquals(1_950_000, lines.get(0).net());
        assertEquals(2_925_000, Statement.earnings(lines));
        assertEquals(75_000, Statement.ownerFees(lines));
    }

    private static AccountEvent started(final long lease, final boolean renter, final long timeMs)
    {
        return AccountEvent.newBuilder().setTimeMs(timeMs).setLeaseStarted(LeaseStarted.newBuilder().setLeaseId(lease)
            .setMarket("M").setMachineId(1).setGpus(2).setPrice(15_000).setRenter(renter)).build();
    }

    private static AccountEvent settled(final long lease, final long timeMs, final long charge, final long fee)
    {
        return AccountEvent.newBuilder().setTimeMs(timeMs).setSettled(Settled.newBuilder().setLeaseId(lease)
            .setCharge(charge).setFee(fee).setMs(1_000)).build();
    }
}
