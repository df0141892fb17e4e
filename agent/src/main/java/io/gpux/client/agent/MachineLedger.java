package io.gpux.client.agent;

import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.EndReason;
import io.gpux.proto.v1.Fill;
import io.gpux.proto.v1.LeaseInfo;
import io.gpux.proto.v1.LeaseState;
import io.gpux.proto.v1.MachineInfo;
import io.gpux.proto.v1.OpenOrder;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.Side;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The owner agent's picture of its machine: the machine's open asks and the one the agent keeps (its
 * price and open GPUs), and the machine's leases (their GPUs, the ask they came from, their notices).
 * A {@link Portfolio} sets it whole (at the agent's start and after every login); from then on the
 * account's events keep it, in the order the exchange sent them:
 * <ul>
 *   <li>{@code Accepted} of the agent's own PlaceAsk or Replace sets the ask's open GPUs and price;</li>
 *   <li>an owner-side {@code Fill} of the machine's ask makes or grows a lease and takes GPUs from the ask (or,
 *   with {@code preempts_lease_id}, from the preempted lease, which gives the rest back to its ask when it ends);</li>
 *   <li>{@code PreemptNotice} marks a lease noticed; {@code LeaseEnded} removes it;</li>
 *   <li>{@code Cancelled} closes an ask.</li>
 * </ul>
 * It also keeps the account's other asks in the machine's market (those of the owner's other machines, and
 * any of this machine's besides the kept one), with their prices and open GPUs, so that undercutting leaves
 * them out of the best competing ask. The portfolio sets them; a {@code Fill} or {@code Cancelled} of one
 * is applied; an {@code Accepted} of an order the agent did not send (another machine's ask placed or
 * re-priced, which carries no price) or the end of a lease not on this machine (GPUs perhaps back on
 * another machine's ask) makes them stale until the next portfolio.
 * The gateway sends a Portfolio after every event it reflects; one that runs ahead of the events
 * delivered (a resend in progress) makes the events up to its {@code last_seq} pass unapplied.
 *
 * <p>Threading: the client's event loop applies events and portfolios; the agent's thread reads and
 * announces its own orders. Every method holds the ledger's lock briefly.
 */
final class MachineLedger
{
    /** A lease on the machine. */
    private static final class MachineLease
    {
        int gpus;
        /** The ask its GPUs came from (0 when a portfolio told of it). */
        long sourceAsk;
        boolean started;
        long noticeEffectiveMs;
        /** GPUs that waiting leases will take from this one when it ends. */
        int takenByWaiting;
        /** The leases this one preempted, and the GPUs it takes from each. */
        Map<Long, Integer> victims;
    }

    /** Another ask of the account in the machine's market: its price and open GPUs. */
    private static final class AccountAsk
    {
        long price;
        int openGpus;
    }

    /** What the agent's thread needs of the ledger for one interval. */
    record View(boolean current, boolean machineKnown, long askOrderId, long askPrice, int askOpenGpus, int freeGpus,
        int leases)
    {
        boolean hasAsk()
        {
            return askOrderId != 0;
        }
    }

    private final Map<Long, MachineLease> leases = new HashMap<>();
    private final Set<Long> asks = new LinkedHashSet<>();
    private final Map<Long, AccountAsk> accountAsks = new HashMap<>();
    private boolean accountAsksCurrent;
    private String market = "";
    private long machineId;
    private int machineGpus;
    private boolean machineKnown = true;
    private boolean current;
    private long skipThrough;

    private long askOrderId;
    private long askPrice;
    private int askOpenGpus;

    private long pendingOrderId;
    private boolean pendingPlace;
    private int pendingGpus;
    private long pendingPrice;

    /** The machine is registered: its id, GPUs and market. Another id than before empties the ledger. */
    synchronized void machine(final long id, final int gpus, final String marketSymbol)
    {
        market = marketSymbol;
        if (id != machineId)
        {
            leases.clear();
            asks.clear();
            accountAsks.clear();
            accountAsksCurrent = false;
            askOrderId = 0;
            askPrice = 0;
            askOpenGpus = 0;
            current = false;
        }
        machineId = id;
        machineGpus = gpus;
    }

    /** A new session: what happened while disconnected is read from the next portfolio. */
    synchronized void stale()
    {
        current = false;
    }

    synchronized View view()
    {
        return new View(current, machineKnown, askOrderId, askPrice, askOpenGpus, freeGpus(), leases.size());
    }

    /** The machine's GPUs less those of its leases (a waiting lease's too, as the portfolio counts them). */
    private int freeGpus()
    {
        int leased = 0;
        for (final MachineLease l : leases.values())
        {
            leased += l.gpus;
        }
        return Math.max(0, machineGpus - leased);
    }

    synchronized long askOrderId()
    {
        return askOrderId;
    }

    synchronized long askPrice()
    {
        return askPrice;
    }

    synchronized int leaseCount()
    {
        return leases.size();
    }

    /** The machine's open asks, the kept one among them. */
    synchronized List<Long> asks()
    {
        return new ArrayList<>(asks);
    }

    /** False while an event says the account's other asks may have changed in ways only a portfolio tells. */
    synchronized boolean accountAsksCurrent()
    {
        return accountAsksCurrent;
    }

    /**
     * Copies the account's other asks in the market (not the kept one) into the arrays.
     *
     * @return how many it copied, at most the arrays' length.
     */
    synchronized int copyAccountAsks(final long[] prices, final long[] gpus)
    {
        int n = 0;
        for (final AccountAsk a : accountAsks.values())
        {
            if (n == prices.length)
            {
                break;
            }
            if (a.openGpus > 0)
            {
                prices[n] = a.price;
                gpus[n] = a.openGpus;
                n++;
            }
        }
        return n;
    }

    /** The notices of the machine's leases: lease id to effective time. */
    synchronized Map<Long, Long> notices()
    {
        final Map<Long, Long> notices = new HashMap<>();
        leases.forEach((id, l) ->
        {
            if (l.noticeEffectiveMs != 0)
            {
                notices.put(id, l.noticeEffectiveMs);
            }
        });
        return notices;
    }

    // ---- the agent's own orders (its thread), before they are sent

    /** A PlaceAsk about to go out: its Accepted makes it the kept ask. */
    synchronized void placing(final long orderId, final int gpus, final long price)
    {
        pendingOrderId = orderId;
        pendingPlace = true;
        pendingGpus = gpus;
        pendingPrice = price;
    }

    /** A Replace of the kept ask about to go out; 0 for what it leaves unchanged. */
    synchronized void replacing(final long orderId, final int gpus, final long price)
    {
        pendingOrderId = orderId;
        pendingPlace = false;
        pendingGpus = gpus;
        pendingPrice = price;
    }

    /** The exchange accepted the order: applied now unless its Accepted already was. */
    synchronized void accepted(final long orderId)
    {
        if (orderId == pendingOrderId)
        {
            applyPending();
        }
    }

    /** The exchange refused the order. */
    synchronized void refused(final long orderId)
    {
        if (orderId == pendingOrderId)
        {
            pendingOrderId = 0;
        }
    }

    /** The ask is no longer open (cancelled, or unknown to the exchange). */
    synchronized void closed(final long orderId)
    {
        asks.remove(orderId);
        accountAsks.remove(orderId);
        if (orderId == askOrderId)
        {
            askOrderId = 0;
            askPrice = 0;
            askOpenGpus = 0;
        }
    }

    // ---- the client's event loop

    /** Sets the ledger from a portfolio of the account, given in the order of the event stream. */
    synchronized void onPortfolio(final Portfolio p)
    {
        if (machineId == 0)
        {
            return;
        }
        skipThrough = Math.max(skipThrough, p.getLastSeq());
        machineKnown = false;
        for (final MachineInfo m : p.getMachinesList())
        {
            if (m.getMachineId() == machineId)
            {
                machineKnown = true;
                machineGpus = m.getGpus();
            }
        }
        leases.clear();
        for (final LeaseInfo info : p.getLeasesList())
        {
            if (!info.getRenter() && info.getMachineId() == machineId)
            {
                final MachineLease l = new MachineLease();
                l.gpus = info.getGpus();
                l.started = info.getState() != LeaseState.PENDING;
                l.noticeEffectiveMs = info.getState() == LeaseState.PREEMPTING ? info.getNoticeEffectiveMs() : 0;
                leases.put(info.getLeaseId(), l);
            }
        }
        asks.clear();
        accountAsks.clear();
        OpenOrder kept = null;
        for (final OpenOrder o : p.getOrdersList())
        {
            if (o.getSide() == Side.ASK && o.getMarket().equals(market))
            {
                final AccountAsk a = new AccountAsk();
                a.price = o.getPrice();
                a.openGpus = o.getOpenGpus();
                accountAsks.put(o.getOrderId(), a);
            }
            if (o.getSide() == Side.ASK && o.getMachineId() == machineId)
            {
                asks.add(o.getOrderId());
                // the kept ask, else the first of the machine's (one an earlier run left, adopted)
                if (kept == null || o.getOrderId() == askOrderId)
                {
                    kept = o;
                }
            }
        }
        askOrderId = kept == null ? 0 : kept.getOrderId();
        askPrice = kept == null ? 0 : kept.getPrice();
        askOpenGpus = kept == null ? 0 : kept.getOpenGpus();
        if (kept != null)
        {
            accountAsks.remove(kept.getOrderId());
        }
        current = true;
        accountAsksCurrent = true;
    }

    /**
     * Applies one account event.
     *
     * @return true if it started, noticed or ended a lease of the machine.
     */
    synchronized boolean onEvent(final AccountEvent e)
    {
        if (e.getSeq() <= skipThrough || machineId == 0)
        {
            return false;
        }
        switch (e.getKindCase())
        {
            case ACCEPTED ->
            {
                final long orderId = e.getAccepted().getOrderId();
                if (orderId == pendingOrderId)
                {
                    applyPending();
                }
                else if (orderId != askOrderId)
                {
                    // an order the agent did not send: perhaps another machine's ask, placed or re-priced
                    accountAsksCurrent = false;
                }
            }
            case REJECTED -> refused(e.getRejected().getOrderId());
            case CANCELLED -> closed(e.getCancelled().getOrderId());
            case FILL -> fill(e.getFill());
            case LEASE_STARTED ->
            {
                if (!e.getLeaseStarted().getRenter() && e.getLeaseStarted().getMachineId() == machineId)
                {
                    final MachineLease l = leases.computeIfAbsent(e.getLeaseStarted().getLeaseId(), id -> new MachineLease());
                    if (l.gpus == 0)
                    {
                        l.gpus = e.getLeaseStarted().getGpus();
                    }
                    l.started = true;
                    return true;
                }
            }
            case PREEMPT_NOTICE ->
            {
                final MachineLease l = leases.get(e.getPreemptNotice().getLeaseId());
                if (l != null && l.noticeEffectiveMs == 0)
                {
                    l.noticeEffectiveMs = e.getPreemptNotice().getEffectiveMs();
                    return true;
                }
            }
            case LEASE_ENDED ->
            {
                if (ended(e.getLeaseEnded().getLeaseId(), e.getLeaseEnded().getReason()))
                {
                    return true;
                }
                // not this machine's: its GPUs may be back on another machine's ask
                accountAsksCurrent = false;
            }
            default ->
            {
            }
        }
        return false;
    }

    private void applyPending()
    {
        if (pendingPlace)
        {
            asks.add(pendingOrderId);
            askOrderId = pendingOrderId;
            askOpenGpus = pendingGpus;
            askPrice = pendingPrice;
        }
        else if (pendingOrderId == askOrderId)
        {
            askOpenGpus = pendingGpus != 0 ? pendingGpus : askOpenGpus;
            askPrice = pendingPrice != 0 ? pendingPrice : askPrice;
        }
        pendingOrderId = 0;
    }

    private void fill(final Fill f)
    {
        final long victimId = f.getPreemptsLeaseId();
        final MachineLease victim = victimId == 0 ? null : leases.get(victimId);
        final AccountAsk other = victimId == 0 ? accountAsks.get(f.getOrderId()) : null;
        if (other != null)
        {
            other.openGpus = Math.max(0, other.openGpus - f.getGpus());
        }
        if (!asks.contains(f.getOrderId()) && victim == null)
        {
            return; // a fill of another machine's ask, or of a bid of the account
        }
        final MachineLease l = leases.computeIfAbsent(f.getLeaseId(), id -> new MachineLease());
        if (l.sourceAsk == 0)
        {
            l.sourceAsk = f.getOrderId();
        }
        l.gpus += f.getGpus();
        if (victim != null)
        {
            victim.takenByWaiting += f.getGpus();
            if (l.victims == null)
            {
                l.victims = new HashMap<>();
            }
            l.victims.merge(victimId, f.getGpus(), Integer::sum);
        }
        else if (f.getOrderId() == askOrderId)
        {
            askOpenGpus = Math.max(0, askOpenGpus - f.getGpus());
        }
    }

    private boolean ended(final long leaseId, final EndReason reason)
    {
        final MachineLease l = leases.remove(leaseId);
        if (l == null)
        {
            return false;
        }
        int preempted = 0;
        if (l.victims != null)
        {
            for (final Map.Entry<Long, Integer> v : l.victims.entrySet())
            {
                preempted += v.getValue();
                final MachineLease victim = leases.get(v.getKey());
                if (victim != null)
                {
                    // a waiting lease gone before its victim: the victim gives all its GPUs back
                    victim.takenByWaiting -= v.getValue();
                }
            }
        }
        // a waiting lease holds none of its victims' GPUs yet; a reclaimed lease's GPUs stay idle
        final int back = reason == EndReason.OWNER_RECLAIMED ? 0
            : (l.started ? l.gpus : l.gpus - preempted) - Math.max(0, l.takenByWaiting);
        if (back > 0 && l.sourceAsk != 0 && l.sourceAsk == askOrderId)
        {
            askOpenGpus = Math.min(askOpenGpus + back, freeGpus());
        }
        return true;
    }
}
