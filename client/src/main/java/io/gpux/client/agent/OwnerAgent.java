package io.gpux.client.agent;

import io.gpux.client.BookView;
import io.gpux.client.ClientListener;
import io.gpux.client.GpuxClient;
import io.gpux.client.RequestFailedException;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.BookSnapshot;
import io.gpux.proto.v1.BookUpdate;
import io.gpux.proto.v1.Cancel;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.LoginAccepted;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.MachineOffline;
import io.gpux.proto.v1.MachineOnline;
import io.gpux.proto.v1.MarketInfo;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Replace;
import io.gpux.proto.v1.Response;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.agrona.concurrent.NanoClock;

/**
 * The owner's agent on a GPU machine: it finds the GPUs with nvidia-smi, registers the machine, keeps
 * it online with heartbeats carrying GPU telemetry, and keeps an ask of its free GPUs on the book at
 * the price its {@link OwnerAgentPricing} says; when the owner needs the machine back it reclaims it.
 *
 * <pre>{@code
 * try (GpuxClient client = new GpuxClient(clientContext);
 *      OwnerAgent agent = new OwnerAgent(new OwnerAgentContext().client(client)
 *          .reservePrice(Prices.parse("2.0")).undercut(true).reclaimFile(Path.of("/run/gpux/reclaim"))))
 * {
 *     client.connect();
 *     agent.start();
 *     ...
 * }
 * }</pre>
 *
 * <h2>Each interval</h2>
 * (default 5 s, {@link OwnerAgentContext#heartbeatInterval}) the agent's thread runs {@link #doWork()}:
 * <ol>
 *   <li>discovery, until it has worked once ({@link NvidiaSmi#discover()}): the GPU count, the market
 *   (the configured one, else {@link GpuInfo#marketSymbol()} of the first GPU) and the VRAM. A failure
 *   is reported ({@link OwnerAgentListener#onTelemetryFailed}) and tried again next interval; {@code gpux
 *   agent} checks discovery once before it connects and exits with status 5 where nvidia-smi is missing,
 *   fails or lists no GPU;</li>
 *   <li>registration, once and after every reconnect: the same name answers the same machine id;</li>
 *   <li>a heartbeat with the GPUs' telemetry ({@link NvidiaSmi#sample()}); when nvidia-smi fails the
 *   failure is reported and the heartbeat goes without telemetry;</li>
 *   <li>the reclaim trigger ({@link #reclaim()}, or the {@link OwnerAgentContext#reclaimFile} existing): the ask
 *   is cancelled with {@code reclaim=true}, so its renters get OWNER_RECLAIM notices and their leases
 *   end after the market's grace period; no ask is posted until the trigger goes away
 *   ({@link #resume()}, the file removed);</li>
 *   <li>otherwise the ask: posted for the machine's free GPUs (GPU count less the GPUs of its leases)
 *   if it has none, re-priced with a Replace (the same order id) when the pricing's target moved, and
 *   grown when GPUs came free outside it (after a reclaim). When undercutting, the target follows the
 *   best competing ask of a market-data subscription ({@link BookView}): the book's levels less this
 *   ask and the account's other asks in the market, so the owner's machines never undercut one
 *   another ({@link OwnerAgentPricing}).</li>
 * </ol>
 * A request that fails (disconnected, no answer in time, BUSY) is reported and tried again next
 * interval; the client reconnects by itself and re-sends unanswered order entry.
 *
 * <h2>What the agent knows of its machine</h2>
 * The agent reads the account's Portfolio once at its start and once after every login (a new
 * session may have missed events), not every interval: from then on the account's events keep its
 * picture of the machine (a {@code MachineLedger}): its ask (posted, replaced, filled, cancelled), its
 * leases (filled, started, ended) and their notices. The exchange gives the machine's owner every
 * {@code PreemptNotice} of its leases, so a workload ({@link OwnerAgentContext#workloads}) gets its
 * notice file and signal the moment the notice arrives, whatever the interval. A PlaceAsk or Replace
 * refused in a way that says the picture is wrong (an unknown order, capacity the machine does not
 * have), or a request left unanswered, makes the next interval read the portfolio again.
 *
 * <p>The account's other asks in the market (the owner's other machines') come from the same portfolio.
 * Their fills and cancels arrive as events, but a Replace or a new ask of another machine arrives only
 * as an {@code Accepted} without a price, and a lease's end there may give GPUs back to its ask: when
 * undercutting, such an event makes the next re-pricing read the portfolio first (after copying the
 * book, so the account's asks are at least as new as the levels they are taken out of). The book and
 * the events travel apart, so for an interval a machine may see another's new price on the book before
 * its Accepted: it may then go one tick under it once, and comes back up at the next interval.
 *
 * <h2>Stopping</h2>
 * {@link #stop()} stops gracefully, so that no renter loses a lease without notice: each interval the
 * agent keeps heartbeating, cancels every ask of the machine with {@code reclaim=true} (renters get
 * OWNER_RECLAIM notices with the market's full grace; a reclaim already running keeps its notices),
 * and ends once the machine has no lease left ({@link OwnerAgentListener#onStopped} with 0). The wait
 * is bounded: the market's grace after the last reclaim plus {@link OwnerAgentContext#stopMargin}; an
 * exchange that cannot be reached is retried until then. Past the deadline it ends anyway, reporting
 * the leases it leaves, which end MACHINE_OFFLINE once the exchange misses the heartbeats.
 * {@link #stopNow()} ends at once. {@link #awaitStopped} waits for either.
 *
 * <h2>Threading</h2>
 * The agent's state belongs to its thread (or to whoever calls {@link #doWork()} when it is driven by
 * hand, never both). The book view belongs to the client's event loop, which hands a copy of its ask
 * levels to the agent's thread when asked. {@link #reclaim()}, {@link #resume()} and the getters may
 * be called from any thread.
 */
public final class OwnerAgent implements AutoCloseable
{
    private static final int BOOK_LEVELS = 32;
    /** The most of the account's other asks in the market that undercutting leaves out of the book. */
    private static final int ACCOUNT_ASKS = 256;
    private static final long MIN_STOP_REQUEST_TIMEOUT_MS = 250;

    private final OwnerAgentContext ctx;
    private final GpuxClient client;
    private final OwnerAgentListener listener;
    private final OwnerAgentPricing pricing;
    /** Null unless the agent clears (then the ask is re-priced every clearEveryNs). */
    private final ClearingPricing clearing;
    private long lastClearNs;
    private boolean cleared;
    private final Duration timeout;
    private final EventAdapter events = new EventAdapter();
    private final NanoClock clock;
    private final Semaphore wakeups = new Semaphore(0);
    private final CountDownLatch terminated = new CountDownLatch(1);
    private final MachineLedger ledger = new MachineLedger();
    private final AtomicLong heartbeats = new AtomicLong();
    private final AtomicLong telemetryFailures = new AtomicLong();
    private final long[] bookPrices = new long[BOOK_LEVELS];
    private final long[] bookGpus = new long[BOOK_LEVELS];
    private final long[] accountAskPrices = new long[ACCOUNT_ASKS];
    private final long[] accountAskGpus = new long[ACCOUNT_ASKS];

    private volatile boolean running;
    private volatile boolean closed;
    private volatile boolean reclaimRequested;
    private volatile boolean reregister;
    private volatile boolean reclaimed;
    private volatile long machineId;
    private volatile List<GpuInfo> gpus;
    private Thread thread;

    private volatile boolean stopRequested;
    private volatile boolean stopped;
    private volatile int leasesLeft;
    private long stopDeadlineNs;
    private boolean stopping;
    private boolean stopUnreachable;
    private int stopReportedLeases = -1;

    private volatile String market;
    private long tick = 1;
    private long graceMs;
    private boolean subscribed;
    private boolean telemetryFailing;

    public OwnerAgent(final OwnerAgentContext context)
    {
        this.ctx = context.conclude();
        this.client = ctx.client();
        this.listener = ctx.listener();
        this.pricing = new OwnerAgentPricing(ctx.reservePrice(), ctx.price(), ctx.undercut());
        this.clearing = ctx.clearEvery() == null ? null : new ClearingPricing(ctx.reservePrice(), ctx.price());
        this.timeout = ctx.requestTimeout();
        this.clock = ctx.nanoClock();
        client.addListener(events);
        if (ctx.workloads() != null)
        {
            client.addListener(ctx.workloads());
        }
    }

    // ------------------------------------------------------------------------------------------
    // Life cycle

    /** Starts the agent's thread: the first interval's work at once, then one every heartbeat interval. */
    public synchronized OwnerAgent start()
    {
        if (closed || thread != null)
        {
            throw new IllegalStateException(closed ? "the agent is closed" : "the agent is already started");
        }
        running = true;
        thread = new Thread(this::run, ctx.threadName());
        thread.setDaemon(true);
        thread.start();
        return this;
    }

    /**
     * Stops the thread, withdraws the ask if {@link OwnerAgentContext#withdrawOnClose} says so (leases run on),
     * and stops listening to the client; the client itself stays open (it is the caller's).
     */
    @Override
    public void close()
    {
        final Thread t;
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            closed = true;
            running = false;
            t = thread;
        }
        if (t != null && t != Thread.currentThread())
        {
            wakeups.release();
            try
            {
                t.join(timeout.toMillis() + ctx.heartbeatInterval().toMillis());
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
        final long ask = ledger.askOrderId();
        if (ctx.withdrawOnClose() && ask != 0)
        {
            try
            {
                client.call(Envelope.newBuilder().setCancel(Cancel.newBuilder().setOrderId(ask)), timeout);
                ledger.closed(ask);
            }
            catch (final IOException | TimeoutException | IllegalStateException ex)
            {
                listener.onError("withdraw the ask", String.valueOf(ex.getMessage()));
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
        terminated.countDown();
        client.removeListener(events);
        if (ctx.workloads() != null)
        {
            client.removeListener(ctx.workloads());
            ctx.workloads().close();
        }
        if (subscribed)
        {
            try
            {
                client.unsubscribe(market);
            }
            catch (final IllegalStateException ignored)
            {
                // disconnected or closed: nothing to unsubscribe from
            }
        }
    }

    /** The owner needs the machine back: cancel the ask with reclaim=true and post nothing until {@link #resume()}. */
    public void reclaim()
    {
        reclaimRequested = true;
        wakeups.release();
    }

    /** Ends a {@link #reclaim()}: the ask is posted again (unless the reclaim file still exists). */
    public void resume()
    {
        reclaimRequested = false;
        wakeups.release();
    }

    /**
     * Stops gracefully (see the class comment): withdraws the machine's asks with reclaim, heartbeats
     * until its last lease has ended or the deadline passed, then the agent's thread ends. Any thread.
     */
    public void stop()
    {
        stopRequested = true;
        wakeups.release();
    }

    /**
     * Stops at once: the agent's thread ends without waiting for the leases, which end MACHINE_OFFLINE
     * without notice once the exchange misses the machine's heartbeats. Any thread.
     *
     * @return the leases on the machine as last known, which this stop abandons.
     */
    public int stopNow()
    {
        final Thread t;
        synchronized (this)
        {
            running = false;
            t = thread;
        }
        if (t == null)
        {
            terminated.countDown();
        }
        else if (t != Thread.currentThread())
        {
            t.interrupt();
        }
        return stopped ? leasesLeft : ledger.leaseCount();
    }

    /** True from {@link #stop()} on. */
    public boolean isStopping()
    {
        return stopRequested;
    }

    /** True once a graceful stop has finished: the last lease ended, or the deadline passed. */
    public boolean isStopped()
    {
        return stopped;
    }

    /** Waits until the agent's thread has ended (a graceful stop finished, {@link #stopNow()}, {@link #close()}). */
    public boolean awaitStopped(final Duration wait) throws InterruptedException
    {
        return terminated.await(wait.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Waits as long as it takes until the agent's thread has ended. */
    public void awaitStopped() throws InterruptedException
    {
        terminated.await();
    }

    /** The leases on the machine, as the last portfolio and the account's events since say. */
    public int leasesOnMachine()
    {
        return ledger.leaseCount();
    }

    /** True from the reclaim's cancel until the trigger went away. */
    public boolean isReclaimed()
    {
        return reclaimed;
    }

    /** The machine's id, 0 until registered. */
    public long machineId()
    {
        return machineId;
    }

    /** The open ask's order id, 0 if none. */
    public long askOrderId()
    {
        return ledger.askOrderId();
    }

    /** The open ask's price in ticks, as last posted or replaced. */
    public long askPrice()
    {
        return ledger.askPrice();
    }

    /** The GPUs discovered, null until discovery worked. */
    public List<GpuInfo> gpus()
    {
        return gpus;
    }

    /** Heartbeats the exchange accepted. */
    public long heartbeats()
    {
        return heartbeats.get();
    }

    /** Telemetry samples that failed. */
    public long telemetryFailures()
    {
        return telemetryFailures.get();
    }

    public OwnerAgentContext context()
    {
        return ctx;
    }

    // ------------------------------------------------------------------------------------------
    // The duty cycle (the agent's thread)

    private void run()
    {
        try
        {
            final long intervalNs = ctx.heartbeatInterval().toNanos();
            while (running)
            {
                final long started = clock.nanoTime();
                try
                {
                    doWork();
                }
                catch (final RuntimeException ex)
                {
                    listener.onError("internal", ex.toString());
                }
                if (!running)
                {
                    return;
                }
                final long remaining = intervalNs - (clock.nanoTime() - started);
                // a wake-up (reclaim, resume, reconnect, stop, a lease's end) runs the next cycle early
                if (remaining > 0 && wakeups.tryAcquire(remaining, TimeUnit.NANOSECONDS))
                {
                    wakeups.drainPermits();
                }
            }
        }
        catch (final InterruptedException ex)
        {
            running = false;
        }
        finally
        {
            terminated.countDown();
        }
    }

    /**
     * One interval's work: discover, register, heartbeat, reclaim or resume, keep the ask. Blocks on the
     * exchange's answers; never on the client's event loop.
     *
     * @return how many of those steps did something.
     */
    public int doWork()
    {
        if (stopped)
        {
            return 0;
        }
        if (stopRequested && !stopping)
        {
            stopping = true;
            stopDeadlineNs = clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMs) + ctx.stopMargin().toNanos();
        }
        if (stopping && gpus == null)
        {
            // never discovered, so never registered by this run: no lease to wait for
            finishStop(0);
            return 1;
        }
        int work = 0;
        try
        {
            if (gpus == null)
            {
                if (!discover())
                {
                    return 0;
                }
                work++;
            }
            if (machineId == 0 || reregister)
            {
                if (!register())
                {
                    return work;
                }
                work++;
            }
            heartbeat();
            work++;
            if (!ledger.view().current())
            {
                work += readPortfolio();
            }
            if (stopping)
            {
                return work + drain();
            }
            final boolean wantReclaim = reclaimRequested || (ctx.reclaimFile() != null && Files.exists(ctx.reclaimFile()));
            if (wantReclaim && !reclaimed)
            {
                work += reclaimAsk();
            }
            else if (!wantReclaim && reclaimed)
            {
                reclaimed = false;
                listener.onResumed();
                work++;
            }
            if (!reclaimed && !reregister)
            {
                work += keepAsk();
            }
        }
        catch (final IOException | TimeoutException | IllegalStateException | RequestFailedException ex)
        {
            // disconnected, no answer in time, or a query refused (BUSY, RATE_LIMITED): next interval
            if (ex instanceof TimeoutException)
            {
                // an order left unanswered may be on the book all the same: read what is
                ledger.stale();
            }
            if (stopping)
            {
                if (!stopUnreachable)
                {
                    stopUnreachable = true;
                    listener.onStopUnreachable(String.valueOf(ex.getMessage()), stopLeftMs());
                }
            }
            else
            {
                listener.onError("exchange request", String.valueOf(ex.getMessage()));
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            running = false;
        }
        finally
        {
            if (stopping && !stopped && clock.nanoTime() - stopDeadlineNs >= 0)
            {
                finishStop(ledger.leaseCount());
            }
        }
        return work;
    }

    /**
     * One interval of a graceful stop (after the heartbeat): cancels the machine's asks with reclaim and
     * counts its leases; ends the stop when none is left.
     */
    private int drain() throws IOException, InterruptedException, TimeoutException
    {
        if (stopUnreachable)
        {
            // reached again: say again what the stop waits for
            stopUnreachable = false;
            stopReportedLeases = -1;
        }
        int reclaims = 0;
        for (final long orderId : ledger.asks())
        {
            final Response r = client.call(Envelope.newBuilder().setCancel(
                Cancel.newBuilder().setOrderId(orderId).setReclaim(true)), timeout());
            if (r.getReason() != Reason.REASON_OK && r.getReason() != Reason.UNKNOWN_ORDER)
            {
                listener.onError("reclaim", r.getReason() + " " + r.getMessage());
                continue;
            }
            ledger.closed(orderId);
            // the notices take effect a grace from now: wait for them, whenever the reclaim got through
            stopDeadlineNs = Math.max(stopDeadlineNs,
                clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMs) + ctx.stopMargin().toNanos());
            reclaimed = true;
            reclaims++;
            listener.onReclaimed(orderId);
        }
        final int leases = ledger.leaseCount();
        if (reclaims > 0)
        {
            // the reclaims' notices and ends come as events: count again next interval
            return reclaims;
        }
        if (leases == 0)
        {
            finishStop(0);
            return 1;
        }
        if (leases != stopReportedLeases)
        {
            stopReportedLeases = leases;
            listener.onStopWaiting(leases, stopLeftMs());
        }
        return 0;
    }

    private void finishStop(final int leases)
    {
        leasesLeft = leases;
        stopped = true;
        running = false;
        listener.onStopped(leases);
        synchronized (this)
        {
            if (thread == null)
            {
                terminated.countDown();
            }
        }
    }

    private long stopLeftMs()
    {
        return Math.max(0, TimeUnit.NANOSECONDS.toMillis(stopDeadlineNs - clock.nanoTime()));
    }

    /** The wait for one answer: the configured timeout, cut to what is left of a graceful stop's wait. */
    private Duration timeout()
    {
        if (!stopping)
        {
            return timeout;
        }
        final long leftMs = Math.max(MIN_STOP_REQUEST_TIMEOUT_MS, stopLeftMs());
        return leftMs < timeout.toMillis() ? Duration.ofMillis(leftMs) : timeout;
    }

    /**
     * Reads the account's portfolio, at the start and after every login: the ledger takes the machine's
     * asks and leases from it (on the event loop, in the order of the event stream), the workloads the
     * notices of the machine's leases and the leases whose workloads to take back.
     */
    private int readPortfolio() throws IOException, InterruptedException, TimeoutException
    {
        final Portfolio p = client.portfolio(timeout());
        if (!ledger.view().machineKnown())
        {
            // the exchange lost the machine: register it again, then read again
            reregister = true;
            ledger.stale();
            return 0;
        }
        if (ctx.workloads() != null)
        {
            ctx.workloads().onPortfolio(machineId, gpus, p);
        }
        return 1;
    }

    private boolean discover()
    {
        try
        {
            final List<GpuInfo> found = ctx.nvidiaSmi().discover();
            market = ctx.market() != null ? ctx.market() : found.get(0).marketSymbol();
            gpus = List.copyOf(found);
            listener.onDiscovered(gpus);
            return true;
        }
        catch (final NvidiaSmiException ex)
        {
            telemetryFailures.incrementAndGet();
            listener.onTelemetryFailed(ex);
            return false;
        }
    }

    private boolean register() throws IOException, InterruptedException, TimeoutException
    {
        reregister = false;
        final List<GpuInfo> found = gpus;
        final Response r = client.call(Envelope.newBuilder().setRegisterMachine(RegisterMachine.newBuilder()
            .setName(ctx.machineName()).setMarket(market).setGpus(found.size())
            .setVramGb((int)Math.min(Integer.MAX_VALUE, found.get(0).vramGb()))
            .setRegion(ctx.region()).setInterconnect(ctx.interconnect())), timeout());
        if (r.getReason() != Reason.REASON_OK)
        {
            listener.onRegisterRejected(r.getReason(), r.getMessage());
            return false;
        }
        final boolean changed = machineId != r.getAssignedId();
        machineId = r.getAssignedId();
        ledger.machine(machineId, found.size(), market);
        if (changed)
        {
            listener.onRegistered(machineId, ctx.machineName(), market, found.size());
        }
        for (final MarketInfo m : client.markets(timeout()).getMarketsList())
        {
            if (m.getSymbol().equals(market))
            {
                tick = Math.max(1, m.getTick());
                graceMs = Math.max(0, m.getGraceMs());
            }
        }
        if ((pricing.undercut() || clearing != null) && !subscribed)
        {
            client.subscribe(market);
            subscribed = true;
        }
        return true;
    }

    private void heartbeat() throws IOException, InterruptedException, TimeoutException
    {
        final MachineHeartbeat.Builder heartbeat = MachineHeartbeat.newBuilder().setMachineId(machineId);
        try
        {
            OwnerAgentTelemetry.addTo(heartbeat, ctx.nvidiaSmi().sample(), gpus);
            if (telemetryFailing)
            {
                telemetryFailing = false;
                listener.onTelemetryRecovered();
            }
        }
        catch (final NvidiaSmiException ex)
        {
            telemetryFailures.incrementAndGet();
            if (!telemetryFailing)
            {
                telemetryFailing = true;
                listener.onTelemetryFailed(ex);
            }
        }
        final Response r = client.call(Envelope.newBuilder().setMachineHeartbeat(heartbeat), timeout());
        if (r.getReason() == Reason.REASON_OK)
        {
            heartbeats.incrementAndGet();
        }
        else
        {
            if (r.getReason() == Reason.UNKNOWN_MACHINE || r.getReason() == Reason.NOT_OWNER)
            {
                reregister = true;
            }
            listener.onError("heartbeat", r.getReason() + " " + r.getMessage());
        }
    }

    private int reclaimAsk() throws IOException, InterruptedException, TimeoutException
    {
        final long orderId = ledger.askOrderId();
        if (orderId != 0)
        {
            final Response r = client.call(Envelope.newBuilder().setCancel(
                Cancel.newBuilder().setOrderId(orderId).setReclaim(true)), timeout());
            if (r.getReason() != Reason.REASON_OK && r.getReason() != Reason.UNKNOWN_ORDER)
            {
                listener.onError("reclaim", r.getReason() + " " + r.getMessage());
                return 0;
            }
            ledger.closed(orderId);
        }
        reclaimed = true;
        listener.onReclaimed(orderId);
        return 1;
    }

    /**
     * Posts, re-prices or grows the ask, from the ledger; returns 1 if it sent a command that the exchange
     * accepted. A refusal that says the ledger is wrong (the ask unknown, capacity the machine does not have)
     * makes the next interval read the portfolio again.
     */
    private int keepAsk() throws IOException, InterruptedException, TimeoutException
    {
        final MachineLedger.View v = ledger.view();
        if (!v.current())
        {
            return 0;
        }
        final int free = v.freeGpus();
        final long target = targetPrice(v);
        if (!v.hasAsk())
        {
            return free > 0 ? postAsk(free, target) : 0;
        }
        final boolean grow = v.askOpenGpus() < free;
        final boolean reprice = v.askPrice() != target && (v.askOpenGpus() > 0 || grow || clearing != null);
        if (!grow && !reprice)
        {
            return 0;
        }
        final long orderId = v.askOrderId();
        final Replace.Builder replace = Replace.newBuilder().setOrderId(orderId);
        if (grow)
        {
            replace.setGpus(free);
        }
        if (reprice)
        {
            replace.setPrice(target);
        }
        ledger.replacing(orderId, grow ? free : 0, reprice ? target : 0);
        final Response r = client.call(Envelope.newBuilder().setReplace(replace), timeout());
        if (r.getReason() == Reason.REASON_OK)
        {
            ledger.accepted(orderId);
            listener.onAskReplaced(orderId, grow ? free : v.askOpenGpus(), reprice ? target : v.askPrice());
            return 1;
        }
        ledger.refused(orderId);
        refusedAsk(orderId, r.getReason());
        listener.onAskRejected(orderId, r.getReason(), r.getMessage());
        return 0;
    }

    /** What a refused PlaceAsk or Replace says about the ledger. */
    private void refusedAsk(final long orderId, final Reason reason)
    {
        if (reason == Reason.UNKNOWN_ORDER)
        {
            ledger.closed(orderId);
            ledger.stale();
        }
        else if (reason == Reason.INSUFFICIENT_CAPACITY)
        {
            ledger.stale();
        }
    }

    private int postAsk(final int free, final long price) throws IOException, InterruptedException, TimeoutException
    {
        final long orderId = client.nextOrderId();
        ledger.placing(orderId, free, price);
        final Response r = client.call(Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder().setOrderId(orderId)
            .setMachineId(machineId).setGpus(free).setPrice(price)), timeout());
        if (r.getReason() != Reason.REASON_OK)
        {
            ledger.refused(orderId);
            refusedAsk(orderId, r.getReason());
            listener.onAskRejected(orderId, r.getReason(), r.getMessage());
            return 0;
        }
        ledger.accepted(orderId);
        listener.onAskPosted(orderId, free, price);
        return 1;
    }

    private long targetPrice(final MachineLedger.View ask) throws IOException, InterruptedException, TimeoutException
    {
        if (clearing != null)
        {
            return clearingPrice(ask);
        }
        if (!pricing.undercut())
        {
            return pricing.price();
        }
        final int levels;
        try
        {
            levels = client.eventLoop().submit(events::copyAsks).get(timeout().toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final ExecutionException ex)
        {
            throw new IllegalStateException("reading the book: " + ex.getCause(), ex.getCause());
        }
        if (levels < 0)
        {
            // no snapshot yet: keep the ask's price, or start at the asking price
            return ask.hasAsk() ? ask.askPrice() : pricing.price();
        }
        if (!ledger.accountAsksCurrent())
        {
            // read after the book's copy: the account's asks are then at least as new as the book's levels
            client.portfolio(timeout());
        }
        final int own = ledger.copyAccountAsks(accountAskPrices, accountAskGpus);
        return pricing.target(bookPrices, bookGpus, levels,
            ask.hasAsk() ? ask.askPrice() : 0, ask.hasAsk() ? ask.askOpenGpus() : 0, accountAskPrices, accountAskGpus, own,
            tick);
    }

    /** With clearing: the ask's price, re-priced once every clearEvery from the book's best bid. */
    private long clearingPrice(final MachineLedger.View ask) throws InterruptedException, TimeoutException
    {
        final long current = ask.hasAsk() ? ask.askPrice() : pricing.price();
        final long now = clock.nanoTime();
        if (cleared && now - lastClearNs < ctx.clearEvery().toNanos())
        {
            return current;
        }
        final long bestBid;
        try
        {
            bestBid = client.eventLoop().submit(events::bestBid).get(timeout().toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final ExecutionException ex)
        {
            throw new IllegalStateException("reading the book: " + ex.getCause(), ex.getCause());
        }
        cleared = true;
        lastClearNs = now;
        return clearing.next(current, ask.hasAsk() ? ask.askOpenGpus() : ask.freeGpus(), bestBid, tick);
    }

    // ------------------------------------------------------------------------------------------

    /** The agent's view of the client's callbacks: the book and the machine's events (the client's event loop). */
    private final class EventAdapter implements ClientListener
    {
        private BookView book;

        /** The book's best bid; 0 without one or without a valid book (event loop). */
        long bestBid()
        {
            return book == null || !book.isValid() || book.bidLevels() == 0 ? 0 : book.bestBid();
        }

        /** Copies the best ask levels into the agent's arrays; -1 without a valid book (event loop). */
        int copyAsks()
        {
            if (book == null || !book.isValid())
            {
                return -1;
            }
            final int levels = Math.min(BOOK_LEVELS, book.askLevels());
            for (int i = 0; i < levels; i++)
            {
                bookPrices[i] = book.askPrice(i);
                bookGpus[i] = book.askGpus(i);
            }
            return levels;
        }

        @Override
        public void onLoginAccepted(final LoginAccepted accepted)
        {
            // a new session: register again (same name, same id) before anything else, then read the portfolio
            reregister = true;
            ledger.stale();
            wakeups.release();
        }

        @Override
        public void onPortfolio(final long requestId, final Portfolio portfolio)
        {
            ledger.onPortfolio(portfolio);
        }

        @Override
        public void onEvent(final AccountEvent event)
        {
            if (ledger.onEvent(event))
            {
                switch (event.getKindCase())
                {
                    case LEASE_STARTED -> listener.onLeaseStarted(event.getLeaseStarted().getLeaseId(),
                        event.getLeaseStarted().getGpus(), event.getLeaseStarted().getPrice());
                    case LEASE_ENDED -> listener.onLeaseEnded(event.getLeaseEnded().getLeaseId(),
                        event.getLeaseEnded().getReason());
                    default ->
                    {
                    }
                }
            }
            if (event.getKindCase() == AccountEvent.KindCase.LEASE_ENDED && stopRequested)
            {
                // a graceful stop may be waiting for this one: count again now
                wakeups.release();
            }
        }

        @Override
        public void onBookSnapshot(final BookSnapshot snapshot)
        {
            if (snapshot.getMarket().equals(market))
            {
                if (book == null)
                {
                    book = new BookView(market);
                }
                book.onSnapshot(snapshot);
            }
        }

        @Override
        public void onBookUpdate(final BookUpdate update)
        {
            if (book != null && book.onUpdate(update) == BookView.Result.GAP)
            {
                try
                {
                    client.unsubscribe(market);
                    client.subscribe(market);
                }
                catch (final IllegalStateException ex)
                {
                    // disconnected: the client renews the subscription when it logs in again
                }
            }
        }

        @Override
        public void onMachineOnline(final AccountEvent event, final MachineOnline online)
        {
            if (online.getMachineId() == machineId)
            {
                listener.onMachineOnline(online.getMachineId());
            }
        }

        @Override
        public void onMachineOffline(final AccountEvent event, final MachineOffline offline)
        {
            if (offline.getMachineId() == machineId)
            {
                listener.onMachineOffline(offline.getMachineId());
            }
        }
    }
}
