package io.gpux.client.cli;

import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.LeaseEnded;
import io.gpux.proto.v1.LeaseStarted;
import io.gpux.proto.v1.Settled;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An account's statement over a time range, built from its event history: one line per lease with at
 * least one settlement in the range, with the sum of those settlements. A renter's line is spend (the
 * charges; the exchange's fee is taken out of them, not added), an owner's is earnings (the charges less
 * the fee): what the owner is credited, and what a payout reconciles against.
 */
final class Statement
{
    /** One lease's settlements in the range. */
    static final class Line
    {
        final long leaseId;
        boolean renter;
        String market = "";
        long machineId;
        int gpus;
        long price;
        long startedMs;
        long endedMs;
        String endReason = "";
        int settlements;
        long billedMs;
        long charge;
        long fee;

        Line(final long leaseId)
        {
            this.leaseId = leaseId;
        }

        /** What the line did to the account's balance: minus the charges for a renter, the charges less the fee for an owner. */
        long net()
        {
            return renter ? -charge : charge - fee;
        }
    }

    private final long fromMs;
    private final long toMs;
    private final Map<Long, Line> leases = new HashMap<>();

    /** A statement of the settlements at {@code fromMs} or later and before {@code toMs}. */
    Statement(final long fromMs, final long toMs)
    {
        this.fromMs = fromMs;
        this.toMs = toMs;
    }

    /** Takes one event of the history, in order; events other than lease starts, settlements and ends are ignored. */
    void add(final AccountEvent e)
    {
        switch (e.getKindCase())
        {
            case LEASE_STARTED ->
            {
                final LeaseStarted s = e.getLeaseStarted();
                final Line line = line(s.getLeaseId());
                line.renter = s.getRenter();
                line.market = s.getMarket();
                line.machineId = s.getMachineId();
                line.gpus = s.getGpus();
                line.price = s.getPrice();
                line.startedMs = e.getTimeMs();
            }
            case SETTLED ->
            {
                final Settled s = e.getSettled();
                if (e.getTimeMs() >= fromMs && e.getTimeMs() < toMs)
                {
                    final Line line = line(s.getLeaseId());
                    line.settlements++;
                    line.billedMs += s.getMs();
                    line.charge += s.getCharge();
                    line.fee += s.getFee();
                }
            }
            case LEASE_ENDED ->
            {
                final LeaseEnded ended = e.getLeaseEnded();
                final Line line = line(ended.getLeaseId());
                line.endedMs = e.getTimeMs();
                line.endReason = ended.getReason().name();
            }
            default ->
            {
                // not part of a statement
            }
        }
    }

    private Line line(final long leaseId)
    {
        return leases.computeIfAbsent(leaseId, Line::new);
    }

    /** The leases with a settlement in the range, by start, then lease id. */
    List<Line> lines()
    {
        final List<Line> lines = new ArrayList<>();
        for (final Line line : leases.values())
        {
            if (line.settlements > 0)
            {
                lines.add(line);
            }
        }
        lines.sort(Comparator.comparingLong((Line l) -> l.startedMs).thenComparingLong(l -> l.leaseId));
        return lines;
    }

    /** The charges of the leases this account rents. */
    static long spend(final List<Line> lines)
    {
        return lines.stream().filter(l -> l.renter).mapToLong(l -> l.charge).sum();
    }

    /** What the account's machines earned: charges less fees. */
    static long earnings(final List<Line> lines)
    {
        return lines.stream().filter(l -> !l.renter).mapToLong(Line::net).sum();
    }

    /** The exchange's fees on the owner's lines (the fees on a renter's charges are the owner's to bear). */
    static long ownerFees(final List<Line> lines)
    {
        return lines.stream().filter(l -> !l.renter).mapToLong(l -> l.fee).sum();
    }
}
