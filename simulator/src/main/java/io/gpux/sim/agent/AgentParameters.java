package io.gpux.sim.agent;

import io.gpux.sim.market.MarketRules;
import java.util.Map;

/**
 * What every agent of a run shares: the market rules, the market's opening time, how fast machines
 * fail, how often owners reclaim, and what the population builder computed about the fleet.
 *
 * @param rules             the exchange's market rules.
 * @param openMs            market time at which the agents start.
 * @param failureAccel      machine failures happen this many times more often than their annual
 *                          rate says (a short run would see none otherwise).
 * @param reclaimsPerDay    reclaims per owner machine per day of market time.
 * @param largestMachine    per market, the most GPUs a machine of the fleet has (gang bids fit in it).
 * @param checkpointEveryMs renters' jobs checkpoint this often (and on every preemption notice).
 * @param levers            the agents' levers of the run.
 * @param fleet             which machines are broken (a job does no work on them).
 * @param steadyStart       renters open with the jobs the steady state has in flight (see {@link Renter}); otherwise
 *                          with fresh jobs, about as many as the steady state has at the day's mean rate.
 */
public record AgentParameters(
    MarketRules rules, long openMs, double failureAccel, double reclaimsPerDay, Map<String, Integer> largestMachine,
    long checkpointEveryMs, Levers levers, Fleet fleet, boolean steadyStart)
{
    public static final long HOUR = 3_600_000L;
    public static final long MINUTE = 60_000L;
    public static final long DAY = 24 * HOUR;
}
