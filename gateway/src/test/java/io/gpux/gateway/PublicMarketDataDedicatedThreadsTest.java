package io.gpux.gateway;

/**
 * Every test of {@link PublicMarketDataTest} again with the exchange core and the egress (which keeps
 * the price history) on threads of their own instead of on the gateway's event loop.
 */
class PublicMarketDataDedicatedThreadsTest extends PublicMarketDataTest
{
    @Override
    boolean sharedLoop()
    {
        return false;
    }
}
