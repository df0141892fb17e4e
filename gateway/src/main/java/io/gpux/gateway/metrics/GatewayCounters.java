package io.gpux.gateway.metrics;

import io.gpux.core.counters.CounterDescriptor;
import io.gpux.core.counters.ExchangeCounters;
import io.gpux.core.counters.LatencyCounters;
import io.gpux.proto.v1.Reason;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * The gateway's and the egress's counters. The event loop, the egress and the login path may count the
 * same figure (a slow consumer is cut off by either), so these are atomic adds; none is on the matching
 * path.
 */
public final class GatewayCounters
{
    public final AtomicCounter sessions;
    public final AtomicCounter connections;
    public final AtomicCounter requests;
    public final AtomicCounter slowConsumers;
    public final AtomicCounter egressEventSequence;
    public final AtomicCounter egressResends;
    public final AtomicCounter loginsFailed;
    public final AtomicCounter loginsThrottled;
    public final AtomicCounter loginsOverSessionLimit;
    /** Command round trips through the exchange: recorded by the egress, sampled once a second on the event loop. */
    public final LatencyCounters requestNs;
    private final AtomicCounter[] rejects = new AtomicCounter[Reason.values().length];

    public GatewayCounters(final ExchangeCounters counters)
    {
        sessions = counters.newCounter(CounterDescriptor.SESSIONS);
        connections = counters.newCounter(CounterDescriptor.CONNECTIONS);
        requests = counters.newCounter(CounterDescriptor.REQUESTS);
        slowConsumers = counters.newCounter(CounterDescriptor.SLOW_CONSUMERS);
        egressEventSequence = counters.newCounter(CounterDescriptor.EGRESS_EVENT_SEQUENCE);
        egressResends = counters.newCounter(CounterDescriptor.EGRESS_RESENDS);
        loginsFailed = counters.newCounter(CounterDescriptor.LOGIN_FAILURES, "BAD_SIGNATURE_OR_NONCE");
        loginsThrottled = counters.newCounter(CounterDescriptor.LOGIN_FAILURES, "THROTTLED");
        loginsOverSessionLimit = counters.newCounter(CounterDescriptor.LOGIN_FAILURES, "SESSION_LIMIT");
        requestNs = new LatencyCounters(counters, CounterDescriptor.REQUEST_NS, CounterDescriptor.REQUEST_COUNT);
        for (final Reason r : Reason.values())
        {
            if (r != Reason.REASON_OK && r != Reason.UNRECOGNIZED)
            {
                rejects[r.ordinal()] = counters.newCounter(CounterDescriptor.GATEWAY_REJECTS, r.name());
            }
        }
    }

    /** Counters of their own, in memory (an egress or a throttle made alone, in a test). */
    public static GatewayCounters inMemory()
    {
        return new GatewayCounters(ExchangeCounters.inMemory());
    }

    /** The gateway answered a request itself with {@code reason} (an OK answer is not counted). */
    public void answered(final Reason reason)
    {
        final AtomicCounter c = rejects[reason.ordinal()];
        if (c != null)
        {
            c.increment();
        }
    }
}
