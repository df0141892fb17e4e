package io.gpux.gateway;

import io.gpux.gateway.directory.Directory;
import io.gpux.gateway.egress.Egress;
import io.gpux.gateway.offers.OfferSearch;
import io.gpux.gateway.session.Session;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.OffersRequest;
import io.gpux.proto.v1.Reason;
import io.netty.channel.ChannelHandlerContext;

/**
 * A session's queries and subscriptions: history, quotes, its portfolio, the markets, offer searches,
 * market data. The core answers most through the egress ({@link Queries} builds them); offer
 * searches are answered from the offer board, never through the core's ring.
 */
final class QueryRequests
{
    private final Exchange exchange;
    private final Session session;
    private final SessionPublisher publisher;

    QueryRequests(final Exchange exchange, final Session session, final SessionPublisher publisher)
    {
        this.exchange = exchange;
        this.session = session;
        this.publisher = publisher;
    }

    /**
     * Handles a query or a subscription.
     *
     * @return false if the request is none: the caller handles it.
     */
    boolean onRequest(final ChannelHandlerContext ctx, final long rid, final Envelope env)
    {
        switch (env.getBodyCase())
        {
            case HISTORY_REQUEST -> exchange.queries.history(session, rid, env.getHistoryRequest());
            case QUOTE_REQUEST -> publisher.query(ctx, rid, exchange.queries.quote(session, rid, env.getQuoteRequest()));
            case PORTFOLIO_REQUEST -> publisher.query(ctx, rid, exchange.queries.portfolio(session, rid));
            case MARKETS_REQUEST -> publisher.query(ctx, rid, exchange.queries.markets(session, rid));
            case OFFERS_REQUEST -> offers(ctx, rid, env.getOffersRequest());
            case SUBSCRIBE ->
            {
                final Directory.MarketEntry m = exchange.directory.market(env.getSubscribe().getMarket());
                if (m == null)
                {
                    publisher.reply(ctx, rid, Reason.UNKNOWN_MARKET, env.getSubscribe().getMarket());
                    return true;
                }
                publisher.query(ctx, rid, exchange.queries.subscribe(session, rid, m.id()));
            }
            case UNSUBSCRIBE ->
            {
                final Directory.MarketEntry m = exchange.directory.market(env.getUnsubscribe().getMarket());
                if (m != null)
                {
                    exchange.egress.put(new Egress.Unsubscribed(session, m.id()));
                }
                publisher.reply(ctx, rid, m == null ? Reason.UNKNOWN_MARKET : Reason.REASON_OK, "");
            }
            default ->
            {
                return false;
            }
        }
        return true;
    }

    /** An offer search: checked here, answered from the offer board on this event loop, never through the core's ring. */
    private void offers(final ChannelHandlerContext ctx, final long rid, final OffersRequest r)
    {
        final Directory.MarketEntry m = r.getMarket().isEmpty() ? null : exchange.directory.market(r.getMarket());
        if (m == null && !r.getMarket().isEmpty())
        {
            publisher.reply(ctx, rid, Reason.UNKNOWN_MARKET, r.getMarket());
            return;
        }
        final String[] problem = new String[1];
        final OfferSearch search = OfferSearch.of(r, m == null ? 0 : m.id(), problem);
        if (search == null)
        {
            publisher.reply(ctx, rid, Reason.INVALID_REQUEST, problem[0]);
            return;
        }
        if (exchange.pipeline.failed())
        {
            publisher.reply(ctx, rid, Reason.UNAVAILABLE, exchange.pipeline.refusal());
            return;
        }
        final long sessionId = session.id;
        exchange.offers.search(search, rid, ctx.executor(), answer -> exchange.egress.put(new Egress.Direct(sessionId, answer)));
    }
}
