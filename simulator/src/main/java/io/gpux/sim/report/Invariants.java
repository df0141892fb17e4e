package io.gpux.sim.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The market's invariants as the agents' records show them: no machine ever has more GPUs in started
 * leases than it has; every account's events arrived numbered without a gap; every lease interrupted
 * by someone else than its renter, on a machine that had not broken, had a notice the market's full
 * grace period before its end (the strict notice check: a working machine taken offline because its
 * heartbeats came late fails it).
 */
public final class Invariants
{
    private Invariants()
    {
    }

    /** The most GPUs leased at once on any machine, minus its GPU count (0 or less: never oversubscribed). */
    public static int worstOversubscription(final List<AgentRecords> agents)
    {
        final Map<Long, MachineRecord> machines = new LinkedHashMap<>();
        final Map<Long, List<LeaseRecord>> byMachine = new LinkedHashMap<>();
        for (final AgentRecords a : agents)
        {
            for (final MachineRecord m : a.machines)
            {
                machines.put(m.machineId, m);
            }
            for (final LeaseRecord l : a.ownerLeases.values())
            {
                if (l.started())
                {
                    byMachine.computeIfAbsent(l.machineId, k -> new ArrayList<>()).add(l);
                }
            }
        }
        int worst = Integer.MIN_VALUE;
        for (final Map.Entry<Long, List<LeaseRecord>> e : byMachine.entrySet())
        {
            final MachineRecord m = machines.get(e.getKey());
            final List<long[]> points = new ArrayList<>();
            for (final LeaseRecord l : e.getValue())
            {
                points.add(new long[] {l.startMs, l.gpus});
                points.add(new long[] {l.endMs < 0 ? Long.MAX_VALUE : l.endMs, -l.gpus});
            }
            // ends before starts at the same instant: a hand-over is not an overlap
            points.sort((x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
            long current = 0;
            long max = 0;
            for (final long[] p : points)
            {
                current += p[1];
                max = Math.max(max, current);
            }
            worst = Math.max(worst, (int)max - (m == null ? 0 : m.gpus));
        }
        return worst == Integer.MIN_VALUE ? 0 : worst;
    }

    /** Checks from the records; the harness adds money and exchange-side checks. */
    public static Map<String, Object> fromRecords(final List<AgentRecords> agents, final Analysis a)
    {
        final Map<String, Object> c = Json.object();
        final int over = worstOversubscription(agents);
        c.put("gpusNeverOversubscribed", over <= 0);
        c.put("worstMachineLoadMinusGpus", over);
        c.put("accountEventsGapFree", a.seqBreaks == 0);
        c.put("everyInterruptionOfAWorkingMachineNoticedWithFullGrace", a.noticeCheckFailures == 0);
        c.put("noticeCheckFailures", a.noticeCheckFailures);
        return c;
    }

    /** True if every boolean check is true. */
    public static boolean allHold(final Map<String, Object> checks)
    {
        for (final Object v : checks.values())
        {
            if (Boolean.FALSE.equals(v))
            {
                return false;
            }
        }
        return true;
    }
}
