package io.gpux.gateway;

/** The revoke tests with the exchange core and the egress on threads of their own, apart from the event loop. */
class RevokeKeyDedicatedThreadsTest extends RevokeKeyTest
{
    @Override
    ExchangeContext settings(final ExchangeContext ctx)
    {
        return ctx.sharedLoop(false);
    }
}
