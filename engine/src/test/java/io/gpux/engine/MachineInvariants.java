package io.gpux.engine;

import io.gpux.engine.book.Order;
import io.gpux.engine.event.Event;
import io.gpux.engine.event.EventType;
import io.gpux.engine.lease.Lease;
import io.gpux.engine.machine.Machine;
import io.gpux.engine.machine.Reliability;
import io.gpux.engine.timer.Timer;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.gpux.engine.Invariants.require;

/**
 * The machines' rules: capacity (invariant 1 of rulebook section 12, and section 4: offered + held by
 * leases &lt;= GPUs, with {@code Machine.offered}/{@code leased} recomputed from the asks and leases, and
 * the machine's ask and lease lists), {@code MACHINE_ONLINE}/{@code MACHINE_OFFLINE} alternating,
 * reliability (sections 8, 13.29: recomputed from that history, at most 0.95 in the first 24 hours,
 * outages of the exchange left out as docs/market-rules.md section 14 says) and the heartbeat timeout,
 * 24-hour and day-boundary timers (8, 13.28, 13.30).
 */
final class MachineInvariants
{
    private final MatchingEngine engine;

    /** Exchange outages (L, T], as RESTART commands ended them (docs/market-rules.md section 14). */
    private final List<long[]> outages = new ArrayList<>();
    private long lastRestartSeen = Long.MIN_VALUE;
    private long lastCheckedTime = Long.MIN_VALUE;

    /** Per machine: times of its state changes, from MACHINE_ONLINE / MACHINE_OFFLINE (alternating). */
    private final Map<Long, List<long[]>> transitions = new HashMap<>();

    MachineInvariants(final MatchingEngine engine)
    {
        this.engine = engine;
    }

    /** Notes the state checked at {@code now}: a RESTART since the last check closes an outage. */
    void onCheck(final long now)
    {
        if (engine.restartedAtMs != lastRestartSeen)
        {
            // a RESTART: the outage runs from the command checked before it to its own time
            outages.add(new long[]{lastCheckedTime, engine.restartedAtMs});
            lastRestartSeen = engine.restartedAtMs;
        }
        lastCheckedTime = now;
    }

    void onMachine(final Event e)
    {
        final boolean online = e.type == EventType.MACHINE_ONLINE;
        final List<long[]> list = transitions.computeIfAbsent(e.machineId, k -> new ArrayList<>());
        final boolean wasOnline = !list.isEmpty() && list.get(list.size() - 1)[1] == 1;
        require(online != wasOnline, "machine " + e.machineId + ": " + e.type + " twice in a row");
        list.add(new long[]{e.timeMs, online ? 1 : 0});
    }

    /**
     * Sections 8 and 13.29, recomputed from the machine's MACHINE_ONLINE/OFFLINE history: online time over
     * online + offline time since the first heartbeat, within the current UTC day and the 89 before it, as
     * of the last recompute point (a state change, the 24-hour mark, a day boundary); at most 0.95 in the
     * first 24 hours; 1 with no history. Time offline inside an exchange outage counts neither way.
     *
     * @return {numerator, denominator}
     */
    private long[] expectedReliability(final Machine m, final long now)
    {
        final List<long[]> list = transitions.getOrDefault(m.id, List.of());
        final long day = Reliability.DAY_MS;
        long at = Long.MIN_VALUE;
        if (!list.isEmpty())
        {
            at = list.get(list.size() - 1)[0];
        }
        final long lastBoundary = Math.floorDiv(now, day) * day;
        if (lastBoundary > m.registeredAt)
        {
            at = Math.max(at, lastBoundary);
        }
        if (m.registeredAt + day <= now)
        {
            at = Math.max(at, m.registeredAt + day);
        }
        if (at == Long.MIN_VALUE)
        {
            return new long[]{19, 20};
        }
        final long windowStart = (Math.floorDiv(at, day) - 89) * day;
        long online = 0;
        long total = 0;
        for (int i = 0; i < list.size() && list.get(i)[0] < at; i++)
        {
            final long from = Math.max(list.get(i)[0], windowStart);
            final long to = i + 1 < list.size() ? Math.min(list.get(i + 1)[0], at) : at;
            if (to > from)
            {
                if (list.get(i)[1] == 1)
                {
                    online += to - from;
                    total += to - from;
                }
                else
                {
                    total += to - from - inOutages(from, to);
                }
            }
        }
        long num = total == 0 ? 1 : online;
        long den = total == 0 ? 1 : total;
        if (at - m.registeredAt < day && num * 20 > den * 19)
        {
            num = 19;
            den = 20;
        }
        return new long[]{num, den};
    }

    private long inOutages(final long from, final long to)
    {
        long overlap = 0;
        for (final long[] o : outages)
        {
            overlap += Math.max(0, Math.min(to, o[1]) - Math.max(from, o[0]));
        }
        return overlap;
    }

    void checkMachines(final long now)
    {
        int leasesOnMachines = 0;
        for (final Machine m : engine.machines.values())
        {
            int offered = 0;
            long prevSeq = Long.MIN_VALUE;
            Order prev = null;
            for (Order o = m.firstAsk; o != null; o = o.machineNext)
            {
                require(o.open && !o.bid && o.machine == m, m.name + ": ask list holds a closed order or a stranger");
                require(o.account.openOrders.get(o.clientOrderId) == o, m.name + ": ask " + o.clientOrderId +
                    " not reachable from its account");
                require(o.machinePrev == prev, m.name + ": broken ask list back link");
                require(o.acceptSeq > prevSeq, m.name + ": ask list out of acceptance order");
                prevSeq = o.acceptSeq;
                prev = o;
                offered += o.openGpus;
            }
            require(m.lastAsk == prev, m.name + ": lastAsk is not the end of its list");
            int held = 0;
            long prevId = 0;
            Lease prevLease = null;
            for (Lease l = m.firstLease; l != null; l = l.machineNext)
            {
                leasesOnMachines++;
                require(engine.leases.get(l.id) == l, m.name + ": lease L" + l.id + " on the machine is not live");
                require(l.machine == m, m.name + ": lease L" + l.id + " belongs to another machine");
                require(l.machinePrev == prevLease, m.name + ": broken lease list back link");
                require(l.id > prevId, m.name + ": lease list out of id order");
                prevId = l.id;
                prevLease = l;
                if (l.state == Lease.ACTIVE)
                {
                    held += l.gpus;
                }
                else
                {
                    // a pending lease holds only the GPUs it took free; a victim's GPUs are the victim's until it ends
                    for (int i = 0; i < l.sourceCount; i++)
                    {
                        if (l.sourceVictim[i] == null)
                        {
                            held += l.sourceGpus[i];
                        }
                    }
                }
            }
            require(m.lastLease == prevLease, m.name + ": lastLease is not the end of its list");
            require(m.offered == offered, m.name + ": offered " + m.offered + ", its open asks offer " + offered);
            require(m.leased == held, m.name + ": leased " + m.leased + ", its leases hold " + held);
            // invariant 1
            require(offered + held <= m.gpus, m.name + ": offered " + offered + " + leased " + held + " > " + m.gpus +
                " GPUs");
            require(m.spare() >= 0, m.name + ": negative spare");
            // reliability as last recomputed: a fraction in [0, 1], at most 0.95 in the first 24 hours
            require(m.relDen > 0 && m.relNum >= 0 && m.relNum <= m.relDen, m.name + ": reliability " + m.relNum + "/" +
                m.relDen);
            if (now - m.registeredAt < Reliability.DAY_MS)
            {
                require(BigInteger.valueOf(m.relNum).multiply(BigInteger.valueOf(20))
                    .compareTo(BigInteger.valueOf(m.relDen).multiply(BigInteger.valueOf(19))) <= 0,
                    m.name + ": younger than 24 hours but reliability " + m.relNum + "/" + m.relDen + " > 0.95");
            }
            final long[] rel = expectedReliability(m, now);
            require(BigInteger.valueOf(m.relNum).multiply(BigInteger.valueOf(rel[1]))
                .equals(BigInteger.valueOf(rel[0]).multiply(BigInteger.valueOf(m.relDen))), m.name + ": reliability " +
                m.relNum + "/" + m.relDen + ", its online/offline history gives " + rel[0] + "/" + rel[1]);
            // heartbeat timeout
            if (m.online && engine.heartbeatTimeoutMs > 0)
            {
                // silent since the last restart: the longer of one timeout and the restart window from it
                final long deadline = m.lastHeartbeat < engine.restartedAtMs ?
                    engine.restartedAtMs + Math.max(engine.heartbeatTimeoutMs, engine.restartWindowMs) :
                    m.lastHeartbeat + engine.heartbeatTimeoutMs;
                require(deadline > now, m.name + ": online at " + now + " but its last heartbeat was " + m.lastHeartbeat +
                    " (timeout " + engine.heartbeatTimeoutMs + ", last restart " + engine.restartedAtMs + ", restart window " +
                    engine.restartWindowMs + ")");
                require(m.timeoutTimer != null && m.timeoutTimer.scheduled() && m.timeoutTimer.target == m &&
                    m.timeoutTimer.kind == Timer.MACHINE_TIMEOUT, m.name + ": online without a timeout timer");
                require(m.timeoutTimer.dueMs == deadline, m.name + ": timeout timer due at " + m.timeoutTimer.dueMs +
                    ", its heartbeats and the last restart give " + deadline);
            }
            else
            {
                require(m.timeoutTimer == null, m.name + ": timeout timer while offline or with the timeout disabled");
            }
            require(m.dayTimer != null && m.dayTimer.scheduled(), m.name + ": no day-boundary timer");
            if (m.birthdayTimer != null)
            {
                require(m.birthdayTimer.scheduled() && m.birthdayTimer.dueMs == m.registeredAt + Reliability.DAY_MS,
                    m.name + ": stale 24-hour timer");
            }
            else
            {
                require(now >= m.registeredAt + Reliability.DAY_MS, m.name + ": 24-hour timer gone before 24 hours");
            }
        }
        require(leasesOnMachines == engine.leases.size(), leasesOnMachines + " leases on machines, " +
            engine.leases.size() + " live leases");
    }
}
