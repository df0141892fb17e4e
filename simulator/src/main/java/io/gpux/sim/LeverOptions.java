package io.gpux.sim;

import io.gpux.sim.agent.AgentParameters;
import io.gpux.sim.agent.Levers;
import io.gpux.sim.market.MarketRules;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/** The market's levers, as options of {@code gpux sim} and {@code gpux demo} (all off by default: the rulebook's market). */
final class LeverOptions
{
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

    @Option(names = "--restart-minutes", paramLabel = "MINUTES", description = "not a lever but a cost: every lease a "
        + "renter's job starts on (its first, after a preemption, after a move) restarts the job from its checkpoint for "
        + "this many market minutes before it works, 0: none (default ${DEFAULT-VALUE})")
    double restartMinutes;

    /** Refuses values out of range, in one line. */
    void check(final CommandLine command)
    {
        if (preemptIncrementBps < 0 || preemptIncrementBps > 10_000 || calmAfterNoticeMinutes < 0 || nightBatch < 0
            || restartMinutes < 0 || moveSavingBps < 0 || moveSavingBps >= 10_000 || moveEveryMinutes <= 0)
        {
            throw new CommandLine.ParameterException(command, "--preempt-increment-bps must be 0 to 10000, "
                + "--calm-after-notice, --night-batch and --restart-minutes not negative, --move-when-cheaper 0 to 9999, "
                + "--move-every positive");
        }
    }

    /** The markets' side of the levers, on {@code base}. */
    MarketRules rules(final MarketRules base)
    {
        return base.withLevers(preemptIncrementBps, fragmentFirst);
    }

    /** The agents' side of the levers. */
    Levers levers()
    {
        return new Levers((long)(calmAfterNoticeMinutes * AgentParameters.MINUTE), clearingOwners, nightBatch, moveSavingBps,
            (long)(moveEveryMinutes * AgentParameters.MINUTE), handOverOnNotice, (long)(restartMinutes * AgentParameters.MINUTE));
    }
}
