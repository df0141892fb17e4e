package io.gpux.client;

import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Response;

/**
 * Event dispatch of one {@link GpuxClient}, on its event loop: hands the answers to queries, the
 * market data and the workload messages to the listeners, and an answer to the blocking caller
 * waiting for its request id. The session's own messages (Login answers, account events, order-entry
 * Responses) are the {@link ClientConductor}'s, which passes the rest here.
 */
final class InboundDispatcher
{
    private final CompositeListener listeners;
    private final RequestCorrelator correlator;

    InboundDispatcher(final CompositeListener listeners, final RequestCorrelator correlator)
    {
        this.listeners = listeners;
        this.correlator = correlator;
    }

    /** A Response that no order-entry command claimed, or that settled one. */
    void onResponse(final long requestId, final Response response)
    {
        listeners.onResponse(requestId, response);
        correlator.completeWaiter(requestId, response);
    }

    /** Anything but the session's own messages. */
    void dispatch(final Envelope envelope)
    {
        final long requestId = envelope.getRequestId();
        switch (envelope.getBodyCase())
        {
            case QUOTE_RESULT ->
            {
                listeners.onQuote(requestId, envelope.getQuoteResult());
                correlator.completeWaiter(requestId, envelope.getQuoteResult());
            }
            case PORTFOLIO ->
            {
                listeners.onPortfolio(requestId, envelope.getPortfolio());
                correlator.completeWaiter(requestId, envelope.getPortfolio());
            }
            case MARKETS ->
            {
                listeners.onMarkets(requestId, envelope.getMarkets());
                correlator.completeWaiter(requestId, envelope.getMarkets());
            }
            case HISTORY ->
            {
                listeners.onHistory(requestId, envelope.getHistory());
                correlator.completeWaiter(requestId, envelope.getHistory());
            }
            case OFFERS -> correlator.completeWaiter(requestId, envelope.getOffers());
            case BOOK_SNAPSHOT -> listeners.onBookSnapshot(envelope.getBookSnapshot());
            case BOOK_UPDATE -> listeners.onBookUpdate(envelope.getBookUpdate());
            case TRADE -> listeners.onTrade(envelope.getTrade());
            case WORKLOAD_LAUNCH -> listeners.onWorkloadLaunch(envelope.getWorkloadLaunch());
            case WORKLOAD_STATUS ->
            {
                listeners.onWorkloadStatus(envelope.getWorkloadStatus());
                correlator.completeWaiter(requestId, envelope.getWorkloadStatus());
            }
            case WORKLOAD_LOG_REQUEST -> listeners.onWorkloadLogRequest(requestId, envelope.getWorkloadLogRequest());
            case WORKLOAD_LOG ->
            {
                listeners.onWorkloadLog(requestId, envelope.getWorkloadLog());
                correlator.completeWaiter(requestId, envelope.getWorkloadLog());
            }
            default ->
            {
                // heartbeats only prove the gateway is alive; anything else is not for a client
            }
        }
    }
}
