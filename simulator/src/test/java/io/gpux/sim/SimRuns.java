package io.gpux.sim;

import io.gpux.sim.agent.Levers;
import io.gpux.sim.market.MarketRules;
import io.gpux.sim.report.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Seeded {@code ./gpux sim} runs of {@value #AGENTS} agents shared by the simulator's tests: each run (seed,
 * markets, levers) is made once per test JVM, its outcome and report.json kept, its report directory removed.
 * A run spans {@link #DAYS} market days: six market hours, with hundreds of preempting fills, or the full day
 * under {@code -Pstress} ({@code -Dgpux.stress=true}).
 */
final class SimRuns
{
    static final int AGENTS = 120;
    static final double DAYS = Boolean.getBoolean("gpux.stress") ? 1.0 : 0.25;

    /** A finished run: its outcome and its report.json as read back from the file. */
    record Run(RunOutcome outcome, Map<String, Object> json)
    {
    }

    private static final Map<String, Run> RUNS = new ConcurrentHashMap<>();

    private SimRuns()
    {
    }

    /** The run of {@code seed} with the default markets and none of the agents' levers. */
    static Run plain(final long seed)
    {
        return run(seed, MarketRules.SIM, Levers.NONE);
    }

    /** The run of {@code seed} with these markets and levers. */
    static Run run(final long seed, final MarketRules markets, final Levers levers)
    {
        return RUNS.computeIfAbsent(seed + " " + markets + " " + levers, k -> fresh(seed, markets, levers));
    }

    /** A new run of {@code seed} with the default markets and none of the levers, never one kept from before. */
    static Run fresh(final long seed)
    {
        return fresh(seed, MarketRules.SIM, Levers.NONE);
    }

    private static Run fresh(final long seed, final MarketRules markets, final Levers levers)
    {
        try
        {
            final Path out = Files.createTempDirectory("gpux-sim-test-");
            try
            {
                final RunOutcome outcome = SimRun.run(new SimRun.Options(seed, AGENTS, DAYS, DemoRun.DEFAULT_FAILURE_ACCEL,
                    DemoRun.DEFAULT_RECLAIMS_PER_DAY, DemoRun.DEFAULT_LOAD, out, markets, levers), null);
                @SuppressWarnings("unchecked")
                final Map<String, Object> json = (Map<String, Object>)Json.parse(Files.readString(out.resolve("report.json")));
                return new Run(outcome, json);
            }
            finally
            {
                DemoFiles.deleteRecursively(out);
            }
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException("the sim run of seed " + seed + " failed", ex);
        }
    }
}
