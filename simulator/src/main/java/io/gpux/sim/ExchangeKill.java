package io.gpux.sim;

import io.gpux.sim.agent.Agent;
import io.gpux.sim.market.ScaledClock;
import java.io.IOException;
import java.util.List;

/**
 * The demo's exchange SIGKILLed and restarted on the same data directory and clock anchor, and what
 * happened: when, how long the restart took, and how long until every client was back.
 */
final class ExchangeKill
{
    long killWallMs;
    long killMarketMs;
    long restartMillis;
    long reconnectMillis = -1;
    int reconnected;

    /** Kills the exchange and starts it again; returns the restarted one. */
    ExchangeProcess killAndRestart(final ExchangeProcess exchange, final ScaledClock clock) throws IOException, InterruptedException
    {
        killWallMs = System.currentTimeMillis();
        killMarketMs = clock.now();
        exchange.kill();
        final ExchangeProcess restarted = exchange.restart();
        restartMillis = System.currentTimeMillis() - killWallMs;
        return restarted;
    }

    /**
     * Waits (30 s at most) until every agent's client, and the workload lane's, is connected and logged in again: the
     * market winds down after the run with every account reachable.
     */
    void awaitReconnect(final DemoClients clients, final List<Agent> everyone) throws InterruptedException
    {
        final long deadline = System.currentTimeMillis() + 30_000;
        while (System.currentTimeMillis() < deadline)
        {
            reconnected = clients.reconnected(everyone);
            if (reconnected == everyone.size() && clients.laneReconnected())
            {
                reconnectMillis = System.currentTimeMillis() - killWallMs;
                return;
            }
            Thread.sleep(20);
        }
    }
}
