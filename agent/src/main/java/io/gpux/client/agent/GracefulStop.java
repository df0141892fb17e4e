package io.gpux.client.agent;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.agrona.concurrent.NanoClock;

/**
 * The owner agent's graceful stop, so that no renter loses a lease without notice: each interval
 * (after the heartbeat) it cancels every ask of the machine with reclaim and counts the machine's
 * leases; it ends once none is left, or at its deadline: the market's grace after the last reclaim
 * plus the stop margin. Requested from any thread; the rest runs on the agent's thread.
 */
final class GracefulStop
{
    private static final long MIN_REQUEST_TIMEOUT_MS = 250;

    private final OwnerAgentListener listener;
    private final MachineLedger ledger;
    private final AskKeeper asks;
    private final NanoClock clock;
    private final Duration requestTimeout;
    private final Duration margin;
    private final Runnable finished;

    private volatile boolean requested;
    private volatile boolean stopped;
    private volatile int leasesLeft;
    private boolean stopping;
    private long deadlineNs;
    private boolean unreachable;
    private int reportedLeases = -1;

    GracefulStop(final OwnerAgentListener listener, final MachineLedger ledger, final AskKeeper asks, final NanoClock clock,
        final Duration requestTimeout, final Duration margin, final Runnable finished)
    {
        this.listener = listener;
        this.ledger = ledger;
        this.asks = asks;
        this.clock = clock;
        this.requestTimeout = requestTimeout;
        this.margin = margin;
        this.finished = finished;
    }

    /** Asks for the stop (any thread); it begins at the agent's next interval. */
    void request()
    {
        requested = true;
    }

    /** True from {@link #request()} on. */
    boolean requested()
    {
        return requested;
    }

    /** True once the stop has begun on the agent's thread. */
    boolean stopping()
    {
        return stopping;
    }

    /** True once the stop has finished: the last lease ended, or the deadline passed. */
    boolean stopped()
    {
        return stopped;
    }

    /** The leases the finished stop left on the machine. */
    int leasesLeft()
    {
        return leasesLeft;
    }

    /** Begins a requested stop: its deadline is the market's grace from now plus the margin. */
    void begin(final long graceMs)
    {
        if (requested && !stopping)
        {
            stopping = true;
            deadlineNs = clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMs) + margin.toNanos();
        }
    }

    /**
     * One interval of the stop: cancels the machine's asks with reclaim and counts its leases; ends the
     * stop when none is left.
     */
    int drain(final long graceMs) throws IOException, InterruptedException, TimeoutException
    {
        if (unreachable)
        {
            // reached again: say again what the stop waits for
            unreachable = false;
            reportedLeases = -1;
        }
        int reclaims = 0;
        for (final long orderId : ledger.asks())
        {
            if (asks.reclaim(orderId, timeout()))
            {
                // the notices take effect a grace from now: wait for them, whenever the reclaim got through
                deadlineNs = Math.max(deadlineNs, clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMs) + margin.toNanos());
                reclaims++;
            }
        }
        final int leases = ledger.leaseCount();
        if (reclaims > 0)
        {
            // the reclaims' notices and ends come as events: count again next interval
            return reclaims;
        }
        if (leases == 0)
        {
            finish(0);
            return 1;
        }
        if (leases != reportedLeases)
        {
            reportedLeases = leases;
            listener.onStopWaiting(leases, leftMs());
        }
        return 0;
    }

    /** The exchange could not be reached during the stop: said once, until it is reached again. */
    void unreachable(final String why)
    {
        if (!unreachable)
        {
            unreachable = true;
            listener.onStopUnreachable(why, leftMs());
        }
    }

    /** Ends the stop at its deadline, reporting the leases it leaves. */
    void checkDeadline()
    {
        if (stopping && !stopped && clock.nanoTime() - deadlineNs >= 0)
        {
            finish(ledger.leaseCount());
        }
    }

    void finish(final int leases)
    {
        leasesLeft = leases;
        stopped = true;
        listener.onStopped(leases);
        finished.run();
    }

    /** The wait for one answer: the configured timeout, cut to what is left of a stop's wait. */
    Duration timeout()
    {
        if (!stopping)
        {
            return requestTimeout;
        }
        final long leftMs = Math.max(MIN_REQUEST_TIMEOUT_MS, leftMs());
        return leftMs < requestTimeout.toMillis() ? Duration.ofMillis(leftMs) : requestTimeout;
    }

    private long leftMs()
    {
        return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNs - clock.nanoTime()));
    }
}
