package io.gpux.sim;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./gpux sim}: a longer market in-process with a simulated clock. */
@Command(name = "gpux sim", mixinStandardHelpOptions = true,
    description = "Runs the market simulator in-process against the matching engine with a simulated clock "
        + "(no network, no waiting), then prints a summary and writes a report (HTML, JSON, charts).")
public final class SimMain implements Callable<Integer>
{
    @Option(names = "--days", description = "market days to simulate (default ${DEFAULT-VALUE})")
    double days = 7;

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

    @Option(names = "--out", description = "report directory (default ./target/sim-<seed>-<time>)")
    Path out;

    @Option(names = "--quiet", description = "no progress line")
    boolean quiet;

    @Override
    public Integer call() throws Exception
    {
        if (days <= 0 || agents < 3)
        {
            throw new CommandLine.ParameterException(new CommandLine(this), "--days must be positive and --agents at least 3");
        }
        final Path dir = out != null ? out : Path.of("target", "sim-" + seed + "-" + DemoRun.timestamp());
        System.err.printf("gpux sim: %d agents, %.1f market days, seed %d%n", agents, days, seed);
        final RunOutcome outcome = SimRun.run(new SimRun.Options(seed, agents, days, failureAccel, reclaimsPerDay, load, dir),
            quiet ? null : System.err);
        System.out.print(outcome.summary());
        System.out.flush();
        return outcome.ok() ? 0 : 1;
    }

    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new SimMain()).execute(args));
    }
}
