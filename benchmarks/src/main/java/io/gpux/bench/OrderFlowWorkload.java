package io.gpux.bench;

import io.gpux.bench.flow.OrderFlow;
import io.gpux.engine.book.Order;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.command.Roles;
import io.gpux.engine.command.TimeInForce;
import io.gpux.engine.event.Event;
import io.gpux.engine.event.EventType;
import io.gpux.common.Money;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.collections.LongArrayList;

/**
 * An {@link OrderFlow} as gpux commands, for gpux's engine to do what a plain book does with it. Each flow
 * user is a MARKET_MAKER account with one machine of 10^9 GPUs (so it can both bid and ask) and an equal share
 * of half the money the engine allows; one market without preemption or fees, orders of up to 10^6 GPUs. Each flow command is exactly one gpux command (PLACE:
 * ASK or BID, CANCEL: CANCEL, MOVE: REPLACE price, REDUCE: REPLACE gpus, or CANCEL if nothing is left), and
 * after it come the commands that only gpux needs, its handicap in the comparison:
 * <ul>
 * <li>a CANCEL of each ask the command leased out completely (in gpux a fully leased GTC ask stays open, its
 *     GPUs come back when the leases end: rulebook 13.9; in a plain book a filled order is gone);</li>
 * <li>a RELEASE of each lease whose ask is closed (so no GPUs ever go back to the book);</li>
 * <li>at the end of the pass, DEPOSITs that bring every account's balance back.</li>
 * </ul>
 * Building it replays the flow on a reference engine and checks that gpux trades exactly as the flow's
 * reference book does (count and quantity), then {@link Workload#verify()} checks that passes repeat exactly.
 */
final class OrderFlowWorkload
{
    static final long MARKET = 1;
    /** The most GPUs an order may have (the engine's limit, Admin.MAX_GPUS_PER_ORDER). */
    static final int MAX_GPUS_PER_ORDER = 1_000_000;
    static final int MACHINE_GPUS = 1_000_000_000;
    /** All the money of the exchange (the engine's limit, Money.MAX_TOTAL_MONEY), shared by the accounts. */
    static final long TOTAL_MONEY = Money.MAX_TOTAL_MONEY / 2;

    final OrderFlow flow;
    final Workload workload;
    /** messageEnd[i]: position in the gpux pass just after flow command i and the commands that follow it. */
    final int[] messageEnd;

    private final WorkloadBuilder b = new WorkloadBuilder();
    /** Open asks: flow order id -> owner account (flow order ids are unique across users). */
    private final Long2LongHashMap askOwner = new Long2LongHashMap(0);
    /** Lease id -> the ask it came from; ask id -> its live leases. */
    private final Long2LongHashMap leaseAsk = new Long2LongHashMap(-1);
    private final Long2ObjectHashMap<LongArrayList> leasesByAsk = new Long2ObjectHashMap<>();
    /** Live leases: id -> renter. */
    private final Long2LongHashMap live = new Long2LongHashMap(-1);
    /** Asks filled by the command being applied. */
    private final LongArrayList touchedAsks = new LongArrayList();
    private long trades;
    private long volume;
    private long cancelsOfLeasedAsks;
    private long releases;

    private OrderFlowWorkload(final OrderFlow flow)
    {
        this.flow = flow;
        this.messageEnd = new int[flow.size()];
        this.workload = generate();
    }

    static OrderFlowWorkload of(final OrderFlow flow)
    {
        return new OrderFlowWorkload(flow);
    }

    /** gpux commands per flow command, e.g. 1.07. */
    double commandsPerMessage()
    {
        return (double)workload.pass.length / flow.size();
    }

    /** gpux commands to apply for {@code messages} flow commands from flow position {@code from}. */
    int commandsFor(final int from, final int messages)
    {
        final int n = messageEnd.length;
        int pos = from;
        int left = messages;
        int commands = 0;
        while (left > 0)
        {
            final int take = Math.min(left, n - pos);
            commands += messageEnd[pos + take - 1] - (pos == 0 ? 0 : messageEnd[pos - 1]);
            pos = (pos + take) % n;
            left -= take;
        }
        return commands;
    }

    private void onEvent(final Event e)
    {
        if (e.type == EventType.FILL)
        {
            if (askOwner.get(e.orderId) == e.accountId)
            {
                leaseAsk.put(e.leaseId, e.orderId);
                touchedAsks.addLong(e.orderId);
            }
        }
        else if (e.type == EventType.TRADE)
        {
            trades++;
            volume += e.gpus;
        }
        else if (e.type == EventType.LEASE_STARTED)
        {
            live.put(e.leaseId, e.renterId);
            final long ask = leaseAsk.remove(e.leaseId);
            leasesByAsk.computeIfAbsent(ask, k -> new LongArrayList()).addLong(e.leaseId);
        }
        else if (e.type == EventType.LEASE_ENDED)
        {
            live.remove(e.leaseId);
        }
        else if (e.type == EventType.REJECTED)
        {
            throw new IllegalStateException(flow.name + ": gpux rejected " + e.command + " (" + e.rejectReason + ")");
        }
    }

    private Workload generate()
    {
        b.listener(this::onEvent);
        b.heartbeatTimeout(0, 0);
        b.market(0, MARKET, "FLOW", false, Command.ABSENT, 0, Command.ABSENT, MAX_GPUS_PER_ORDER);
        final long balance = TOTAL_MONEY / flow.users;
        for (long u = 1; u <= flow.users; u++)
        {
            b.account(0, u, "U" + u, Roles.MARKET_MAKER);
            b.deposit(0, u, balance);
            b.machine(0, u, "RIG" + u, u, MARKET, MACHINE_GPUS, Command.NONE);
            b.heartbeat(0, u);
        }
        b.beginPass();
        for (int i = 0; i < flow.size(); i++)
        {
            apply(i);
            messageEnd[i] = b.passSize();
        }
        final long end = flow.timeMs[flow.size() - 1];
        for (final LongArrayList leases : leasesByAsk.values())
        {
            for (int k = 0; k < leases.size(); k++)
            {
                release(end, leases.getLong(k));
            }
        }
        leasesByAsk.clear();
        if (!live.isEmpty())
        {
            throw new IllegalStateException(flow.name + ": leases left at the end of the pass: " + live.size());
        }
        for (long u = 1; u <= flow.users; u++)
        {
            if (b.engine.account(u).firstOpen != null)
            {
                throw new IllegalStateException(flow.name + ": orders left open at the end of the pass, account " + u);
            }
            b.topUp(end, u, balance);
        }
        messageEnd[flow.size() - 1] = b.passSize();
        if (trades != flow.trades || volume != flow.volume)
        {
            throw new IllegalStateException(String.format("%s: gpux traded %d times (%d GPUs), the reference book %d (%d)",
                flow.name, trades, volume, flow.trades, flow.volume));
        }
        final String notes = String.format("%,d flow commands -> %,d gpux commands (%.3f each): %,d CANCELs of fully " +
            "leased asks, %,d RELEASEs, %,d end-of-pass DEPOSITs", flow.size(), b.passSize(), (double)b.passSize() / flow.size(),
            cancelsOfLeasedAsks, releases, b.passSize() - flow.size() - cancelsOfLeasedAsks - releases);
        return b.build("flow-" + flow.name, flow.passShiftMs, notes);
    }

    private void apply(final int i)
    {
        final byte type = flow.type[i];
        final long t = flow.timeMs[i];
        final long account = flow.uid[i];
        final long id = flow.orderId[i];
        touchedAsks.clear();
        if (OrderFlow.isPlace(type))
        {
            final boolean bid = OrderFlow.isBid(type);
            final Command c = b.command(bid ? CommandType.BID : CommandType.ASK, t);
            c.accountId = account;
            c.orderId = id;
            c.price = flow.price[i];
            c.gpus = flow.size[i];
            c.tif = OrderFlow.isIoc(type) ? TimeInForce.IOC : TimeInForce.GTC;
            if (bid)
            {
                c.marketId = MARKET;
                c.hasMarket = true;
            }
            else
            {
                c.machineId = account;
                askOwner.put(id, account);
                touchedAsks.addLong(id);
            }
            b.apply(c);
        }
        else
        {
            final Order o = b.engine.account(account).openOrders.get(id);
            if (o == null || o.openGpus == 0)
            {
                throw new IllegalStateException(flow.name + ": command " + i + " names order " + id + ", not resting in gpux");
            }
            if (!o.bid)
            {
                touchedAsks.addLong(id);
            }
            final Command c;
            if (type == OrderFlow.CANCEL || type == OrderFlow.REDUCE && flow.size[i] >= o.openGpus)
            {
                c = b.command(CommandType.CANCEL, t);
            }
            else if (type == OrderFlow.MOVE)
            {
                c = b.command(CommandType.REPLACE, t);
                c.price = flow.price[i];
            }
            else
            {
                c = b.command(CommandType.REPLACE, t);
                c.gpus = o.openGpus - flow.size[i];
            }
            c.accountId = account;
            c.orderId = id;
            b.apply(c);
        }
        for (int k = 0; k < touchedAsks.size(); k++)
        {
            closeIfDone(t, touchedAsks.getLong(k));
        }
    }

    /** An ask leased out completely is cancelled; a closed ask's leases are released. */
    private void closeIfDone(final long t, final long askId)
    {
        final long owner = askOwner.get(askId);
        Order ask = owner == 0 ? null : b.engine.account(owner).openOrders.get(askId);
        if (ask != null && ask.openGpus == 0)
        {
            b.cancel(t, owner, askId);
            cancelsOfLeasedAsks++;
            ask = null;
        }
        if (ask == null)
        {
            askOwner.remove(askId);
            final LongArrayList leases = leasesByAsk.remove(askId);
            if (leases != null)
            {
                for (int k = 0; k < leases.size(); k++)
                {
                    release(t, leases.getLong(k));
                }
            }
        }
    }

    private void release(final long t, final long lease)
    {
        final long renter = live.get(lease);
        if (renter != -1)
        {
            b.release(t, renter, lease);
            releases++;
        }
    }
}
