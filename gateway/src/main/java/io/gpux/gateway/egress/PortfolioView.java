package io.gpux.gateway.egress;

import io.gpux.engine.book.Order;
import io.gpux.engine.funds.Account;
import io.gpux.common.Money;
import io.gpux.engine.lease.Lease;
import io.gpux.engine.machine.Machine;
import io.gpux.gateway.directory.Directory;
import io.gpux.gateway.directory.MachineTelemetry;
import io.gpux.proto.v1.LeaseInfo;
import io.gpux.proto.v1.LeaseState;
import io.gpux.proto.v1.MachineInfo;
import io.gpux.proto.v1.OpenOrder;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.Side;

import java.lang.invoke.MethodHandles;
import java.util.Map;

/**
 * One account's portfolio in two steps: {@link #copy} runs on the core thread and copies the account's
 * orders, leases and machines into plain arrays, walking only the account's own lists (so it costs what
 * the account has, not what the exchange has); {@link #encode} runs later on the egress thread and builds
 * the protobuf, adding the machines' directory names and their last reported telemetry. A lease's end,
 * its cost and fee so far and what its hold has paid for are worked out on the core at the engine's time.
 */
public final class PortfolioView
{
    private final Directory directory;
    private final Map<Long, MachineTelemetry> telemetry;

    private long timeMs;
    private long balance;
    private long available;

    private int orderCount;
    private long[] orderId;
    private String[] orderMarket;
    private boolean[] orderBid;
    private long[] orderPrice;
    private int[] orderGpus;
    private long[] orderMachine;

    private int leaseCount;
    private long[] leaseId;
    private String[] leaseMarket;
    private long[] leaseMachine;
    private int[] leaseGpus;
    private long[] leasePrice;
    private LeaseState[] leaseState;
    private long[] leaseStart;
    private long[] leaseNoticeEffective;
    private boolean[] leaseRenter;
    private long[] leaseEnds;
    private boolean[] leaseActive;
    private long[] leaseCost;
    private long[] leaseFee;
    private long[] leasePrepaidUntil;

    private int machineCount;
    private long[] machineId;
    private String[] machineName;
    private String[] machineMarket;
    private int[] machineGpus;
    private boolean[] machineOnline;
    private long[] machineReliabilityPpm;

    /**
     * Loads and initializes the classes a copy and its answer use, so that the core thread's first portfolio query
     * loads none (loading them cost that query a millisecond or two of the core thread): called as the exchange
     * starts.
     */
    public static void load()
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            lookup.ensureInitialized(LeaseState.class);
            lookup.ensureInitialized(Egress.PortfolioAnswer.class);
            lookup.ensureInitialized(PortfolioEncoder.Pending.class);
        }
        catch (final IllegalAccessException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private PortfolioView(final long timeMs, final Directory directory, final Map<Long, MachineTelemetry> telemetry)
    {
        this.timeMs = timeMs;
        this.directory = directory;
        this.telemetry = telemetry;
    }

    /**
     * Core thread: copies what the account has (nothing when it is null: an account that does not exist
     * owns nothing). Its leases as renter come first, then those of its machines that it does not rent
     * itself, each group in lease id order; machines in id order. {@code now} is the engine's time, at
     * which the leases' costs so far are worked out.
     */
    public static PortfolioView copy(final Account account, final long now, final Directory directory,
        final Map<Long, MachineTelemetry> telemetry)
    {
        final PortfolioView v = new PortfolioView(now, directory, telemetry);
        if (account == null)
        {
            v.allocate(0, 0, 0);
            return v;
        }
        v.balance = account.balance;
        v.available = account.available();
        v.allocate(account.openOrderCount(), account.rentedLeaseCount() + account.ownedLeaseCount(), account.machineCount());
        for (Order o = account.firstOpen; o != null; o = o.accountNext)
        {
            v.addOrder(o);
        }
        for (Lease l = account.firstRented; l != null; l = l.renterNext)
        {
            v.addLease(l, true);
        }
        for (Lease l = account.firstOwned; l != null; l = l.ownerNext)
        {
            if (l.renter != account)
            {
                v.addLease(l, false);
            }
        }
        for (Machine m = account.firstMachine; m != null; m = m.ownerNext)
        {
            v.addMachine(m);
        }
        return v;
    }

    private void allocate(final int orders, final int leases, final int machines)
    {
        orderId = new long[orders];
        orderMarket = new String[orders];
        orderBid = new boolean[orders];
        orderPrice = new long[orders];
        orderGpus = new int[orders];
        orderMachine = new long[orders];
        leaseId = new long[leases];
        leaseMarket = new String[leases];
        leaseMachine = new long[leases];
        leaseGpus = new int[leases];
        leasePrice = new long[leases];
        leaseState = new LeaseState[leases];
        leaseStart = new long[leases];
        leaseNoticeEffective = new long[leases];
        leaseRenter = new boolean[leases];
        leaseEnds = new long[leases];
        leaseActive = new boolean[leases];
        leaseCost = new long[leases];
        leaseFee = new long[leases];
        leasePrepaidUntil = new long[leases];
        machineId = new long[machines];
        machineName = new String[machines];
        machineMarket = new String[machines];
        machineGpus = new int[machines];
        machineOnline = new boolean[machines];
        machineReliabilityPpm = new long[machines];
    }

    private void addOrder(final Order o)
    {
        final int i = orderCount++;
        orderId[i] = o.clientOrderId;
        orderMarket[i] = o.market.name;
        orderBid[i] = o.bid;
        orderPrice[i] = o.price;
        orderGpus[i] = o.openGpus;
        orderMachine[i] = o.machine == null ? 0 : o.machine.id;
    }

    private void addLease(final Lease l, final boolean renter)
    {
        final int i = leaseCount++;
        leaseId[i] = l.id;
        leaseMarket[i] = l.market.name;
        leaseMachine[i] = l.machine.id;
        leaseGpus[i] = l.gpus;
        leasePrice[i] = l.price;
        leaseState[i] = l.state == Lease.PENDING ? LeaseState.PENDING :
            l.notice != null ? LeaseState.PREEMPTING : LeaseState.ACTIVE;
        leaseStart[i] = l.startMs;
        leaseNoticeEffective[i] = l.notice != null ? l.effectiveMs : 0;
        leaseRenter[i] = renter;
        leaseEnds[i] = l.notice != null ? l.effectiveMs : l.maxDurationMs > 0 ? l.startMs + l.maxDurationMs : 0;
        leaseActive[i] = l.state == Lease.ACTIVE;
        if (leaseActive[i])
        {
            long elapsed = Math.max(l.settledMs, timeMs - l.startMs);
            long paid = l.settledMs + l.market.prepayMs;
            if (l.maxDurationMs > 0)
            {
                elapsed = Math.min(elapsed, Math.max(l.settledMs, l.maxDurationMs));
                paid = Math.min(paid, l.maxDurationMs);
            }
            final long unsettled = Money.costBetween(l.gpus, l.price, l.settledMs, elapsed);
            leaseCost[i] = l.totalCost + unsettled;
            leaseFee[i] = l.totalFee + Money.fee(unsettled, l.market.feeBps);
            leasePrepaidUntil[i] = l.startMs + paid;
        }
    }

    private void addMachine(final Machine m)
    {
        final int i = machineCount++;
        machineId[i] = m.id;
        machineName[i] = m.name;
        machineMarket[i] = m.market.name;
        machineGpus[i] = m.gpus;
        machineOnline[i] = m.online;
        machineReliabilityPpm[i] = m.relDen == 0 ? 0 : m.relNum * 1_000_000 / m.relDen;
    }

    public int orderCount()
    {
        return orderCount;
    }

    public int leaseCount()
    {
        return leaseCount;
    }

    public int machineCount()
    {
        return machineCount;
    }

    /** Egress thread: the protobuf answer, without its last event number (set by the caller). */
    public Portfolio.Builder encode()
    {
        final Portfolio.Builder p = Portfolio.newBuilder().setTimeMs(timeMs).setBalance(balance).setAvailable(available);
        for (int i = 0; i < orderCount; i++)
        {
            p.addOrders(OpenOrder.newBuilder().setOrderId(orderId[i]).setMarket(orderMarket[i])
                .setSide(orderBid[i] ? Side.BID : Side.ASK).setPrice(orderPrice[i]).setOpenGpus(orderGpus[i])
                .setMachineId(orderMachine[i]));
        }
        for (int i = 0; i < leaseCount; i++)
        {
            final LeaseInfo.Builder l = LeaseInfo.newBuilder().setLeaseId(leaseId[i]).setMarket(leaseMarket[i])
                .setMachineId(leaseMachine[i]).setGpus(leaseGpus[i]).setPrice(leasePrice[i]).setState(leaseState[i])
                .setStartMs(leaseStart[i]).setNoticeEffectiveMs(leaseNoticeEffective[i]).setRenter(leaseRenter[i])
                .setEndsMs(leaseEnds[i]);
            if (leaseActive[i])
            {
                l.setCost(leaseCost[i]).setFee(leaseFee[i]).setPrepaidUntilMs(leasePrepaidUntil[i]);
            }
            p.addLeases(l);
        }
        for (int i = 0; i < machineCount; i++)
        {
            final Directory.MachineEntry entry = directory.machine(machineId[i]);
            final MachineInfo.Builder m = MachineInfo.newBuilder().setMachineId(machineId[i])
                .setName(entry == null ? machineName[i] : entry.name()).setMarket(machineMarket[i])
                .setGpus(machineGpus[i]).setOnline(machineOnline[i]).setReliabilityPpm(machineReliabilityPpm[i]);
            final MachineTelemetry t = telemetry.get(machineId[i]);
            if (t != null)
            {
                m.addAllTelemetry(t.gpus()).setTelemetryMs(t.receivedMs());
            }
            p.addMachines(m);
        }
        return p;
    }
}
