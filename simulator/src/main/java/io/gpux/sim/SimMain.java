package io.gpux.sim;

import io.gpux.sim.agent.AgentParameters;
import io.gpux.sim.agent.Levers;
import io.gpux.sim.market.MarketRules;
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

    @Option(names = "--preempt-increment-bps", paramLabel = "N", description = "every market's preemption increment: a bid "
        + "preempts a lease only if it beats its price by N basis points of it, 0 to 10000 (default ${DEFAULT-VALUE})")
    int preemptIncrementBps;

    @Option(names = "--fragment-first", description = "markets fill the machine with the fewest free GPUs first "
        + "among equally priced asks (default: oldest ask first)")
    boolean fragmentFirst;

    @Option(names = "--calm-after-notice", paramLabel = "MINUTES", description = "after a preemption notice, renters "
        + "re-bid without preempting for this many market minutes, 0: at once with preemption (default ${DEFAULT-VALUE})")
    double calmAfterNoticeMinutes;

    @Option(names = "--clearing-owners", description = "owners price with the clearing strategy of gpux agent "
        + "--clear-every (every 5 market minutes) instead of reviewing their markup every few hours")
    boolean clearingOwners;

    @Option(names = "--night-batch", paramLabel = "SHARE", description = "cheap batch jobs at night, at this share of a "
        + "renter's mean job rate at their peak (3 a.m.), 0: none (default ${DEFAULT-VALUE})")
    double nightBatch;

    @Option(names = "--move-when-cheaper", paramLabel = "BPS", description = "renters' jobs look every --move-every "
        + "market minutes for the same GPUs at least BPS basis points below a running lease's price, free on one machine, "
        + "and move there, 0: never (default ${DEFAULT-VALUE})")
    int moveSavingBps;

    @Option(names = "--move-every", paramLabel = "MINUTES", description = "how often a job that moves looks for cheaper "
        + "GPUs, market minutes (default ${DEFAULT-VALUE})")
    double moveEveryMinutes = 30;

    @Option(names = "--hand-over-on-notice", description = "renters' jobs checkpoint on a preemption notice and release "
        + "the lease at once, handing the GPUs to the preempting bid (as gpux run does once its workload has exited), "
        + "instead of working on through the grace period")
    boolean handOverOnNotice;

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
        if (preemptIncrementBps < 0 || preemptIncrementBps > 10_000 || calmAfterNoticeMinutes < 0 || nightBatch < 0
            || moveSavingBps < 0 || moveSavingBps >= 10_000 || moveEveryMinutes <= 0)
        {
            throw new CommandLine.ParameterException(new CommandLine(this), "--preempt-increment-bps must be 0 to 10000, "
                + "--calm-after-notice and --night-batch not negative, --move-when-cheaper 0 to 9999, --move-every positive");
        }
        final MarketRules rules = (markets.equals("demo") ? MarketRules.DEMO : MarketRules.SIM)
            .withLevers(preemptIncrementBps, fragmentFirst);
        final Levers levers = new Levers((long)(calmAfterNoticeMinutes * AgentParameters.MINUTE), clearingOwners, nightBatch,
            moveSavingBps, (long)(moveEveryMinutes * AgentParameters.MINUTE), handOverOnNotice);
        final Path dir = out != null ? out : Path.of("target", "sim-" + seed + "-" + DemoRun.timestamp());
        System.err.printf("gpux sim: %d agents, %s of market from %s UTC, seed %d%n", agents, SimRun.marketSpan(days),
            SimRun.hourOfDay(openHour), seed);
        final RunOutcome outcome = SimRun.run(new SimRun.Options(seed, agents, days, failureAccel, reclaimsPerDay, load, dir,
            rules, levers, openHour, steadyStart),
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
