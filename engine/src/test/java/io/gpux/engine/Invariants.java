package io.gpux.engine;

import io.gpux.engine.book.BookSide;
import io.gpux.engine.book.Order;
import io.gpux.engine.command.Command;
import io.gpux.engine.machine.Machine;
import io.gpux.engine.market.Market;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * What the {@link InvariantChecker}'s rule families share: the failure they throw, and the rulebook's
 * formulas recomputed independently of the engine's code: the cost formula (section 1), the hold's
 * length (13.25) and which machine may fill which bid (5, 13.15, 13.16, self-trade in section 4).
 */
final class Invariants
{
    private static final BigInteger MS_PER_HOUR = BigInteger.valueOf(3_600_000L);
    private static final BigInteger HUNDRED = BigInteger.valueOf(100);
    private static final long PPB_ONE = 1_000_000_000L;

    private Invariants()
    {
    }

    /** Fails with an {@link AssertionError} naming what is wrong. */
    static void require(final boolean ok, final String what)
    {
        if (!ok)
        {
            throw new AssertionError(what);
        }
    }

    /** Section 1's cost formula, computed independently of the engine's Money class. */
    static long cost(final int gpus, final long priceTicks, final long elapsedMs)
    {
        if (elapsedMs <= 0)
        {
            return 0;
        }
        return BigInteger.valueOf(gpus).multiply(BigInteger.valueOf(priceTicks)).multiply(HUNDRED)
            .multiply(BigInteger.valueOf(elapsedMs)).divide(MS_PER_HOUR).longValueExact();
    }

    /** 13.25: prepay + grace, or the maximum duration if shorter. */
    static long holdMs(final Market market, final long maxDurationMs)
    {
        final long ms = market.prepayMs + market.graceMs;
        return maxDurationMs > 0 ? Math.min(ms, maxDurationMs) : ms;
    }

    /** Whether the ask's machine may fill the bid (13.15, 13.16, self-trade), recomputed here. */
    static boolean couldMatch(final Order bid, final Order ask)
    {
        final Machine machine = ask.machine;
        if (!machine.online || ask.openGpus <= 0 || bid.openGpus <= 0 || bid.account == ask.account)
        {
            return false;
        }
        return eligible(bid, machine) && (!bid.gang || ask.openGpus >= bid.openGpus);
    }

    /** Whether a machine satisfies a bid's constraints and is not the bidder's own. */
    static boolean eligible(final Order bid, final Machine machine)
    {
        if (bid.account == machine.owner)
        {
            return false;
        }
        if (bid.regionId != Command.NONE && bid.regionId != machine.regionId)
        {
            return false;
        }
        if (bid.minReliabilityPpb >= 0)
        {
            final BigInteger lhs = BigInteger.valueOf(machine.relNum).multiply(BigInteger.valueOf(PPB_ONE));
            final BigInteger rhs = BigInteger.valueOf(bid.minReliabilityPpb).multiply(BigInteger.valueOf(machine.relDen));
            return lhs.compareTo(rhs) >= 0;
        }
        return true;
    }

    /** A book side's orders, best level first, in time priority within a level. */
    static List<Order> orders(final BookSide side)
    {
        final List<Order> list = new ArrayList<>();
        for (int rank = 0; rank < side.levelCount(); rank++)
        {
            for (Order o = side.level(rank).head(); o != null; o = o.nextInLevel())
            {
                list.add(o);
            }
        }
        return list;
    }
}
