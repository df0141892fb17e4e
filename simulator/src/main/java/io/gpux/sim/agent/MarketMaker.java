package io.gpux.sim.agent;

import io.gpux.client.BookView;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.BookSnapshot;
import io.gpux.proto.v1.BookUpdate;
import io.gpux.proto.v1.LeaseEnded;
import io.gpux.proto.v1.LeaseStarted;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.TimeInForce;
import io.gpux.proto.v1.Trade;
import io.gpux.sim.report.JobRecord;
import io.gpux.sim.report.LeaseRecord;
import io.gpux.sim.report.LiveCounters;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.agrona.collections.LongHashSet;

/**
 * A market-maker: a bot that runs a fleet of machines on behalf of their owners in one or two
 * markets and re-prices every ask every few minutes from the book (the best competing ask, its own
 * asks left out) and from recent trades (an exponentially weighted average): it undercuts slightly
 * while it has idle GPUs, cuts further when they stay idle, raises the price of fully leased machines
 * toward the market, and never goes below the machine's cost. That is a steady cancel/replace flow.
 * It also has batch work of its own, worth a low value per GPU-hour: when capacity is offered below
 * that value it takes some with IOC bids (spot in the purest sense: the first to be preempted), and
 * releases each lease when its batch is done.
 */
public final class MarketMaker extends Seller
{
    private static final long CYCLE_MS = 4 * AgentParameters.MINUTE;

    /** What the bot tracks in one of its markets. */
    private static final class MarketState
    {
        final GpuClass gpuClass;
        final BookView book;
        final long batchValueTicks;
        final int batchCap;
        final JobRecord batch;
        double tradeEwma;
        int batchGpus;

        MarketState(final GpuClass gpuClass, final long batchValueTicks, final int batchCap, final JobRecord batch)
        {
            this.gpuClass = gpuClass;
            this.book = new BookView(gpuClass.symbol());
            this.batchValueTicks = batchValueTicks;
            this.batchCap = batchCap;
            this.batch = batch;
        }
    }

    private final Map<String, MarketState> markets = new LinkedHashMap<>();
    private final LongHashSet batchBids = new LongHashSet();
    private final long depositMicros;

    public MarketMaker(final String name, final long seed, final AgentParameters params, final LiveCounters live,
        final long jobIdBase)
    {
        super(name, "market-maker", seed, params, live);
        final List<GpuClass> classes = new ArrayList<>();
        classes.add(Catalogue.drawClass(rng));
        if (rng.nextDouble() < 0.5)
        {
            final GpuClass second = Catalogue.drawClass(rng);
            if (!second.equals(classes.get(0)))
            {
                classes.add(second);
            }
        }
        final int machines = 8 + rng.nextInt(17);
        for (int i = 0; i < machines; i++)
        {
            final GpuClass c = classes.get(i % classes.size());
            final double cost = c.peerPrice() * Draw.clamp(Draw.logNormal(rng, 0.85, 0.2), 0.45, 1.6);
            addMachine(c, Catalogue.drawMachineSize(c, rng), Catalogue.drawRegion(rng), Owner.round4(cost));
        }
        long deposit = 0;
        int n = 0;
        for (final GpuClass c : classes)
        {
            final double value = Owner.round4(c.peerPrice() * Draw.uniform(rng, 0.55, 0.8));
            final int cap = 4 + rng.nextInt(13);
            final JobRecord batch = new JobRecord(jobIdBase + (++n), name, c.symbol(), cap, false, value, params.openMs(), 0);
            batch.outcome = JobRecord.Outcome.BATCH;
            records.jobs.add(batch);
            markets.put(c.symbol(), new MarketState(c, Draw.ticks(value), cap, batch));
            deposit += (long)(cap * value * 48 * 1_000_000);
        }
        this.depositMicros = deposit;
    }

    public long depositMicros()
    {
        return depositMicros;
    }

    @Override
    protected long initialAskPrice(final FleetMachine m)
    {
        return Draw.ticks(Math.max(m.record.cost * 1.05, m.gpuClass.peerPrice() * Draw.uniform(rng, 0.95, 1.1)));
    }

    @Override
    protected void onStart()
    {
        super.onStart();
        for (final String market : markets.keySet())
        {
            access.subscribe(market);
        }
        access.schedule((long)(CYCLE_MS * rng.nextDouble()), this::cycle);
    }

    @Override
    public void onBookSnapshot(final BookSnapshot snapshot)
    {
        final MarketState s = markets.get(snapshot.getMarket());
        if (s != null)
        {
            s.book.onSnapshot(snapshot);
        }
    }

    @Override
    public void onBookUpdate(final BookUpdate update)
    {
        final MarketState s = markets.get(update.getMarket());
        if (s != null && s.book.onUpdate(update) == BookView.Result.GAP)
        {
            access.subscribe(update.getMarket());
        }
    }

    @Override
    public void onTrade(final Trade trade)
    {
        final MarketState s = markets.get(trade.getMarket());
        if (s != null)
        {
            s.tradeEwma = s.tradeEwma == 0 ? trade.getPrice() : 0.9 * s.tradeEwma + 0.1 * trade.getPrice();
        }
    }

    private void cycle()
    {
        if (stopped)
        {
            return;
        }
        for (final FleetMachine m : fleet)
        {
            final MarketState s = markets.get(m.record.market);
            if (s != null && m.askOpen && !m.failed)
            {
                repriceMachine(m, s);
            }
        }
        for (final MarketState s : markets.values())
        {
            batch(s);
        }
        access.schedule((long)(CYCLE_MS * Draw.uniform(rng, 0.75, 1.25)), this::cycle);
    }

    /** The best ask of the book that is not this bot's own, 0 if none. */
    private long competingAsk(final MarketState s)
    {
        final BookView book = s.book;
        for (int i = 0; i < book.askLevels(); i++)
        {
            final long price = book.askPrice(i);
            long own = 0;
            for (final FleetMachine m : fleet)
            {
                if (m.askOpen && !m.failed && m.askPrice == price && m.record.market.equals(s.gpuClass.symbol()))
                {
                    own += m.freeGpus();
                }
            }
            if (book.askGpus(i) > own)
            {
                return price;
            }
        }
        return 0;
    }

    private void repriceMachine(final FleetMachine m, final MarketState s)
    {
        final double anchor = s.tradeEwma > 0 ? s.tradeEwma : Draw.ticks(s.gpuClass.peerPrice());
        final long floor = Draw.ticks(m.record.cost * 1.02);
        long target;
        if (m.freeGpus() > 0)
        {
            target = (long)(anchor * Draw.uniform(rng, 0.97, 1.03));
            final long competing = competingAsk(s);
            if (competing > 0 && competing <= target)
            {
                target = competing - 1 - rng.nextInt(5);
            }
            final long now = access.now();
            if (m.idleSinceMs >= 0 && now - m.idleSinceMs > AgentParameters.HOUR)
            {
                target = Math.min(target, m.askPrice * 97 / 100);
            }
        }
        else
        {
            target = Math.max(m.askPrice, (long)anchor);
        }
        target = Math.max(floor, target);
        if (Math.abs(target - m.askPrice) >= Math.max(1, m.askPrice / 500))
        {
            reprice(m, target);
        }
    }

    private void batch(final MarketState s)
    {
        final int want = Math.min(s.batchCap - s.batchGpus, 8);
        if (want <= 0 || !s.book.isValid())
        {
            return;
        }
        final long competing = competingAsk(s);
        if (competing == 0 || competing > s.batchValueTicks)
        {
            return;
        }
        final long orderId = access.nextOrderId();
        batchBids.add(orderId);
        access.placeBid(PlaceBid.newBuilder().setOrderId(orderId).setMarket(s.gpuClass.symbol()).setGpus(want)
            .setPrice(s.batchValueTicks).setTif(TimeInForce.IOC).build());
    }

    @Override
    public void onLeaseStarted(final AccountEvent event, final LeaseStarted started)
    {
        super.onLeaseStarted(event, started);
        if (!started.getRenter())
        {
            return;
        }
        final MarketState s = markets.get(started.getMarket());
        final LeaseRecord lease = renterLease(started.getLeaseId());
        if (s != null)
        {
            lease.jobId = s.batch.id;
            lease.value = s.batch.value;
            s.batchGpus += started.getGpus();
            if (s.batch.firstLeaseMs < 0)
            {
                s.batch.firstLeaseMs = event.getTimeMs();
            }
        }
        final long leaseId = started.getLeaseId();
        if (stopped)
        {
            // an IOC bid that was on its way when the bot stopped
            access.release(leaseId);
            return;
        }
        final long run = (long)Draw.clamp(Draw.logNormal(rng, 2 * AgentParameters.HOUR, 0.5), 15 * AgentParameters.MINUTE,
            12 * AgentParameters.HOUR);
        access.schedule(run, () ->
        {
            final LeaseRecord l = records.renterLeases.get(leaseId);
            if (l != null && l.endMs < 0)
            {
                access.release(leaseId);
            }
        });
    }

    @Override
    public void onLeaseEnded(final AccountEvent event, final LeaseEnded ended)
    {
        final LeaseRecord lease = records.renterLeases.get(ended.getLeaseId());
        final boolean running = lease != null && lease.started() && lease.endMs < 0;
        super.onLeaseEnded(event, ended);
        if (running)
        {
            final MarketState s = markets.get(lease.market);
            if (s != null)
            {
                s.batchGpus -= lease.gpus;
                // batch work is made of small independent pieces: all of it is kept, except on a broken machine
                final long end = Math.max(lease.startMs, lease.endMs);
                final long broken = params.fleet().brokenSince(lease.machineId);
                final long workedUntil = broken >= 0 && broken < end ? Math.max(broken, lease.startMs) : end;
                lease.usefulGpuMs = (long)lease.gpus * (workedUntil - lease.startMs);
                lease.deadGpuMs = (long)lease.gpus * (end - workedUntil);
                s.batch.doneGpuMs += lease.usefulGpuMs;
                s.batch.deadGpuMs += lease.deadGpuMs;
            }
        }
    }

    @Override
    protected void onStop()
    {
        super.onStop();
        final long now = access.now();
        for (final MarketState s : markets.values())
        {
            s.batch.endMs = now;
        }
        for (final LeaseRecord l : records.renterLeases.values())
        {
            if (l.endMs < 0)
            {
                access.release(l.leaseId);
            }
        }
    }
}
