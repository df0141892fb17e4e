package io.gpux.bench;

import io.gpux.bench.flow.OrderFlow;
import io.gpux.engine.MatchingEngine;
import io.gpux.engine.book.Order;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.command.TimeInForce;
import io.gpux.engine.event.EventType;
import io.gpux.engine.funds.Account;

import java.io.File;

/**
 * The LOBSTER day of {@code EngineBenchmark.lobster} as a plain {@link OrderFlow}: the {@link LobsterWorkload}
 * pass is replayed on a gpux engine and each command is written down as what a plain book (exchange-core's) is
 * asked to do, leaving out what only gpux needs: RELEASEs of leases and DEPOSITs; CANCELs of asks that are
 * fully leased (filled: gone in a plain book, open in gpux, rulebook 13.9); a MASS_CANCEL becomes one CANCEL
 * per order still resting. A REPLACE of the size becomes a REDUCE. IOC takers, all numbered 1 in the
 * workload, get ids of their own. The flow's users are the workload's accounts (1 seller, 2 buyer, 3 taker),
 * so no order meets one of its own user; the trades per pass must equal the workload's (checked).
 */
final class LobsterOrderFlow
{
    /** IOC takers are numbered from here: above any LOBSTER id and the seeds of the opening book. */
    static final long IOC_IDS = 1L << 40;

    private LobsterOrderFlow()
    {
    }

    static OrderFlow build(final File zip)
    {
        final Workload w = LobsterWorkload.get(zip);
        final CountingSink sink = new CountingSink();
        final MatchingEngine engine = new MatchingEngine(sink);
        for (final Command c : w.setup)
        {
            engine.apply(c);
        }
        final OrderFlow.Builder out = new OrderFlow.Builder("lobster", 3);
        long iocId = IOC_IDS;
        int skipped = 0;
        for (final Command c : w.pass)
        {
            final long t = c.timeMs;
            final int user = (int)c.accountId;
            switch (c.type)
            {
                case ASK, BID ->
                {
                    if (c.tif == TimeInForce.FOK)
                    {
                        throw new IllegalStateException("LOBSTER flow: FOK has no plain equivalent");
                    }
                    final boolean ioc = c.tif == TimeInForce.IOC;
                    out.place(t, user, c.type == CommandType.BID, ioc, ioc ? iocId++ : c.orderId, c.price, c.gpus);
                }
                case CANCEL ->
                {
                    final Order o = open(engine, c.accountId, c.orderId);
                    if (o != null && o.openGpus > 0)
                    {
                        out.cancel(t, user, c.orderId);
                    }
                    else
                    {
                        skipped++;
                    }
                }
                case REPLACE ->
                {
                    final Order o = open(engine, c.accountId, c.orderId);
                    if (o == null || c.price != Command.ABSENT && c.price != o.price && c.gpus != Command.ABSENT_INT)
                    {
                        throw new IllegalStateException("LOBSTER flow: cannot map " + c.type + " of order " + c.orderId);
                    }
                    if (c.price != Command.ABSENT && c.price != o.price)
                    {
                        out.move(t, user, c.orderId, c.price);
                    }
                    else if (c.gpus != Command.ABSENT_INT && c.gpus < o.openGpus)
                    {
                        out.reduce(t, user, c.orderId, o.openGpus - c.gpus);
                    }
                    else if (c.gpus != Command.ABSENT_INT && c.gpus > o.openGpus)
                    {
                        throw new IllegalStateException("LOBSTER flow: a REPLACE that grows an order");
                    }
                }
                case MASS_CANCEL ->
                {
                    final Account a = engine.account(c.accountId);
                    for (Order o = a.firstOpen; o != null; o = o.accountNext)
                    {
                        if (o.openGpus > 0)
                        {
                            out.cancel(t, user, o.clientOrderId);
                        }
                    }
                }
                case RELEASE, DEPOSIT, TICK, HEARTBEAT ->
                {
                }
                default -> throw new IllegalStateException("LOBSTER flow: unexpected " + c.type);
            }
            engine.apply(c);
        }
        final OrderFlow flow = out.build(LobsterWorkload.DAY_MS,
            "LOBSTER GOOG 2012-06-21 level 10 as in EngineBenchmark.lobster, " + skipped +
            " gpux-only cancels of fully leased asks left out");
        final long gpuxTrades = w.passEvents[EventType.TRADE.ordinal()];
        if (flow.trades != gpuxTrades)
        {
            throw new IllegalStateException("LOBSTER flow: the plain book trades " + flow.trades + " times a pass, gpux " +
                gpuxTrades);
        }
        return flow;
    }

    private static Order open(final MatchingEngine engine, final long account, final long orderId)
    {
        return engine.account(account).openOrders.get(orderId);
    }
}
