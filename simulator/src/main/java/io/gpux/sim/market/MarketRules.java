package io.gpux.sim.market;

import io.gpux.common.Money;
import io.gpux.sim.agent.Catalogue;
import io.gpux.sim.agent.GpuClass;
import java.util.ArrayList;
import java.util.List;

/**
 * The parameters of the simulated exchange's markets, in market time.
 *
 * <p>{@link #SIM} (the simulated clock): a 5-minute grace period, heartbeats every 3 minutes and a
 * machine offline after 5 minutes without one. The rulebook's 5 s / 15 s would take some 20 million
 * heartbeat commands for a week of 434 machines (several minutes of engine time); 3 / 5 minutes keep a
 * failed machine's dead time short (it is counted as lost work) at a tenth of that.
 *
 * <p>{@link #DEMO} (the demo's clock runs {@code DemoRun.DEFAULT_SCALE} = 240 times fast: an hour in
 * 15 s of wall time): a 20-minute grace period and a 20-minute heartbeat timeout are 5 s of wall time,
 * far above the order-to-fill and event latencies of a loaded 2-core machine (tens to a few hundred ms),
 * so a notice always arrives well before its effective time and a busy machine's pauses do not take
 * healthy machines offline; heartbeats every 4 minutes are one wall second. After a restart of the
 * exchange, a machine online at the crash has a minute of wall time to heartbeat again.
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
    /** The simulated clock's markets ({@code ./gpux sim}). */
    public static final MarketRules SIM = new MarketRules(300_000, 3_600_000, 250, 180_000, 300_000, 86_400_000, 0, false);
    /** The demo's markets ({@code ./gpux demo}, at its default clock scale). */
    public static final MarketRules DEMO = new MarketRules(1_200_000, 3_600_000, 250, 240_000, 1_200_000, 86_400_000, 0,
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
                + " minIncrement=" + io.gpux.common.Money.formatPrice(c.minIncrement())
                + (preemptIncrementBps == 0 ? "" : " preemptIncrementBps=" + preemptIncrementBps)
                + (fragmentFirst ? " fragmentFirst=true" : ""));
        }
        lines.add("0 CONFIG heartbeatIntervalMs=" + heartbeatIntervalMs + " heartbeatTimeoutMs=" + heartbeatTimeoutMs
            + " restartWindowMs=" + restartWindowMs);
        return lines;
    }
}
