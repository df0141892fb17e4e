package io.gpux.gateway;

/** The portfolio order test with the exchange core and the egress on threads of their own, apart from the event loop. */
class PortfolioOrderDedicatedThreadsTest extends PortfolioOrderTest
{
    @Override
    ExchangeContext settings(final ExchangeContext ctx)
    {
        return ctx.sharedLoop(false);
    }
}
