package io.gpux.sim;

import io.gpux.client.ClientListener;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.LoginAccepted;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The last few account events of each lease and each order, as the demo's clients delivered them, and each
 * account's last session changes (logins, drops): what explains a lease or an order still open after the
 * wind-down. Its listeners run on the clients' event loops; the descriptions are read from any thread.
 */
final class LeaseTrail
{
    private static final int KEPT = 6;
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS", Locale.ROOT)
        .withZone(ZoneOffset.UTC);

    private final LongSupplier marketClock;
    private final Map<Long, Deque<String>> leases = new ConcurrentHashMap<>();
    private final Map<Long, Deque<String>> orders = new ConcurrentHashMap<>();
    private final Map<String, Deque<String>> sessions = new ConcurrentHashMap<>();

    /** @param marketClock the exchange's market time, for the session changes (events carry their own). */
    LeaseTrail(final LongSupplier marketClock)
    {
        this.marketClock = marketClock;
    }

    /** A listener for the client of {@code account}. */
    ClientListener listener(final String account)
    {
        return new ClientListener()
        {
            @Override
            public void onLoginAccepted(final LoginAccepted accepted)
            {
                keep(sessions, account, "logged in at " + now() + " (last event " + accepted.getLastSeq() + ")");
            }

            @Override
            public void onDisconnected(final String reason, final boolean reconnecting)
            {
                keep(sessions, account, "dropped at " + now() + " (" + reason + ")");
            }

            @Override
            public void onEvent(final AccountEvent e)
            {
                record(account, e);
            }
        };
    }

    private void record(final String account, final AccountEvent e)
    {
        final String at = account + " " + time(e.getTimeMs()) + " #" + e.getSeq() + " ";
        switch (e.getKindCase())
        {
            case ACCEPTED -> keep(orders, e.getAccepted().getOrderId(), at + "Accepted");
            case REJECTED -> keep(orders, e.getRejected().getOrderId(), at + "Rejected " + e.getRejected().getReason());
            case CANCELLED -> keep(orders, e.getCancelled().getOrderId(), at + "Cancelled " + e.getCancelled().getReason()
                + " (" + e.getCancelled().getRemaining() + " GPUs left)");
            case FILL ->
            {
                final String fill = at + "Fill of order " + e.getFill().getOrderId() + " (" + e.getFill().getGpus() + " GPUs"
                    + (e.getFill().getPreemptsLeaseId() != 0 ? ", preempting lease " + e.getFill().getPreemptsLeaseId() : "")
                    + ")";
                keep(leases, e.getFill().getLeaseId(), fill);
                keep(orders, e.getFill().getOrderId(), at + "Fill into lease " + e.getFill().getLeaseId());
            }
            case LEASE_STARTED -> keep(leases, e.getLeaseStarted().getLeaseId(), at + "LeaseStarted");
            case PREEMPT_NOTICE -> keep(leases, e.getPreemptNotice().getLeaseId(), at + "PreemptNotice "
                + e.getPreemptNotice().getReason() + " effective " + time(e.getPreemptNotice().getEffectiveMs()));
            case LEASE_ENDED -> keep(leases, e.getLeaseEnded().getLeaseId(), at + "LeaseEnded " + e.getLeaseEnded().getReason());
            default ->
            {
            }
        }
    }

    /** The lease's last events, oldest first; "none seen" when no client delivered one. */
    String lease(final long leaseId)
    {
        return describe(leases.get(leaseId));
    }

    /** The order's last events, oldest first. */
    String order(final long orderId)
    {
        return describe(orders.get(orderId));
    }

    /** The account's client's last logins and drops, oldest first. */
    String sessions(final String account)
    {
        return describe(sessions.get(account));
    }

    private String now()
    {
        return time(marketClock.getAsLong());
    }

    /** A market time as the trail writes it (UTC, to the millisecond). */
    static String time(final long epochMs)
    {
        return TIME.format(Instant.ofEpochMilli(epochMs));
    }

    private static <K> void keep(final Map<K, Deque<String>> trails, final K key, final String line)
    {
        final Deque<String> trail = trails.computeIfAbsent(key, k -> new ArrayDeque<>());
        synchronized (trail)
        {
            trail.addLast(line);
            if (trail.size() > KEPT)
            {
                trail.removeFirst();
            }
        }
    }

    private static String describe(final Deque<String> trail)
    {
        if (trail == null)
        {
            return "none seen";
        }
        final List<String> lines;
        synchronized (trail)
        {
            lines = List.copyOf(trail);
        }
        return String.join("; ", lines);
    }
}
