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
 * to ride out a busy machine's pauses). After a restart of the exchange, a machine online at the crash
 * has a day (a minute of wall time) to heartbeat again: the few hundred agents reconnect in a herd, on
 * a machine busy replaying their events, and must not lose their leases for that.
 *
 * @param graceMs             notice between a preemption notice and the lease's end.
 * @param prepayMs            the funds hold period and settlement period.
 * @param feeBps              the exchange's fee.
 * @param heartbeatIntervalMs how often owners' agents heartbeat each machine.
 * @param heartbeatTimeoutMs  silence after which the exchange takes a machine offline.
 * @param restartWindowMs     after an exchange restart, how long a machine online at the crash has, at least,
 *                            to heartbeat again.
 * @param preemptIncrementBps every market's preemption increment, in basis points of a lease's price.
 * @param fragmentFirst       whether every market fills the machine with the fewest free GPUs first.
 */
public record MarketRules(long graceMs, long prepayMs, int feeBps, long heartbeatIntervalMs, long heartbeatTimeoutMs,
    long restartWindowMs, int preemptIncrementBps, boolean fragmentFirst)
{
    /** The exchange's largest restart window (docs/market-rules.md section 2). */
    public static final long MAX_RESTART_WINDOW_MS = 30L * 86_400_000L;
    public static final MarketRules DEFAULT = new MarketRules(300_000, 3_600_000, 250, 900_000, 7_200_000, 86_400_000, 0,
        false);

    /** These rules with the markets' levers. */
    public MarketRules withLevers(final int increment, final boolean fragments)
    {
        return new MarketRules(graceMs, prepayMs, feeBps, heartbeatIntervalMs, heartbeatTimeoutMs, restartWindowMs, increment,
            fragments);
    }

    /**
     * These rules with a restart window of {@code wallMs} of wall time on a clock running {@code scale} times
     * fast, at most the exchange's largest.
     */
    public MarketRules restartWindowInWallTime(final long wallMs, final long scale)
    {
        final long window = scale > MAX_RESTART_WINDOW_MS / wallMs ? MAX_RESTART_WINDOW_MS : wallMs * scale;
        return new MarketRules(graceMs, prepayMs, feeBps, heartbeatIntervalMs, heartbeatTimeoutMs, window,
            preemptIncrementBps, fragmentFirst);
    }

    /** The markets and settings as scenario lines (the server's {@code --config} file). */
    public List<String> configLines()
    {
        final List<String> lines = new ArrayList<>();
        lines.add("# gpux demo markets: the 7 GPU classes; times are market time (the demo runs the exchange's clock fast)");
        for (final GpuClass c : Catalogue.CLASSES)
        {
            lines.add("0 MARKET id=" + c.symbol() + " graceMs=" + graceMs + " prepayMs=" + prepayMs + " feeBps=" + feeBps
                + " minIncrement=" + io.gpux.client.Prices.format(c.minIncrement())
                + (preemptIncrementBps == 0 ? "" : " preemptIncrementBps=" + preemptIncrementBps)
                + (fragmentFirst ? " fragmentFirst=true" : ""));
        }
        lines.add("0 CONFIG heartbeatIntervalMs=" + heartbeatIntervalMs + " heartbeatTimeoutMs=" + heartbeatTimeoutMs
            + " restartWindowMs=" + restartWindowMs);
        return lines;
    }
}
