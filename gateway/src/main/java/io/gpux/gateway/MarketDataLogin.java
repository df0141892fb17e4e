package io.gpux.gateway;

import io.gpux.proto.v1.Envelope;

/**
 * The market-data login: a Login with key id {@value #KEY_ID} opens a session without a key, on the
 * same port, framing, heartbeats and rate limit as any other, that may only read public market data
 * (the markets, books, trades and the price history). It has no account, so nothing it could send
 * would reach the engine as anyone's command; the gateway refuses everything else it sends with
 * NOT_AUTHORIZED before it is decoded further.
 */
final class MarketDataLogin
{
    /** The key id of a market-data login; no key has it. */
    static final long KEY_ID = 0;
    static final String REFUSAL = "a market-data session (a login without a key) may only read market data: log in with a key to trade";

    private MarketDataLogin()
    {
    }

    /** Whether a market-data session may send this request. */
    static boolean allows(final Envelope.BodyCase request)
    {
        return switch (request)
        {
            case MARKETS_REQUEST, SUBSCRIBE, UNSUBSCRIBE, HISTORY_REQUEST -> true;
            default -> false;
        };
    }
}
