package io.gpux.gateway.metrics;

import io.gpux.core.counters.CounterDescriptor;
import io.gpux.core.counters.CounterValue;

import java.util.List;

/** Figures worked out from two counters when they are read (by {@code gpux stat} and the metrics endpoint). */
public final class Figures
{
    private Figures()
    {
    }

    /** How long ago the last snapshot was written, in ms; -1 when none was written since start. */
    public static long snapshotAgeMs(final List<CounterValue> values, final long nowMs)
    {
        final long at = CounterValue.find(values, CounterDescriptor.SNAPSHOT_TIME_MS);
        return at <= 0 ? -1 : Math.max(0, nowMs - at);
    }

    /** Events the engine has emitted that the egress has not yet routed to their sessions; -1 when not known. */
    public static long egressBacklog(final List<CounterValue> values)
    {
        final long emitted = CounterValue.find(values, CounterDescriptor.EVENT_SEQUENCE);
        final long routed = CounterValue.find(values, CounterDescriptor.EGRESS_EVENT_SEQUENCE);
        return emitted < 0 || routed < 0 ? -1 : Math.max(0, emitted - routed);
    }
}
