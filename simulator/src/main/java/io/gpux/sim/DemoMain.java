package io.gpux.sim;

import io.gpux.sim.market.MarketRules;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code ./gpux demo}: the market simulator against a real exchange, through the real gateway. */
@Command(name = "gpux demo", mixinStandardHelpOptions = true,
    description = {"Starts an exchange (a child JVM: temporary data directory, loopback, ephemeral port, its clock running "
        + "240 times fast: a market hour in 15 s), runs a market of a few hundred owners, renters and market-makers on it "
        + "through the client library, then prints a summary and writes a report (HTML with charts, JSON)."})
public final class DemoMain implements Callable<Integer>
{
    @Option(names = "--duration", description = "wall seconds of market (default ${DEFAULT-VALUE})")
    double duration = 60;

    @Option(names = "--seed", description = "random seed of the agents' decisions (default ${DEFAULT-VALUE})")
    long seed = 42;

    @Option(names = "--agents", description = "owners + market-makers + renters (default ${DEFAULT-VALUE})")
    int agents = 300;

    @Option(names = "--out", description = "report directory (default ./target/demo-<time> if ./target exists, else a temporary directory)")
    Path out;

    @Option(names = "--kill-exchange", description = "SIGKILL the exchange halfway, restart it on the same journals; the market carries on")
    boolean killExchange;

    @Option(names = "--clock-scale", description = "market time per wall time (default ${DEFAULT-VALUE}: an hour in 15 s)")
    long scale = DemoRun.DEFAULT_SCALE;

    @Option(names = "--open-hour", description = "the market opens at this hour of the day, UTC, 0 to 24 (default ${DEFAULT-VALUE})")
    double openHour = DemoRun.DEFAULT_OPEN_HOUR;

    @Option(names = "--load", description = "demand as a multiple of the fleet's GPUs (default ${DEFAULT-VALUE})")
    double load = DemoRun.DEFAULT_LOAD;

    @Option(names = "--failure-accel", description = "machines fail this many times more often than their annual rate "
        + "(default ${DEFAULT-VALUE})")
    double failureAccel = DemoRun.DEFAULT_FAILURE_ACCEL;

    @Option(names = "--reclaims-per-day", description = "owner reclaims per machine per market day (default ${DEFAULT-VALUE})")
    double reclaimsPerDay = DemoRun.DEFAULT_RECLAIMS_PER_DAY;

    @Option(names = "--keep-data", description = "keep the exchange's temporary data directory (journals) after the run")
    boolean keepData;

    @Option(names = "--markets", description = "the markets' timing: demo (grace 20 min, heartbeats every 4 min, offline "
        + "after 20: 5 s of wall time at x240) or sim (5 min, 3 min, 5 min: the week's markets; 5 s of wall time at "
        + "--clock-scale 60) (default ${DEFAULT-VALUE})")
    String markets = "demo";

    @Mixin
    LeverOptions levers;

    @Option(names = "--workloads", description = "jobs in the workload lane: real workloads run by owner agents (process "
        + "runtime, recorded H200s), preempted and resumed; half keep a checkpoint; 0: none (default ${DEFAULT-VALUE})")
    int workloads = DemoRun.DEFAULT_WORKLOAD_JOBS;

    @Override
    public Integer call() throws Exception
    {
        if (duration <= 0 || agents < 3 || scale < 1 || workloads < 0 || workloads > 16 || openHour < 0 || openHour >= 24
            || !markets.equals("sim") && !markets.equals("demo"))
        {
            throw new CommandLine.ParameterException(new CommandLine(this), "--duration must be positive, --agents at least 3, "
                + "--clock-scale at least 1, --workloads 0 to 16, --open-hour 0 to 24, --markets demo or sim");
        }
        levers.check(new CommandLine(this));
        final Path dir = out != null ? out
            : Files.isDirectory(Path.of("target")) ? Path.of("target", "demo-" + DemoRun.timestamp())
            : Files.createTempDirectory("gpux-demo-report-");
        final RunOutcome outcome = DemoRun.run(new DemoRun.Options(seed, agents, duration, killExchange, dir, scale, load,
            failureAccel, reclaimsPerDay, keepData, workloads, openHour,
            levers.rules(markets.equals("sim") ? MarketRules.SIM : MarketRules.DEMO), levers.levers()), System.err);
        System.out.print(outcome.summary());
        System.out.flush();
        return outcome.ok() ? 0 : 1;
    }

    /** Runs the command and returns its exit status (tests call this; {@link #main} exits with it). */
    public static int execute(final String... args)
    {
        return OneLineFailures.commandLine(new DemoMain(), "gpux demo").execute(args);
    }

    public static void main(final String[] args)
    {
        System.exit(execute(args));
    }
}
