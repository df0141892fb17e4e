package io.gpux.sim;

import io.gpux.sim.market.MarketRules;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code ./gpux sim}: a longer market in-process with a simulated clock. */
@Command(name = "gpux sim", mixinStandardHelpOptions = true,
    description = "Runs the market simulator in-process against the matching engine with a simulated clock "
        + "(no network, no waiting), then prints a summary and writes a report (HTML, JSON, charts).")
public final class SimMain implements Callable<Integer>
{
    @Option(names = "--days", description = "market days to simulate (default ${DEFAULT-VALUE})")
    double days = 7;

    @Option(names = "--hours", description = "market hours to simulate instead of --days")
    Double hours;

    @Option(names = "--open-hour", description = "the market opens at this hour of the day, UTC, 0 to 24 (default ${DEFAULT-VALUE})")
    double openHour;

    @Option(names = "--markets", description = "the markets' timing: sim (grace 5 min, heartbeats every 3 min, offline after 5) "
        + "or demo (the demo's: 20 min, 4 min, 20 min) (default ${DEFAULT-VALUE})")
    String markets = "sim";

    @Option(names = "--steady-start", description = "renters open with the jobs the steady state has in flight at the "
        + "open hour, with the work they have left (the demo's start); default: fresh jobs, about as many")
    boolean steadyStart;

    @Option(names = "--seed", description = "random seed: the same seed gives the same report (default ${DEFAULT-VALUE})")
    long seed = 42;

    @Option(names = "--agents", description = "owners + market-makers + renters (default ${DEFAULT-VALUE})")
    int agents = 300;

    @Option(names = "--load", description = "demand as a multiple of the fleet's GPUs (default ${DEFAULT-VALUE})")
    double load = DemoRun.DEFAULT_LOAD;

    @Option(names = "--failure-accel", description = "machines fail this many times more often than their annual rate "
        + "(default ${DEFAULT-VALUE})")
    double failureAccel = DemoRun.DEFAULT_FAILURE_ACCEL;

    @Option(names = "--reclaims-per-day", description = "owner reclaims per machine per market day (default ${DEFAULT-VALUE})")
    double reclaimsPerDay = DemoRun.DEFAULT_RECLAIMS_PER_DAY;

    @Mixin
    LeverOptions levers;

    @Option(names = "--out", description = "report directory (default ./target/sim-<seed>-<time>)")
    Path out;

    @Option(names = "--quiet", description = "no progress line")
    boolean quiet;

    @Override
    public Integer call() throws Exception
    {
        if (hours != null)
        {
            days = hours / 24;
        }
        if (days <= 0 || agents < 3 || openHour < 0 || openHour >= 24 || !markets.equals("sim") && !markets.equals("demo"))
        {
            throw new CommandLine.ParameterException(new CommandLine(this), "--days and --hours must be positive, --agents at "
                + "least 3, --open-hour 0 to 24, --markets sim or demo");
        }
        levers.check(new CommandLine(this));
        final MarketRules rules = levers.rules(markets.equals("demo") ? MarketRules.DEMO : MarketRules.SIM);
        final Path dir = out != null ? out : Path.of("target", "sim-" + seed + "-" + DemoRun.timestamp());
        System.err.printf("gpux sim: %d agents, %s of market from %s UTC, seed %d%n", agents, SimRun.marketSpan(days),
            SimRun.hourOfDay(openHour), seed);
        final RunOutcome outcome = SimRun.run(new SimRun.Options(seed, agents, days, failureAccel, reclaimsPerDay, load, dir,
            rules, levers.levers(), openHour, steadyStart),
            quiet ? null : System.err);
        System.out.print(outcome.summary());
        System.out.flush();
        return outcome.ok() ? 0 : 1;
    }

    public static void main(final String[] args)
    {
        System.exit(OneLineFailures.commandLine(new SimMain(), "gpux sim").execute(args));
    }
}
