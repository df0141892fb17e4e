package io.gpux.sim.agent;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The physical state of the fleet, shared by the agents of a run: which machines are broken, and
 * since when. A renter's job does no work on a broken machine, whether or not the exchange has noticed
 * yet (it notices only when the machine's heartbeat timeout fires). Thread-safe: in a demo, owners and
 * renters run on different threads.
 */
public final class Fleet
{
    private final ConcurrentHashMap<Long, Long> brokenSince = new ConcurrentHashMap<>();

    void broke(final long machineId, final long atMs)
    {
        brokenSince.put(machineId, atMs);
    }

    void repaired(final long machineId)
    {
        brokenSince.remove(machineId);
    }

    /** When the machine broke, or -1 if it is working. */
    public long brokenSince(final long machineId)
    {
        final Long since = brokenSince.get(machineId);
        return since == null ? -1 : since;
    }
}
