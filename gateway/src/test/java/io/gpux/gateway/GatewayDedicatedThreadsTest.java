package io.gpux.gateway;

/**
 * Every test of {@link GatewayTest} again with the other thread layout: the exchange core and the
 * egress on threads of their own instead of on the gateway's event loop.
 */
class GatewayDedicatedThreadsTest extends GatewayTest
{
    @Override
    boolean sharedLoop()
    {
        return false;
    }
}
