package io.gpux.client.agent;

import io.gpux.common.Money;
import io.gpux.client.GpuxClient;
import io.gpux.client.RequestFailedException;
import io.gpux.proto.v1.Cancel;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Portfolio;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;

/**
 * The owner's agent on a GPU machine: it finds the GPUs with nvidia-smi, registers the machine, keeps
 * it online with heartbeats carrying GPU telemetry, and keeps an ask of its free GPUs on the book at
 * the price its {@link OwnerAgentPricing} says; when the owner needs the machine back it reclaims it.
 *
 * <pre>{@code
 * try (GpuxClient client = new GpuxClient(clientContext);
 *      OwnerAgent agent = new OwnerAgent(new OwnerAgentContext().client(client)
 *          .reservePrice(Money.parsePrice("2.0")).undercut(true).reclaimFile(Path.of("/run/gpux/reclaim"))))
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
 * The agent is an Agrona {@link Agent}: {@link #start()} runs it on its own thread with an
 * {@link AgentRunner} that waits, without spinning, until the next interval is due or a wake-up comes.
 * It reads time only from {@link OwnerAgentContext#nanoClock}, once per {@link #doWork()}, so it can be
 * driven by hand instead: each {@code doWork()} runs the interval's work when the clock says it is due.
 * The agent's state belongs to its runner's thread (or to whoever calls {@link #doWork()} when it is
 * driven by hand, never both). The book view belongs to the client's event loop, which hands a copy of its ask
 * levels to the agent's thread when asked. {@link #reclaim()}, {@link #resume()} and the getters may
 * be called from any thread.
 */
public final class OwnerAgent implements Agent, AutoCloseable
{
    private final OwnerAgentContext ctx;
    private final GpuxClient client;
    private final OwnerAgentListener listener;
    private final OwnerAgentPricing pricing;
    /** Null unless the agent clears (then the ask is re-priced every clearEveryNs). */
    private final ClearingPricing clearing;
    private long lastClearNs;
    private boolean cleared;
    private final Duration timeout;
    private final NanoClock clock;
    private final Semaphore wakeups = new Semaphore(0);
    private final CountDownLatch terminated = new CountDownLatch(1);
    private final MachineLedger ledger = new MachineLedger();
    private final OwnerAgentEvents events;
    private final AskKeeper asks;
    private final GracefulStop stop;
    private final MachineHeartbeats heartbeats;
    private final MachineRegistration machine;

    private volatile boolean running;
    private volatile boolean closed;
    private volatile boolean reclaimRequested;
    private final AtomicBoolean woken = new AtomicBoolean();
    private final long intervalNs;
    private AgentRunner runner;
    private Thread thread;
    private long nextCycleNs;
    private long cycles;

    public OwnerAgent(final OwnerAgentContext context)
    {
        this.ctx = context.conclude();
        this.client = ctx.client();
        this.listener = ctx.listener();
        this.pricing = new OwnerAgentPricing(ctx.reservePrice(), ctx.price(), ctx.undercut());
        this.clearing = ctx.clearEvery() == null ? null : new ClearingPricing(ctx.reservePrice(), ctx.price());
        this.timeout = ctx.requestTimeout();
        this.clock = ctx.nanoClock();
        this.intervalNs = ctx.heartbeatInterval().toNanos();
        this.events = new OwnerAgentEvents(this, client, listener, ledger);
        final ClearingPricing clearing = ctx.clearEvery() == null ? null : new ClearingPricing(ctx.reservePrice(), ctx.price());
        this.asks = new AskKeeper(client, listener, pricing, clearing, ctx.clearEvery(), ctx.nanoClock(), ledger, events);
        this.heartbeats = new MachineHeartbeats(client, listener, ctx.nvidiaSmi());
        this.machine = new MachineRegistration(ctx, ledger, asks, heartbeats, pricing.undercut() || clearing != null);
        this.stop = new GracefulStop(listener, ledger, asks, clock, timeout, ctx.stopMargin(), this::stopFinished);
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
        final UntilDue idle = new UntilDue(clock, wakeups, () -> nextCycleNs, () -> running = false);
        runner = new AgentRunner(idle, this::onRunnerError, null, this);
        AgentRunner.startOnThread(runner, task ->
        {
            thread = new Thread(task, ctx.threadName());
            thread.setDaemon(true);
            return thread;
        });
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
        machine.unsubscribe();
    }

    /** The owner needs the machine back: cancel the ask with reclaim=true and post nothing until {@link #resume()}. */
    public void reclaim()
    {
        reclaimRequested = true;
        wake();
    }

    /** Ends a {@link #reclaim()}: the ask is posted again (unless the reclaim file still exists). */
    public void resume()
    {
        reclaimRequested = false;
        wake();
    }

    /**
     * Stops gracefully (see the class comment): withdraws the machine's asks with reclaim, heartbeats
     * until its last lease has ended or the deadline passed, then the agent's thread ends. Any thread.
     */
    public void stop()
    {
        stop.request();
        wake();
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
        return stop.stopped() ? stop.leasesLeft() : ledger.leaseCount();
    }

    /** True from {@link #stop()} on. */
    public boolean isStopping()
    {
        return stop.requested();
    }

    /** True once a graceful stop has finished: the last lease ended, or the deadline passed. */
    public boolean isStopped()
    {
        return stop.stopped();
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
        return asks.reclaimed();
    }

    /** The machine's id, 0 until registered. */
    public long machineId()
    {
        return machine.machineId();
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
        return machine.gpus();
    }

    /** Heartbeats the exchange accepted. */
    public long heartbeats()
    {
        return heartbeats.accepted();
    }

    /** Telemetry samples that failed. */
    public long telemetryFailures()
    {
        return heartbeats.telemetryFailures();
    }

    public OwnerAgentContext context()
    {
        return ctx;
    }

    /** The machine's market, null until discovery worked. */
    String market()
    {
        return machine.market();
    }

    /** Runs the next interval's work now (a reclaim, a resume, a stop, a new session, a lease's end). Any thread. */
    void wake()
    {
        woken.set(true);
        wakeups.release();
    }

    /** A new session (client event loop): the machine is registered again and the portfolio read again. */
    void onNewSession()
    {
        machine.registerAgain();
        ledger.stale();
        wake();
    }

    private void stopFinished()
    {
        running = false;
        synchronized (this)
        {
            if (thread == null)
            {
                terminated.countDown();
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // The duty cycle (the agent's thread)

    /**
     * Runs the interval's work when it is due: at the first call, then once the injected clock has moved
     * a heartbeat interval past the last cycle's start, or at once after a wake-up (a reclaim, a resume,
     * a stop, a new session, a lease's end during a stop). Otherwise it returns 0 at once, so a runner
     * idles, and a test moves the clock instead of sleeping.
     *
     * @return how many of the cycle's steps did something; 0 when none was due.
     * @throws AgentTerminationException on the agent's runner once the agent has ended (its graceful
     *                                   stop finished, {@link #stopNow()}, {@link #close()}).
     */
    @Override
    public int doWork()
    {
        if (runner != null && !running)
        {
            throw new AgentTerminationException("the owner agent has ended");
        }
        final long nowNs = clock.nanoTime();
        if (!woken.getAndSet(false) && cycles > 0 && nowNs - nextCycleNs < 0)
        {
            return 0;
        }
        cycles++;
        nextCycleNs = nowNs + intervalNs;
        return dutyCycle();
    }

    @Override
    public String roleName()
    {
        return ctx.threadName();
    }

    @Override
    public void onClose()
    {
        terminated.countDown();
    }

    /** The runner's errors: a step that failed unexpectedly is reported, and the next interval runs as usual. */
    private void onRunnerError(final Throwable error)
    {
        if (!(error instanceof AgentTerminationException))
        {
            listener.onError("internal", error.toString());
        }
    }

    /**
     * One interval's work, step by step: discover, register, heartbeat, read the portfolio if the ledger
     * is stale, then either the graceful stop's step or the reclaim's and the ask's. Blocks on the
     * exchange's answers; never on the client's event loop.
     */
    private int dutyCycle()
    {
        if (stop.stopped())
        {
            return 0;
        }
        stop.begin(machine.graceMs());
        if (stop.stopping() && machine.gpus() == null)
        {
            // never discovered, so never registered by this run: no lease to wait for
            stop.finish(0);
            return 1;
        }
        int work = 0;
        try
        {
            if (machine.gpus() == null)
            {
                if (!machine.discover())
                {
                    return 0;
                }
                work++;
            }
            if (machine.needed())
            {
                if (!machine.register(stop.timeout()))
                {
                    return work;
                }
                work++;
            }
            if (!heartbeats.beat(machine.machineId(), machine.gpus(), stop.timeout()))
            {
                machine.registerAgain();
            }
            work++;
            if (!ledger.view().current())
            {
                work += readPortfolio();
            }
            if (stop.stopping())
            {
                return work + stop.drain(machine.graceMs());
            }
            final boolean wantReclaim = reclaimRequested || (ctx.reclaimFile() != null && Files.exists(ctx.reclaimFile()));
            if (wantReclaim && !asks.reclaimed())
            {
                work += asks.reclaim(stop.timeout());
            }
            else if (!wantReclaim && asks.reclaimed())
            {
                asks.resume();
                listener.onResumed();
                work++;
            }
            if (!asks.reclaimed() && !machine.needed())
            {
                work += asks.keep(machine.machineId(), stop.timeout());
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
            if (stop.stopping())
            {
                stop.unreachable(String.valueOf(ex.getMessage()));
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
            stop.checkDeadline();
        }
        return work;
    }

    /**
     * Reads the account's portfolio, at the start and after every login: the ledger takes the machine's
     * asks and leases from it (on the event loop, in the order of the event stream), the workloads the
     * notices of the machine's leases and the leases whose workloads to take back.
     */
    private int readPortfolio() throws IOException, InterruptedException, TimeoutException
    {
        final Portfolio p = client.portfolio(stop.timeout());
        if (!ledger.view().machineKnown())
        {
            // the exchange lost the machine: register it again, then read again
            machine.registerAgain();
            ledger.stale();
            return 0;
        }
        if (ctx.workloads() != null)
        {
            ctx.workloads().onPortfolio(machine.machineId(), machine.gpus(), p);
        }
        return 1;
    }
}
