package io.gpux.gateway;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.event.Event;
import io.gpux.engine.event.EventType;
import io.gpux.engine.event.RejectReason;
import io.gpux.core.pipeline.EventPublisher;
import io.gpux.gateway.directory.Directory;
import io.gpux.gateway.egress.Egress;
import io.gpux.gateway.marketdata.MarketData;
import io.gpux.gateway.offers.OfferBoard;

import java.util.concurrent.CountDownLatch;

/**
 * The gateway's hook on the exchange core, called on the core thread: fills the directory once the
 * engine has recovered, passes command completions (with the command's reject reason, if any) to
 * the egress, derives market data and the offer board after every batch and then wakes the egress.
 * Events themselves reach the egress through the event journal, not through here.
 */
final class CorePublisher implements EventPublisher
{
    private final Directory directory;
    private final MarketData marketData;
    private final OfferBoard offers;
    private Egress egress;
    private final CountDownLatch recovered = new CountDownLatch(1);
    private long lastEventSeq;
    private long rejectedCommandSeq;
    private RejectReason reject;

    private final Runnable wakeEgress;

    /** @param wakeEgress called after each batch: the egress has events to tail (cheap when it is awake). */
    CorePublisher(final Directory directory, final MarketData marketData, final OfferBoard offers, final Runnable wakeEgress)
    {
        this.directory = directory;
        this.marketData = marketData;
        this.offers = offers;
        this.wakeEgress = wakeEgress;
    }

    void egress(final Egress egress)
    {
        this.egress = egress;
    }

    void awaitRecovered() throws InterruptedException
    {
        recovered.await();
    }

    @Override
    public void onRecovered(final MatchingEngine engine)
    {
        lastEventSeq = engine.eventSequence();
        directory.load(engine);
        offers.onRecovered(engine);
        recovered.countDown();
    }

    @Override
    public void onEvent(final Event event)
    {
        lastEventSeq = event.sequence;
        offers.onEvent();
        if (event.type == EventType.REJECTED)
        {
            rejectedCommandSeq = event.commandSequence;
            reject = event.rejectReason;
        }
    }

    @Override
    public void onCommandComplete(final long commandSequence, final long correlation)
    {
        final RejectReason reason = rejectedCommandSeq == commandSequence ? reject : null;
        offers.onEvent();
        egress.complete(correlation, commandSequence, lastEventSeq, reason);
    }

    @Override
    public void onCommandRefused(final long correlation, final String reason)
    {
        egress.refuse(correlation, lastEventSeq, reason);
    }

    @Override
    public void onBatchApplied(final MatchingEngine engine)
    {
        marketData.onBatchApplied(engine);
        offers.onBatchApplied(engine);
        wakeEgress.run();
    }
}
