package io.gpux.client;

import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Cancelled;
import io.gpux.proto.v1.EndReason;
import io.gpux.proto.v1.Fill;
import io.gpux.proto.v1.LeaseEnded;
import io.gpux.proto.v1.LeaseStarted;
import io.gpux.proto.v1.NoticeReason;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.TimeInForce;

/**
 * "Keep N GPUs of market X leased for me, at up to price P": a standing spot request driven by the
 * account's events.
 *
 * <p>It bids (GTC, at {@code maxPrice}, with the constraints) for the GPUs it is missing, and tracks
 * the leases its bids create from the account events: {@code Fill} (a lease is coming),
 * {@code LeaseStarted}, {@code PreemptNotice}, {@code LeaseEnded}. Covered GPUs are those of its open
 * bids and of its leases without a notice; whenever fewer than N are covered it places a new bid (a new
 * order id) for the difference:
 * <ul>
 *   <li>on a preemption notice (outbid, owner reclaim, funds), at once: the replacement bid competes
 *   while the old lease runs out its grace period, and the listener's {@code onPreemptionNotice} tells
 *   the job to checkpoint before {@code effectiveAtMs};</li>
 *   <li>when a lease ends without notice (expired, machine offline, released elsewhere);</li>
 *   <li>when one of its bids is cancelled by anything but its own {@link #close} (mass cancel,
 *   cancel-on-disconnect);</li>
 *   <li>when a bid is refused with BUSY, RATE_LIMITED or UNAVAILABLE, after {@link #retryDelayMs};
 *   other refusals (insufficient funds, halted market, ...) go to {@code onBidFailed} and wait for the
 *   next event or {@link #retry()}.</li>
 * </ul>
 * A gang request bids for all N GPUs on one machine; since a lease is preempted whole, it re-bids for
 * all N.
 *
 * <p>No cascades: for {@link #calmAfterNoticeMs} after a preemption notice (30 minutes by default), its
 * bids are {@code no_preempt}: they take free GPUs and wait in the book, but do not preempt another
 * renter's lease, which would only pass the notice (and the GPUs idle through the grace period) on. When
 * the calm period is over and GPUs are still missing, it cancels those bids and bids again as usual,
 * preemption included. A calm period of 0 re-bids as usual at once.
 *
 * <p>Moving to cheaper GPUs (off by default, {@link #moveWhenCheaper}): every so often, for each running
 * lease without a notice, it sends one {@code IOC}, {@code no_preempt}, gang bid for that lease's GPUs at
 * its price less a saving. Such a bid takes only free GPUs on one machine, now, or is cancelled; it never
 * preempts anyone and never rests in the book. When it fills, the new lease starts at once, the
 * listener's {@code onLeaseMoved} tells the job to checkpoint and carry on there, and the old lease is
 * released. The owner of the cheaper machine is paid its own ask; the renter pays less for the same GPUs;
 * and the dearer machine is free for a bid that values it more. The job restarts on the new GPUs, so a
 * move pays only when the saving over the time the job has left is worth more than its restart.
 *
 * <p>{@link #close(boolean)} cancels its open bids and, if asked, releases its leases (also those that
 * a bid fills before its cancel lands), then stops listening.
 *
 * <p>Threading: all its state is touched on the sender's event thread only (the client's event loop):
 * {@link #start}, {@link #retry} and {@link #close} hop onto it; the getters are for that thread.
 */
public final class SpotRequest implements ClientListener, AutoCloseable
{
    /** What the owner of the request hears; every method has a no-op default. */
    public interface Listener
    {
        /** One of its leases runs: {@code gpus} GPUs of machine {@code machineId} at {@code price}. */
        default void onLeaseStarted(final long leaseId, final long machineId, final int gpus, final long price)
        {
        }

        /** One of its leases will end at {@code effectiveAtMs}: checkpoint now. A new bid is already out. */
        default void onPreemptionNotice(final long leaseId, final long effectiveAtMs)
        {
        }

        default void onLeaseEnded(final long leaseId, final EndReason reason)
        {
        }

        /**
         * The job moves from lease {@code fromLeaseId} onto {@code toLeaseId}, which has started (its
         * {@code onLeaseStarted} came first) on cheaper GPUs: checkpoint and carry on there; the old lease
         * is being released and its {@code onLeaseEnded} follows.
         */
        default void onLeaseMoved(final long fromLeaseId, final long toLeaseId)
        {
        }

        /** A bid was refused for a reason that retrying at once would not fix. */
        default void onBidFailed(final long orderId, final Reason reason)
        {
        }
    }

    /** What a bid of the request asks of a machine, besides market and price. */
    public record Constraints(boolean gang, String region, long minReliabilityPpm, long maxDurationMs)
    {
        /** Any machine, no gang, no duration limit. */
        public static final Constraints NONE = new Constraints(false, "", 0, 0);

        public Constraints
        {
            region = region == null ? "" : region;
            if (minReliabilityPpm < 0 || minReliabilityPpm > 1_000_000)
            {
                throw new IllegalArgumentException("minReliabilityPpm must be 0 to 1000000");
            }
            if (maxDurationMs < 0)
            {
                throw new IllegalArgumentException("maxDurationMs must not be negative");
            }
        }
    }

    private final OrderSender sender;
    private final String market;
    private final int gpus;
    private final long maxPrice;
    private final Constraints constraints;
    private final Listener listener;
    private final Runnable reconcileTask = this::reconcile;
    private final Runnable retryTask = this::onRetryTimer;
    /** How long after a preemption notice its bids do not preempt, by default. */
    public static final long DEFAULT_CALM_AFTER_NOTICE_MS = 30 * 60_000L;

    private final Runnable calmEndTask = this::onCalmEnd;
    private final Runnable moveTask = this::onMoveTimer;
    /** How often it looks for cheaper GPUs for its running leases; 0: never. */
    private long moveEveryMs;
    /** How much cheaper (basis points of the lease's price) a move's GPUs must be. */
    private int moveSavingBps;
    private int moves;
    private long retryDelayMs = 1000;
    private long calmAfterNoticeMs = DEFAULT_CALM_AFTER_NOTICE_MS;
    /** Calm periods begun by notices and not yet over: while above 0, new bids do not preempt. */
    private int calmPeriods;
    private Runnable detach;
    private boolean started;
    private boolean closed;
    private boolean releaseOnClose;
    private boolean retryScheduled;

    private final SpotBids bids = new SpotBids();
    private boolean reconcilingNotice;
    private int preemptingFills;
    private int cascadingFills;

    private final SpotLeases leases = new SpotLeases();

    /**
     * A request that acts once {@link #start()}ed; it must also receive the client's events (see
     * {@link #start(GpuxClient, String, int, long, Constraints, Listener)}, which does both).
     */
    public SpotRequest(final OrderSender sender, final String market, final int gpus, final long maxPrice,
        final Constraints constraints, final Listener listener)
    {
        if (gpus < 1)
        {
            throw new IllegalArgumentException("gpus must be at least 1");
        }
        if (maxPrice < 1)
        {
            throw new IllegalArgumentException("maxPrice must be positive");
        }
        this.sender = sender;
        this.market = market;
        this.gpus = gpus;
        this.maxPrice = maxPrice;
        this.constraints = constraints == null ? Constraints.NONE : constraints;
        this.listener = listener == null ? new Listener() { } : listener;
    }

    /** Creates a request, makes it a listener of the client, and starts it. */
    public static SpotRequest start(final GpuxClient client, final String market, final int gpus, final long maxPrice,
        final Constraints constraints, final Listener listener)
    {
        final SpotRequest request = new SpotRequest(client, market, gpus, maxPrice, constraints, listener);
        client.addListener(request);
        request.detach = () -> client.removeListener(request);
        request.start();
        return request;
    }

    /** Starts bidding (on the event thread). */
    public void start()
    {
        sender.execute(() ->
        {
            started = true;
            reconcile();
            if (moveEveryMs > 0)
            {
                sender.schedule(moveEveryMs, moveTask);
            }
        });
    }

    /** Bids again now for whatever is missing (after {@code onBidFailed}, once the cause is fixed). */
    public void retry()
    {
        sender.execute(reconcileTask);
    }

    /** How long to wait before bidding again after BUSY, RATE_LIMITED or UNAVAILABLE; default 1 s. */
    public SpotRequest retryDelayMs(final long retryDelayMs)
    {
        this.retryDelayMs = retryDelayMs;
        return this;
    }

    /**
     * How long after a preemption notice its bids take only free GPUs (they do not preempt); default 30
     * minutes; 0: they preempt at once, as any bid.
     */
    public SpotRequest calmAfterNoticeMs(final long calmAfterNoticeMs)
    {
        if (calmAfterNoticeMs < 0)
        {
            throw new IllegalArgumentException("calmAfterNoticeMs must not be negative");
        }
        this.calmAfterNoticeMs = calmAfterNoticeMs;
        return this;
    }

    /**
     * Every {@code everyMs}, for each running lease without a notice, looks for the same GPUs on one
     * machine at least {@code savingBps} basis points below the lease's price (an {@code IOC},
     * {@code no_preempt} gang bid at that price), and moves there if it finds them. {@code everyMs} 0
     * (the default) never moves. Set before {@link #start()}.
     */
    public SpotRequest moveWhenCheaper(final long everyMs, final int savingBps)
    {
        if (everyMs < 0 || savingBps < 1 || savingBps >= 10_000)
        {
            throw new IllegalArgumentException("everyMs must not be negative and savingBps must be 1 to 9999");
        }
        this.moveEveryMs = everyMs;
        this.moveSavingBps = savingBps;
        return this;
    }

    /** Moves made onto cheaper GPUs. */
    public int moves()
    {
        return moves;
    }

    /** Whether its new bids now do not preempt (a notice's calm period is running). */
    public boolean calm()
    {
        return calmPeriods > 0;
    }

    /** Cancels the open bids and keeps the leases (they run until they end). */
    @Override
    public void close()
    {
        close(false);
    }

    /** Cancels the open bids and, if {@code releaseLeases}, releases every lease it holds. */
    public void close(final boolean releaseLeases)
    {
        sender.execute(() -> shutdown(releaseLeases));
    }

    public String market()
    {
        return market;
    }

    /** N: the GPUs it keeps leased. */
    public int targetGpus()
    {
        return gpus;
    }

    public long maxPrice()
    {
        return maxPrice;
    }

    public boolean isClosed()
    {
        return closed;
    }

    /** GPUs in its leases without a notice, started or waiting to start. */
    public int leasedGpus()
    {
        return leases.gpusWithoutNotice();
    }

    /** GPUs in its leases that have started and have no notice. */
    public int activeGpus()
    {
        return leases.activeGpus();
    }

    /** GPUs its open bids for missing GPUs still ask for (a move's bid is not counted). */
    public int biddingGpus()
    {
        return bids.missingGpus();
    }

    /** Leases it tracks, under notice included. */
    public int leaseCount()
    {
        return leases.count();
    }

    public int bidCount()
    {
        return bids.count();
    }

    /** Fills of its bids that preempted another lease. */
    public int preemptingFills()
    {
        return preemptingFills;
    }

    /** Of those, the fills of bids placed on a preemption notice: a preemption passed on (a cascade). */
    public int cascadingFills()
    {
        return cascadingFills;
    }

    // ------------------------------------------------------------------------------------------
    // Events (ClientListener, on the event thread)

    @Override
    public void onResponse(final long requestId, final Response response)
    {
        final int index = bids.findRequest(requestId);
        if (index < 0)
        {
            return;
        }
        final Reason reason = response.getReason();
        if (reason == Reason.REASON_OK)
        {
            bids.requestId(index, 0);
            return;
        }
        final long orderId = bids.orderId(index);
        final boolean move = bids.movesLease(index) != 0;
        bids.remove(index);
        if (move)
        {
            // a move not made: the lease runs on where it is; the next look tries again
            maybeDetach();
            return;
        }
        if (reason == Reason.BUSY || reason == Reason.RATE_LIMITED || reason == Reason.UNAVAILABLE)
        {
            scheduleRetry();
        }
        else
        {
            listener.onBidFailed(orderId, reason);
        }
        maybeDetach();
    }

    @Override
    public void onFill(final AccountEvent event, final Fill fill)
    {
        final int bid = bids.find(fill.getOrderId());
        if (bid < 0)
        {
            return;
        }
        if (fill.getPreemptsLeaseId() != 0)
        {
            preemptingFills++;
            cascadingFills += bids.onNotice(bid) ? 1 : 0;
        }
        final long movesLease = bids.movesLease(bid);
        if (bids.filled(bid, fill.getGpus()) <= 0)
        {
            bids.remove(bid);
        }
        final int lease = leases.find(fill.getLeaseId());
        if (lease >= 0)
        {
            leases.addGpus(lease, fill.getGpus());
        }
        else
        {
            leases.add(fill.getLeaseId(), fill.getGpus());
            leases.replaces(leases.count() - 1, movesLease);
            if (closed && releaseOnClose)
            {
                sender.release(fill.getLeaseId());
            }
        }
        maybeDetach();
    }

    @Override
    public void onLeaseStarted(final AccountEvent event, final LeaseStarted started)
    {
        final int lease = leases.find(started.getLeaseId());
        if (lease < 0)
        {
            return;
        }
        if (leases.state(lease) == SpotLeases.WAITING)
        {
            leases.state(lease, SpotLeases.ACTIVE);
        }
        leases.price(lease, started.getPrice());
        final long replaces = leases.replaces(lease);
        listener.onLeaseStarted(started.getLeaseId(), started.getMachineId(), started.getGpus(), started.getPrice());
        if (replaces != 0)
        {
            leases.replaces(leases.find(started.getLeaseId()), 0);
            finishMove(replaces, started.getLeaseId());
        }
    }

    /** A move's lease has started: leave the old lease, or, if that one is gone already, keep only what is needed. */
    private void finishMove(final long fromLeaseId, final long toLeaseId)
    {
        if (closed)
        {
            return;
        }
        if (leases.find(fromLeaseId) >= 0)
        {
            moves++;
            listener.onLeaseMoved(fromLeaseId, toLeaseId);
            sender.release(fromLeaseId);
        }
        else if (leasedGpus() > gpus)
        {
            // the old lease ended meanwhile and other leases cover its GPUs: the move's lease is one too many
            sender.release(toLeaseId);
        }
        else if (leasedGpus() + biddingGpus() > gpus)
        {
            // the old lease ended meanwhile and the move's lease took over its GPUs: the bids placed for them give way
            // (their cancels bid again for whatever is still missing)
            for (int i = 0; i < bids.count(); i++)
            {
                if (bids.movesLease(i) == 0)
                {
                    sender.cancel(bids.orderId(i));
                }
            }
        }
    }

    @Override
    public void onPreemptNotice(final long leaseId, final long effectiveAtMs, final NoticeReason reason)
    {
        final int lease = leases.find(leaseId);
        if (lease < 0 || leases.state(lease) == SpotLeases.NOTICED)
        {
            return;
        }
        leases.state(lease, SpotLeases.NOTICED);
        if (calmAfterNoticeMs > 0 && !closed)
        {
            calmPeriods++;
            sender.schedule(calmAfterNoticeMs, calmEndTask);
        }
        listener.onPreemptionNotice(leaseId, effectiveAtMs);
        reconcilingNotice = true;
        reconcile();
        reconcilingNotice = false;
    }

    @Override
    public void onLeaseEnded(final AccountEvent event, final LeaseEnded ended)
    {
        final int lease = leases.find(ended.getLeaseId());
        if (lease < 0)
        {
            return;
        }
        leases.remove(lease);
        listener.onLeaseEnded(ended.getLeaseId(), ended.getReason());
        reconcile();
        maybeDetach();
    }

    @Override
    public void onCancelled(final AccountEvent event, final Cancelled cancelled)
    {
        final int bid = bids.find(cancelled.getOrderId());
        if (bid < 0)
        {
            return;
        }
        bids.remove(bid);
        reconcile();
        maybeDetach();
    }

    // ------------------------------------------------------------------------------------------

    private void reconcile()
    {
        if (!started || closed)
        {
            return;
        }
        final int missing = gpus - leasedGpus() - biddingGpus();
        if (missing <= 0)
        {
            return;
        }
        placeBid(bid(missing, maxPrice).setGang(constraints.gang()).setNoPreempt(calmPeriods > 0), missing, 0);
    }

    /** A bid of this request's market and machine constraints for {@code gpus} GPUs at {@code price} (gang: see callers). */
    private PlaceBid.Builder bid(final int bidGpus, final long price)
    {
        return PlaceBid.newBuilder()
            .setMarket(market)
            .setGpus(bidGpus)
            .setPrice(price)
            .setRegion(constraints.region())
            .setMinReliabilityPpm(constraints.minReliabilityPpm())
            .setMaxDurationMs(constraints.maxDurationMs());
    }

    /**
     * Sends a bid ({@code builder} without its order id) and tracks it; {@code movesLease}: the lease a move's
     * bid would replace, 0 for a bid for missing GPUs.
     */
    private void placeBid(final PlaceBid.Builder builder, final int open, final long movesLease)
    {
        final long orderId = sender.nextOrderId();
        final PlaceBid bid = builder.setOrderId(orderId).build();
        // a move's bid is neither a calm period's bid (the calm period's end leaves it alone) nor a notice's
        bids.add(orderId, open, bid.getNoPreempt() && movesLease == 0, reconcilingNotice && movesLease == 0, movesLease);
        final long requestId;
        try
        {
            requestId = sender.placeBid(bid);
        }
        catch (final IllegalStateException ex)
        {
            // the client's order-entry queue is full or the client is closed: try again later
            final int index = bids.find(orderId);
            if (index >= 0)
            {
                bids.remove(index);
            }
            if (movesLease == 0)
            {
                scheduleRetry();
            }
            return;
        }
        final int index = bids.find(orderId);
        if (index >= 0)
        {
            bids.requestId(index, requestId);
        }
    }

    /** Looks for cheaper GPUs for each running lease without a notice and without a move's bid out. */
    private void onMoveTimer()
    {
        if (closed)
        {
            return;
        }
        final int count = leases.count();
        for (int i = 0; i < count; i++)
        {
            final long price = leases.price(i) * (10_000 - moveSavingBps) / 10_000;
            if (leases.state(i) == SpotLeases.ACTIVE && price >= 1 && !bids.moving(leases.id(i)))
            {
                placeBid(bid(leases.gpus(i), price).setTif(TimeInForce.IOC).setGang(true).setNoPreempt(true), leases.gpus(i),
                    leases.id(i));
            }
        }
        sender.schedule(moveEveryMs, moveTask);
    }

    private void scheduleRetry()
    {
        if (!retryScheduled && !closed)
        {
            retryScheduled = true;
            sender.schedule(retryDelayMs, retryTask);
        }
    }

    private void onRetryTimer()
    {
        retryScheduled = false;
        reconcile();
    }

    /** The last calm period over: bids that may not preempt give way to bids that may. */
    private void onCalmEnd()
    {
        calmPeriods--;
        if (calmPeriods > 0 || closed)
        {
            return;
        }
        for (int i = 0; i < bids.count(); i++)
        {
            if (bids.calm(i))
            {
                bids.calm(i, false);
                sender.cancel(bids.orderId(i));
            }
        }
    }

    private void shutdown(final boolean releaseLeases)
    {
        if (closed)
        {
            return;
        }
        closed = true;
        releaseOnClose = releaseLeases;
        for (int i = 0; i < bids.count(); i++)
        {
            sender.cancel(bids.orderId(i));
        }
        if (releaseLeases)
        {
            for (int i = 0; i < leases.count(); i++)
            {
                sender.release(leases.id(i));
            }
        }
        maybeDetach();
    }

    /** After close: stop listening once no bid can still fill and no lease it releases is left. */
    private void maybeDetach()
    {
        if (closed && detach != null && bids.count() == 0 && (!releaseOnClose || leases.count() == 0))
        {
            final Runnable d = detach;
            detach = null;
            d.run();
        }
    }
}
