package io.gpux.client.agent;

import io.gpux.client.GpuxClient;
import io.gpux.proto.v1.Cancel;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Replace;
import io.gpux.proto.v1.Response;
import org.agrona.concurrent.NanoClock;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The owner agent's ask: posted for the machine's free GPUs, re-priced with a Replace (the same order
 * id) when the pricing's target moved, grown when GPUs came free outside it, and cancelled with
 * reclaim when the owner needs the machine. Works from the {@link MachineLedger} and, when
 * undercutting, from the book's best asks less the account's own. The agent's thread only.
 */
final class AskKeeper
{
    private static final int BOOK_LEVELS = 32;
    /** The most of the account's other asks in the market that undercutting leaves out of the book. */
    private static final int ACCOUNT_ASKS = 256;

    private final GpuxClient client;
    private final OwnerAgentListener listener;
    private final OwnerAgentPricing pricing;
    /** Null unless the agent clears (then the ask is re-priced every clearEveryNs). */
    private final ClearingPricing clearing;
    private final long clearEveryNs;
    private final NanoClock clock;
    private long lastClearNs;
    private boolean cleared;
    private final MachineLedger ledger;
    private final OwnerAgentEvents events;
    private final long[] bookPrices = new long[BOOK_LEVELS];
    private final long[] bookGpus = new long[BOOK_LEVELS];
    private final long[] accountAskPrices = new long[ACCOUNT_ASKS];
    private final long[] accountAskGpus = new long[ACCOUNT_ASKS];
    private long tick = 1;
    private volatile boolean reclaimed;

    AskKeeper(final GpuxClient client, final OwnerAgentListener listener, final OwnerAgentPricing pricing,
        final ClearingPricing clearing, final Duration clearEvery, final NanoClock clock, final MachineLedger ledger,
        final OwnerAgentEvents events)
    {
        this.clearing = clearing;
        this.clearEveryNs = clearEvery == null ? 0 : clearEvery.toNanos();
        this.clock = clock;
        this.client = client;
        this.listener = listener;
        this.pricing = pricing;
        this.ledger = ledger;
        this.events = events;
    }

    /** The market's tick, as its MarketInfo says. */
    void tick(final long tick)
    {
        this.tick = Math.max(1, tick);
    }

    /** True from the reclaim's cancel until the trigger went away. Any thread. */
    boolean reclaimed()
    {
        return reclaimed;
    }

    /** The reclaim trigger went away: the ask may be posted again. */
    void resume()
    {
        reclaimed = false;
    }

    /**
     * The owner needs the machine back: cancels the ask (if any) with {@code reclaim=true}, so its renters
     * get OWNER_RECLAIM notices; no ask is posted until {@link #resume()}.
     *
     * @return 1 if reclaimed, 0 if the exchange refused (reported): the next interval tries again.
     */
    int reclaim(final Duration timeout) throws IOException, InterruptedException, TimeoutException
    {
        final long orderId = ledger.askOrderId();
        if (orderId != 0 && !cancelWithReclaim(orderId, timeout))
        {
            return 0;
        }
        reclaimed = true;
        listener.onReclaimed(orderId);
        return 1;
    }

    /**
     * Cancels one of the machine's asks with {@code reclaim=true}, as a graceful stop does with each.
     *
     * @return false if the exchange refused (reported): the next interval tries again.
     */
    boolean reclaim(final long orderId, final Duration timeout) throws IOException, InterruptedException, TimeoutException
    {
        if (!cancelWithReclaim(orderId, timeout))
        {
            return false;
        }
        reclaimed = true;
        listener.onReclaimed(orderId);
        return true;
    }

    private boolean cancelWithReclaim(final long orderId, final Duration timeout) throws IOException, InterruptedException, TimeoutException
    {
        final Response r = client.call(Envelope.newBuilder().setCancel(
            Cancel.newBuilder().setOrderId(orderId).setReclaim(true)), timeout);
        if (r.getReason() != Reason.REASON_OK && r.getReason() != Reason.UNKNOWN_ORDER)
        {
            listener.onError("reclaim", r.getReason() + " " + r.getMessage());
            return false;
        }
        ledger.closed(orderId);
        return true;
    }

    /**
     * Posts, re-prices or grows the ask, from the ledger; returns 1 if it sent a command that the exchange
     * accepted. A refusal that says the ledger is wrong (the ask unknown, capacity the machine does not have)
     * makes the next interval read the portfolio again.
     */
    int keep(final long machineId, final Duration timeout) throws IOException, InterruptedException, TimeoutException
    {
        final MachineLedger.View v = ledger.view();
        if (!v.current())
        {
            return 0;
        }
        final int free = v.freeGpus();
        final long target = targetPrice(v, timeout);
        if (!v.hasAsk())
        {
            return free > 0 ? post(machineId, free, target, timeout) : 0;
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
        final Response r = client.call(Envelope.newBuilder().setReplace(replace), timeout);
        if (r.getReason() == Reason.REASON_OK)
        {
            ledger.accepted(orderId);
            listener.onAskReplaced(orderId, grow ? free : v.askOpenGpus(), reprice ? target : v.askPrice());
            return 1;
        }
        ledger.refused(orderId);
        refused(orderId, r.getReason());
        listener.onAskRejected(orderId, r.getReason(), r.getMessage());
        return 0;
    }

    /** What a refused PlaceAsk or Replace says about the ledger. */
    private void refused(final long orderId, final Reason reason)
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

    private int post(final long machineId, final int free, final long price, final Duration timeout)
        throws IOException, InterruptedException, TimeoutException
    {
        final long orderId = client.nextOrderId();
        ledger.placing(orderId, free, price);
        final Response r = client.call(Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder().setOrderId(orderId)
            .setMachineId(machineId).setGpus(free).setPrice(price)), timeout);
        if (r.getReason() != Reason.REASON_OK)
        {
            ledger.refused(orderId);
            refused(orderId, r.getReason());
            listener.onAskRejected(orderId, r.getReason(), r.getMessage());
            return 0;
        }
        ledger.accepted(orderId);
        listener.onAskPosted(orderId, free, price);
        return 1;
    }

    private long targetPrice(final MachineLedger.View ask, final Duration timeout) throws IOException, InterruptedException, TimeoutException
    {
        if (clearing != null)
        {
            return clearingPrice(ask, timeout);
        }
        if (!pricing.undercut())
        {
            return pricing.price();
        }
        final int levels;
        try
        {
            levels = client.eventLoop().submit(() -> events.copyAsks(bookPrices, bookGpus))
                .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
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
            client.portfolio(timeout);
        }
        final int own = ledger.copyAccountAsks(accountAskPrices, accountAskGpus);
        return pricing.target(bookPrices, bookGpus, levels,
            ask.hasAsk() ? ask.askPrice() : 0, ask.hasAsk() ? ask.askOpenGpus() : 0, accountAskPrices, accountAskGpus, own,
            tick);
    }

    /** With clearing: the ask's price, re-priced once every clearEvery from the book's best bid. */
    private long clearingPrice(final MachineLedger.View ask, final Duration timeout) throws InterruptedException, TimeoutException
    {
        final long current = ask.hasAsk() ? ask.askPrice() : pricing.price();
        final long now = clock.nanoTime();
        if (cleared && now - lastClearNs < clearEveryNs)
        {
            return current;
        }
        final long bestBid;
        try
        {
            bestBid = client.eventLoop().submit(events::bestBid).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final ExecutionException ex)
        {
            throw new IllegalStateException("reading the book: " + ex.getCause(), ex.getCause());
        }
        cleared = true;
        lastClearNs = now;
        return clearing.next(current, ask.hasAsk() ? ask.askOpenGpus() : ask.freeGpus(), bestBid, tick);
    }
}
