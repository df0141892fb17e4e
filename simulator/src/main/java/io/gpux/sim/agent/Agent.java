package io.gpux.sim.agent;

import io.gpux.client.ClientListener;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.BookSnapshot;
import io.gpux.proto.v1.BookUpdate;
import io.gpux.proto.v1.Fill;
import io.gpux.proto.v1.LeaseEnded;
import io.gpux.proto.v1.LeaseStarted;
import io.gpux.proto.v1.NoticeReason;
import io.gpux.proto.v1.Rejected;
import io.gpux.sim.market.MarketAccess;
import io.gpux.sim.report.AgentRecords;
import io.gpux.sim.report.LeaseRecord;
import io.gpux.sim.report.LiveCounters;
import java.util.SplittableRandom;

/**
 * An agent of the market: one account, one {@link MarketAccess}, its own random source, its own
 * records. Everything it does runs on its access's thread ({@link #start()} and {@link #stop()} hop
 * onto it), driven by its timers and the events it receives, so the same seed and the same events
 * give the same decisions.
 *
 * <p>The base class keeps the account's lease records from its events: the renter's side (fills of
 * its bids, lease start, notice, end) and the owner's side (fills of its asks, lease start and end),
 * and checks that account events arrive numbered without a gap.
 */
public abstract class Agent implements ClientListener
{
    protected final String name;
    protected final SplittableRandom rng;
    protected final AgentParameters params;
    protected final AgentRecords records;
    protected final LiveCounters live;
    protected MarketAccess access;
    /** The exchange time of the account event being handled. */
    protected long eventTimeMs;
    protected boolean stopped;

    protected Agent(final String name, final String kind, final long seed, final AgentParameters params, final LiveCounters live)
    {
        this.name = name;
        this.rng = new SplittableRandom(seed);
        this.params = params;
        this.records = new AgentRecords(name, kind);
        this.live = live;
    }

    public String name()
    {
        return name;
    }

    public AgentRecords records()
    {
        return records;
    }

    /** Connects the agent to its access (before the access delivers anything). */
    public void attach(final MarketAccess marketAccess)
    {
        this.access = marketAccess;
        marketAccess.addListener(this);
        marketAccess.onRelease(leaseId ->
        {
            final LeaseRecord lease = records.renterLeases.get(leaseId);
            if (lease != null && lease.releaseMs < 0)
            {
                lease.releaseMs = marketAccess.now();
            }
        });
    }

    /** The books it keeps from market data, or null (then it ignores market data). */
    protected MarketBooks books()
    {
        return null;
    }

    @Override
    public void onBookSnapshot(final BookSnapshot snapshot)
    {
        final MarketBooks books = books();
        if (books != null)
        {
            books.onSnapshot(snapshot);
        }
    }

    @Override
    public void onBookUpdate(final BookUpdate update)
    {
        final MarketBooks books = books();
        if (books != null)
        {
            books.onUpdate(update, access);
        }
    }

    public MarketAccess access()
    {
        return access;
    }

    /** Starts acting (on the agent's thread). */
    public final void start()
    {
        access.execute(this::onStart);
    }

    /** Winds down (on the agent's thread): no new orders; renters release their leases, sellers withdraw their asks. */
    public final void stop()
    {
        access.execute(() ->
        {
            stopped = true;
            onStop();
        });
    }

    /** Stops for good, timers included (heartbeats): after the market has wound down. */
    public final void halt()
    {
        access.execute(this::onHalt);
    }

    protected abstract void onStart();

    protected abstract void onStop();

    protected void onHalt()
    {
    }

    /** Whether an order id is one of this agent's asks (fills of it are the owner's side of a lease). */
    protected boolean isOwnAsk(final long orderId)
    {
        return false;
    }

    /** The machine an ask of this agent offers (0 if not an ask of it). */
    protected long machineOfAsk(final long orderId)
    {
        return 0;
    }

    // ------------------------------------------------------------------------------------------
    // Account events

    @Override
    public void onEvent(final AccountEvent event)
    {
        eventTimeMs = event.getTimeMs();
        final long seq = event.getSeq();
        if (records.lastSeq >= 0 && seq != records.lastSeq + 1)
        {
            records.seqBreaks++;
        }
        if (records.firstSeq < 0)
        {
            records.firstSeq = seq;
        }
        records.lastSeq = seq;
        records.events++;
    }

    @Override
    public void onRejected(final AccountEvent event, final Rejected rejected)
    {
        records.rejects.merge(rejected.getCommand().name() + ":" + rejected.getReason().name(), 1L, Long::sum);
    }

    @Override
    public void onFill(final AccountEvent event, final Fill fill)
    {
        final LeaseRecord lease;
        if (isOwnAsk(fill.getOrderId()))
        {
            lease = ownerLease(fill.getLeaseId());
            if (lease.machineId == 0)
            {
                lease.machineId = machineOfAsk(fill.getOrderId());
            }
            onSale(event, fill);
        }
        else
        {
            lease = renterLease(fill.getLeaseId());
        }
        if (lease.fillMs < 0)
        {
            lease.fillMs = event.getTimeMs();
        }
    }

    /** The owner's side of a fill: a trade of this agent's machine. */
    protected void onSale(final AccountEvent event, final Fill fill)
    {
    }

    @Override
    public void onLeaseStarted(final AccountEvent event, final LeaseStarted started)
    {
        final LeaseRecord lease = started.getRenter() ? renterLease(started.getLeaseId()) : ownerLease(started.getLeaseId());
        lease.startMs = event.getTimeMs();
        lease.market = started.getMarket();
        lease.machineId = started.getMachineId();
        lease.gpus = started.getGpus();
        lease.price = started.getPrice();
        if (started.getRenter())
        {
            live.leasesStarted.increment();
        }
    }

    @Override
    public void onPreemptNotice(final long leaseId, final long effectiveAtMs, final NoticeReason reason)
    {
        if (records.ownerLeases.containsKey(leaseId) && !records.renterLeases.containsKey(leaseId))
        {
            return; // the owner's copy of a notice: the renter's side counts it
        }
        final LeaseRecord lease = renterLease(leaseId);
        if (lease.noticeMs < 0)
        {
            lease.noticeMs = eventTimeMs;
            lease.noticeReason = reason.name();
            live.notices.increment();
        }
    }

    @Override
    public void onLeaseEnded(final AccountEvent event, final LeaseEnded ended)
    {
        LeaseRecord lease = records.renterLeases.get(ended.getLeaseId());
        if (lease == null)
        {
            lease = records.ownerLeases.get(ended.getLeaseId());
        }
        if (lease == null)
        {
            return;
        }
        lease.endMs = event.getTimeMs();
        lease.endReason = ended.getReason().name();
        lease.costMicros = ended.getCost();
        lease.feeMicros = ended.getFee();
        if (lease.renterSide && lease.started() && lease.noticeMs < 0 && !"RELEASED".equals(lease.endReason)
            && !"EXPIRED".equals(lease.endReason))
        {
            live.endsWithoutNotice.increment();
        }
    }

    protected final LeaseRecord renterLease(final long leaseId)
    {
        return records.renterLeases.computeIfAbsent(leaseId, id -> new LeaseRecord(id, true));
    }

    protected final LeaseRecord ownerLease(final long leaseId)
    {
        return records.ownerLeases.computeIfAbsent(leaseId, id -> new LeaseRecord(id, false));
    }

    /** Market hour of day (0 to 24) of a market time. */
    protected static double hourOfDay(final long marketMs)
    {
        return Math.floorMod(marketMs, AgentParameters.DAY) / (double)AgentParameters.HOUR;
    }
}
