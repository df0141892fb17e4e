package io.gpux.sim.agent;

import io.gpux.client.agent.ClearingPricing;
import io.gpux.sim.report.LiveCounters;

/**
 * A GPU owner with one to a few machines (mostly one, often of one class). Its reserve price (cost)
 * is drawn around the class's peer-market price; it asks a markup over it and reviews its price every
 * few hours: down when its machines sat idle, up when they were always leased. From time to time it
 * reclaims a machine for its own use (cancel with reclaim: the renters get a notice), then lists it
 * again a few hours later.
 *
 * <p>With the clearing-owners lever ({@link Levers#clearingOwners}) it watches its markets' books and
 * prices every {@link Levers#CLEARING_EVERY_MS} with {@link ClearingPricing}, from its cost up to three
 * times it, as {@code gpux agent --clear-every} does, instead of the markup review.
 */
public final class Owner extends Seller
{
    private long lastReviewMs;
    /** Per market of its machines, the book (clearing owners only). */
    private final MarketBooks books = new MarketBooks();

    public Owner(final String name, final long seed, final AgentParameters params, final LiveCounters live)
    {
        super(name, "owner", seed, params, live);
        final int machines = pickMachineCount();
        GpuClass c = Catalogue.drawClass(rng);
        for (int i = 0; i < machines; i++)
        {
            if (i > 0 && rng.nextDouble() < 0.3)
            {
                c = Catalogue.drawClass(rng);
            }
            final double cost = c.peerPrice() * Draw.clamp(Draw.logNormal(rng, 0.85, 0.2), 0.45, 1.6);
            addMachine(c, Catalogue.drawMachineSize(c, rng), Catalogue.drawRegion(rng), round4(cost));
        }
    }

    private int pickMachineCount()
    {
        final double u = rng.nextDouble();
        return u < 0.7 ? 1 : u < 0.9 ? 2 : 3 + rng.nextInt(2);
    }

    static double round4(final double v)
    {
        return Math.round(v * 10_000.0) / 10_000.0;
    }

    @Override
    protected long initialAskPrice(final FleetMachine m)
    {
        return Draw.ticks(m.record.cost * Draw.uniform(rng, 1.05, 1.35));
    }

    @Override
    protected void onStart()
    {
        super.onStart();
        lastReviewMs = access.now();
        if (params.levers().clearingOwners())
        {
            for (final FleetMachine m : fleet)
            {
                books.add(m.record.market);
            }
            books.subscribe(access);
            access.schedule(Levers.CLEARING_EVERY_MS, this::clear);
            return;
        }
        scheduleReview();
    }

    @Override
    protected MarketBooks books()
    {
        return books;
    }

    /** Clearing: each open ask meets the best bid or steps down while it has idle GPUs, steps up when it has none. */
    private void clear()
    {
        if (stopped)
        {
            return;
        }
        for (final FleetMachine m : fleet)
        {
            if (!m.askOpen || m.failed)
            {
                continue;
            }
            final ClearingPricing pricing = new ClearingPricing(m.costTicks, 3 * m.costTicks);
            reprice(m, pricing.next(m.askPrice, m.freeGpus(), books.bestBid(m.record.market), 1));
        }
        access.schedule(Levers.CLEARING_EVERY_MS, this::clear);
    }

    @Override
    protected void onMachineReady(final FleetMachine m)
    {
        scheduleReclaim(m);
    }

    private void scheduleReview()
    {
        access.schedule((long)(AgentParameters.HOUR * Draw.uniform(rng, 3, 5)), this::review);
    }

    private void review()
    {
        if (stopped)
        {
            return;
        }
        final long now = access.now();
        final long span = now - lastReviewMs;
        for (final FleetMachine m : fleet)
        {
            m.accountLeased(now);
            final double leased = span <= 0 ? 0 : m.leasedGpuMs / ((double)m.gpus() * span);
            m.leasedGpuMs = 0;
            if (!m.askOpen || m.failed)
            {
                continue;
            }
            if (leased < 0.5)
            {
                reprice(m, Math.max(Draw.ticks(m.record.cost * 1.02), (long)(m.askPrice * 0.92)));
            }
            else if (leased > 0.95)
            {
                reprice(m, Math.min(Draw.ticks(m.record.cost * 3), (long)(m.askPrice * 1.06)));
            }
        }
        lastReviewMs = now;
        scheduleReview();
    }

    private void scheduleReclaim(final FleetMachine m)
    {
        if (params.reclaimsPerDay() <= 0)
        {
            return;
        }
        access.schedule((long)Draw.exponential(rng, AgentParameters.DAY / params.reclaimsPerDay()), () -> reclaim(m));
    }

    private void reclaim(final FleetMachine m)
    {
        if (stopped)
        {
            return;
        }
        if (!m.askOpen || m.failed || m.reclaimed)
        {
            scheduleReclaim(m);
            return;
        }
        m.reclaimed = true;
        m.record.reclaimed.open(access.now());
        live.reclaims.increment();
        withdraw(m, true);
        final long use = (long)Draw.clamp(Draw.logNormal(rng, 4 * AgentParameters.HOUR, 0.5), AgentParameters.HOUR,
            AgentParameters.DAY);
        access.schedule(use, () -> relist(m));
    }

    private void relist(final FleetMachine m)
    {
        if (stopped)
        {
            return;
        }
        if (m.leasedGpus > 0 || m.askOpen)
        {
            access.schedule(10 * AgentParameters.MINUTE, () -> relist(m));
            return;
        }
        m.reclaimed = false;
        m.record.reclaimed.close(access.now());
        postAsk(m, m.askPrice);
        scheduleReclaim(m);
    }
}
