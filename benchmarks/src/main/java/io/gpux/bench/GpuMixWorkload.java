package io.gpux.bench;

import io.gpux.engine.book.Order;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.command.Roles;
import io.gpux.engine.command.TimeInForce;
import io.gpux.engine.event.EndReason;
import io.gpux.engine.event.Event;
import io.gpux.engine.event.EventType;
import io.gpux.engine.lease.Lease;
import io.gpux.engine.event.RejectReason;
import io.gpux.engine.machine.Machine;
import io.gpux.engine.timer.Timer;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * A GPU spot market at work: 4 markets (preemption on, different grace periods, prepay periods and fees),
 * 16 owners with 128 machines of 8 GPUs (2 regions) heartbeating every 5 s (timeout 15 s), 256 renters.
 * Every 10-minute pass: each machine offers its GPUs (one ask of 8, or two of 4 at different prices);
 * renters bid ~25 times a second (1-8 GPUs, 40 % of multi-GPU bids gang, 30 % with maxDurationMs,
 * some with region or minReliability, 80 % GTC / 15 % IOC / 5 % FOK, 10 % urgent bids 20-80 % above the
 * market that preempt running leases: notices, grace, hand-over); resting bids are cancelled or chased
 * (REPLACE to a higher price) after a while; leases are released after ~40 s unless they expire or are
 * preempted first; owners reprice asks and now and then reclaim one (CANCEL reclaim=true) and offer the
 * GPUs again later; a TICK every 250 ms. The demand exceeds the 1,024 GPUs, so preemption is constant.
 * A pass ends with MASS_CANCELs, RELEASEs of every lease (running or waiting) and top-up deposits.
 */
final class GpuMixWorkload
{
    static final long DAY_MS = 86_400_000L;
    static final int MARKETS = 4;
    static final String[] MARKET_NAMES = {"H100-SXM-80G", "A100-80G", "RTX4090-24G", "MI300X-192G"};
    static final long[] GRACE_MS = {30_000, 10_000, 0, 5_000};
    static final long[] PREPAY_MS = {300_000, 600_000, 120_000, 3_600_000};
    static final long[] FEE_BPS = {250, 250, 100, 300};
    static final long[] REF_PRICE = {25_000, 15_000, 4_000, 30_000};
    static final int OWNERS = 16;
    static final int MACHINES = 128;
    static final int GPUS_PER_MACHINE = 8;
    static final int RENTERS = 256;
    static final long RENTER_BASE = 100;
    static final long BALANCE = 10_000_000_000_000L;
    static final long PASS_MS = 600_000;
    static final long HEARTBEAT_MS = 5_000;
    static final long TICK_MS = 250;
    static final long T0 = DAY_MS + 10_000;
    static final long REGION_EU = 1;
    static final long REGION_US = 2;

    private static Workload cached;

    static synchronized Workload get()
    {
        if (cached == null)
        {
            cached = new GpuMixWorkload().generate();
        }
        return cached;
    }

    /** A planned action: at time, kind, two arguments. */
    private record Plan(long time, long seq, int kind, long a, long b)
    {
    }

    private static final int RELEASE = 1;
    private static final int BID_TIMEOUT = 2;
    private static final int REOFFER = 3;

    private final WorkloadBuilder b = new WorkloadBuilder();
    private final SplittableRandom rnd = new SplittableRandom(42_4242L);
    private final PriorityQueue<Plan> plans = new PriorityQueue<>(
        (x, y) -> x.time != y.time ? Long.compare(x.time, y.time) : Long.compare(x.seq, y.seq));
    private long planSeq;
    private long nextOrderId = 1;
    /** Open asks per machine (client ids); index = machine id. */
    private final List<List<Long>> machineAsks = new ArrayList<>();
    private final EnumMap<EndReason, Integer> endReasons = new EnumMap<>(EndReason.class);
    private int handOvers;
    private int rejects;
    private long now;

    private void onEvent(final Event e)
    {
        if (e.type == EventType.LEASE_STARTED)
        {
            // a renter uses its lease for a while: mean ~40 s
            final long life = 5_000 + (long)(-Math.log(1 - rnd.nextDouble()) * 35_000);
            plan(e.timeMs + life, RELEASE, e.leaseId, e.renterId);
        }
        else if (e.type == EventType.LEASE_ENDED)
        {
            endReasons.merge(e.endReason, 1, Integer::sum);
        }
        else if (e.type == EventType.REJECTED)
        {
            // a client racing a timer that fires first at the same millisecond (its order filled, its lease ended)
            if (e.rejectReason != RejectReason.UNKNOWN_ORDER && e.rejectReason != RejectReason.UNKNOWN_LEASE)
            {
                throw new IllegalStateException("GPU mix: unexpected reject " + e.rejectReason + " of " + e.command);
            }
            rejects++;
        }
    }

    private void plan(final long time, final int kind, final long a, final long bArg)
    {
        plans.add(new Plan(time, planSeq++, kind, a, bArg));
    }

    static long owner(final long machine)
    {
        return 1 + (machine - 1) / (MACHINES / OWNERS);
    }

    static long market(final long machine)
    {
        return 1 + (machine - 1) % MARKETS;
    }

    private Workload generate()
    {
        b.listener(this::onEvent);
        b.heartbeatTimeout(0, 0);
        for (int m = 0; m < MARKETS; m++)
        {
            b.market(0, m + 1, MARKET_NAMES[m], true, GRACE_MS[m], FEE_BPS[m], PREPAY_MS[m], Command.ABSENT);
        }
        for (long o = 1; o <= OWNERS; o++)
        {
            b.account(0, o, "OWNER" + o, Roles.OWNER);
        }
        for (long r = 0; r < RENTERS; r++)
        {
            b.account(0, RENTER_BASE + r, "RENTER" + r, Roles.RENTER);
            b.deposit(0, RENTER_BASE + r, BALANCE);
        }
        machineAsks.add(null);
        for (long m = 1; m <= MACHINES; m++)
        {
            b.machine(0, m, "RIG" + m, owner(m), market(m), GPUS_PER_MACHINE, (m - 1) / MARKETS % 2 == 0 ? REGION_EU : REGION_US);
            b.heartbeat(0, m);
            machineAsks.add(new ArrayList<>());
        }
        // a day later (machines past their first 24 hours, reliability 1): heartbeats on, timeout 15 s
        for (long m = 1; m <= MACHINES; m++)
        {
            b.heartbeat(DAY_MS + 1, m);
        }
        b.heartbeatTimeout(DAY_MS + 1, 15_000);

        b.beginPass();
        for (long m = 1; m <= MACHINES; m++)
        {
            offer(T0, m);
        }
        final long end = T0 + PASS_MS - 1;
        for (now = T0; now < end; now++)
        {
            final long phase = (now - T0) % HEARTBEAT_MS;
            for (long m = 1; m <= MACHINES; m++)
            {
                if ((m * 39) % HEARTBEAT_MS == phase)
                {
                    b.heartbeat(now, m);
                }
            }
            while (!plans.isEmpty() && plans.peek().time <= now)
            {
                execute(plans.poll());
            }
            if (rnd.nextInt(1000) < 25)
            {
                bid();
            }
            final int r = rnd.nextInt(100_000);
            if (r < 200)
            {
                reprice();
            }
            else if (r < 210)
            {
                reclaim();
            }
            if ((now - T0) % TICK_MS == 0)
            {
                b.tick(now);
            }
        }
        // close the pass: no orders, no leases, balances restored
        for (long a = 1; a <= OWNERS; a++)
        {
            massCancel(end, a);
        }
        for (long r = 0; r < RENTERS; r++)
        {
            massCancel(end, RENTER_BASE + r);
        }
        while (true)
        {
            long first = Long.MAX_VALUE;
            for (final Lease l : b.engine.leases())
            {
                first = Math.min(first, l.id);
            }
            if (first == Long.MAX_VALUE)
            {
                break;
            }
            b.release(end, b.engine.lease(first).renter.id, first);
        }
        for (long r = 0; r < RENTERS; r++)
        {
            b.topUp(end, RENTER_BASE + r, BALANCE);
        }
        plans.clear();
        final String notes = String.format("%d leases started, %d notices, lease ends by reason %s, %d releases during a notice (hand-over), %d rejects (UNKNOWN_ORDER/UNKNOWN_LEASE: a client racing a timer)",
            b.passEvents(EventType.LEASE_STARTED), b.passEvents(EventType.PREEMPT_NOTICE), endReasons, handOvers, rejects);
        return b.build("gpuMix", PASS_MS, notes);
    }

    private void massCancel(final long t, final long account)
    {
        if (b.engine.account(account).firstOpen != null)
        {
            b.massCancel(t, account);
        }
    }

    /** A machine offers its spare GPUs: one ask, or two halves at different prices. */
    private void offer(final long t, final long m)
    {
        final Machine machine = b.engine.machine(m);
        final int spare = machine.spare();
        if (spare == 0)
        {
            plan(t + 10_000, REOFFER, m, 0);
            return;
        }
        final long ref = REF_PRICE[(int)market(m) - 1];
        if (spare >= 4 && rnd.nextInt(4) == 0)
        {
            ask(t, m, spare / 2, ref * (80 + rnd.nextInt(15)) / 100);
            ask(t, m, spare - spare / 2, ref * (90 + rnd.nextInt(15)) / 100);
        }
        else
        {
            ask(t, m, spare, ref * (80 + rnd.nextInt(25)) / 100);
        }
    }

    private void ask(final long t, final long m, final int gpus, final long price)
    {
        final Command c = b.command(CommandType.ASK, t);
        c.accountId = owner(m);
        c.machineId = m;
        c.orderId = nextOrderId++;
        c.gpus = gpus;
        c.price = price;
        b.apply(c);
        machineAsks.get((int)m).add(c.orderId);
    }

    private void bid()
    {
        final int market = rnd.nextInt(MARKETS);
        final long renter = RENTER_BASE + rnd.nextInt(RENTERS);
        final int[] sizes = {1, 1, 1, 2, 2, 4, 4, 8};
        final int gpus = sizes[rnd.nextInt(sizes.length)];
        final long ref = REF_PRICE[market];
        final boolean urgent = rnd.nextInt(10) == 0;
        final long price = urgent ? ref * (120 + rnd.nextInt(60)) / 100 : ref * (60 + rnd.nextInt(50)) / 100;
        final Command c = b.command(CommandType.BID, now);
        c.accountId = renter;
        c.marketId = market + 1;
        c.hasMarket = true;
        c.orderId = nextOrderId++;
        c.gpus = gpus;
        c.price = price;
        c.gang = gpus > 1 && rnd.nextInt(10) < 4;
        final int tif = rnd.nextInt(20);
        c.tif = tif < 16 ? TimeInForce.GTC : tif < 19 ? TimeInForce.IOC : TimeInForce.FOK;
        if (rnd.nextInt(10) < 3)
        {
            c.maxDurationMs = 30_000 + rnd.nextInt(270_000);
        }
        if (rnd.nextInt(10) == 0)
        {
            c.regionId = rnd.nextBoolean() ? REGION_EU : REGION_US;
        }
        if (rnd.nextInt(10) == 0)
        {
            c.minReliabilityPpb = 900_000_000L;
        }
        b.apply(c);
        if (b.engine.account(renter).openOrders.get(c.orderId) != null)
        {
            plan(now + 3_000 + rnd.nextInt(57_000), BID_TIMEOUT, renter, c.orderId);
        }
    }

    private void execute(final Plan p)
    {
        switch (p.kind)
        {
            case RELEASE ->
            {
                final Lease lease = b.engine.lease(p.a);
                if (lease != null && lease.renter.id == p.b && !endsBy(lease.noticeTimer) && !endsBy(lease.expiryTimer))
                {
                    if (lease.notice != null && lease.successor != null)
                    {
                        handOvers++;
                    }
                    b.release(now, p.b, p.a);
                }
            }
            case BID_TIMEOUT ->
            {
                final Order bid = b.engine.account(p.a).openOrders.get(p.b);
                if (bid == null)
                {
                    return;
                }
                if (rnd.nextInt(5) == 0)
                {
                    // chase: raise the price by 10-30 %, then give up later
                    final Command c = b.command(CommandType.REPLACE, now);
                    c.accountId = p.a;
                    c.orderId = p.b;
                    c.price = bid.price * (110 + rnd.nextInt(20)) / 100;
                    b.apply(c);
                    if (b.engine.account(p.a).openOrders.get(p.b) != null)
                    {
                        plan(now + 3_000 + rnd.nextInt(17_000), BID_TIMEOUT, p.a, p.b);
                    }
                }
                else
                {
                    b.cancel(now, p.a, p.b);
                }
            }
            case REOFFER -> offer(now, p.a);
            default -> throw new IllegalStateException();
        }
    }

    /** Whether a lease timer fires before a command at now is applied. */
    private boolean endsBy(final Timer timer)
    {
        return timer != null && timer.dueMs <= now;
    }

    private long randomAsk(final long m)
    {
        final List<Long> asks = machineAsks.get((int)m);
        asks.removeIf(id -> b.engine.account(owner(m)).openOrders.get(id) == null);
        return asks.isEmpty() ? -1 : asks.get(rnd.nextInt(asks.size()));
    }

    private void reprice()
    {
        final long m = 1 + rnd.nextInt(MACHINES);
        final long id = randomAsk(m);
        if (id < 0)
        {
            return;
        }
        final Command c = b.command(CommandType.REPLACE, now);
        c.accountId = owner(m);
        c.orderId = id;
        c.price = REF_PRICE[(int)market(m) - 1] * (75 + rnd.nextInt(30)) / 100;
        b.apply(c);
    }

    private void reclaim()
    {
        final long m = 1 + rnd.nextInt(MACHINES);
        final long id = randomAsk(m);
        if (id < 0)
        {
            return;
        }
        final Command c = b.command(CommandType.CANCEL, now);
        c.accountId = owner(m);
        c.orderId = id;
        c.reclaim = true;
        b.apply(c);
        plan(now + 30_000 + GRACE_MS[(int)market(m) - 1], REOFFER, m, 0);
    }
}
