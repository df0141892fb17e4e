package io.gpux.gateway;

/**
 * {@link ResendUnderLoadTest} again with the exchange core and the egress on threads of their own:
 * the resends run on the egress thread, a bounded slice per duty cycle, and never on the core's.
 */
class ResendUnderLoadDedicatedThreadsTest extends ResendUnderLoadTest
{
    @Override
    boolean sharedLoop()
    {
        return false;
    }
}
