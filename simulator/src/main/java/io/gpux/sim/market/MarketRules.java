package io.gpux.sim.market;

import io.gpux.sim.agent.Catalogue;
import io.gpux.sim.agent.GpuClass;
import java.util.ArrayList;
import java.util.List;

/**
 * The parameters of the simulated exchange's markets, in market time. A demo compresses a day into a
 * minute (1 s of wall time = 24 min of market time at scale 1440), so the periods are chosen in market
 * time and stay workable in wall time: a 5-minute grace period is about 200 ms of wall time, a
 * 15-minute machine heartbeat about 630 ms (a few hundred machines make several hundred heartbeats
 * a second), and a machine is declared offline after 2 hours without one (5 s of wall time: enough
 * to ride out a restart of the exchange, or a busy machine's pauses).
 *
 * @param graceMs             notice between a preemption notice and the lease's end.
 * @param prepayMs            the funds hold period and settlement period.
 * @param feeBps              the exchange's fee.
 * @param heartbeatIntervalMs how often owners' agents heartbeat each machine.
 * @param heartbeatTimeoutMs  silence after which the exchange takes a machine offline.
 */
public record MarketRules(long graceMs, long prepayMs, int feeBps, long heartbeatIntervalMs, long heartbeatTimeoutMs)
{
    public static final MarketRules DEFAULT = new MarketRules(300_000, 3_600_000, 250, 900_000, 7_200_000);

    /** The markets and settings as scenario lines (the server's {@code --config} file). */
    public List<String> configLines()
    {
        final List<String> lines = new ArrayList<>();
        lines.add("# gpux demo markets: the 7 GPU classes; times are market time (the demo runs the exchange's clock fast)");
        for (final GpuClass c : Catalogue.CLASSES)
        {
            lines.add("0 MARKET id=" + c.symbol() + " graceMs=" + graceMs + " prepayMs=" + prepayMs + " feeBps=" + feeBps
                + " minIncrement=" + io.gpux.client.Prices.format(c.minIncrement()));
        }
        lines.add("0 CONFIG heartbeatIntervalMs=" + heartbeatIntervalMs + " heartbeatTimeoutMs=" + heartbeatTimeoutMs);
        return lines;
    }
}
