package io.gpux.sim;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.sim.agent.AgentParameters;
import io.gpux.sim.agent.Levers;
import io.gpux.sim.market.MarketRules;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code ./gpux sim} with every lever on: the invariants hold, the run says which levers it used, and
 * renters whose bids after a notice may not preempt pass no preemption on (no cascade), where the
 * same market without the levers has cascades; jobs move onto cheaper GPUs (through the engine: IOC,
 * no-preempt gang bids) and money, GPUs and notices still add up.
 */
class SimLeversTest
{
    private static final Pattern MOVES = Pattern.compile("\\(([0-9,]+) moves\\)");
    private static final Pattern FILLS = Pattern.compile("([0-9,]+) preempting fills by renters, ([0-9,]+) of them cascades");

    private static long[] preemptions(final RunOutcome outcome)
    {
        assertTrue(outcome.ok(), "checks hold: " + outcome.checks());
        final Matcher m = FILLS.matcher(outcome.summary());
        assertTrue(m.find(), "the summary counts preempting fills: " + outcome.summary());
        return new long[] {Long.parseLong(m.group(1).replace(",", "")), Long.parseLong(m.group(2).replace(",", ""))};
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void everyLeverOnHoldsTheChecksAndStopsCascades()
    {
        final long[] before = preemptions(SimRuns.plain(11).outcome());
        assertTrue(before[1] > 0, "cascades without the levers: " + before[1]);

        final RunOutcome with = SimRuns.run(11, MarketRules.SIM.withLevers(1000, true),
            new Levers(30 * AgentParameters.MINUTE, true, 0.5, 1000, Levers.MOVE_EVERY_MS, true, 0)).outcome();
        assertTrue(with.summary().contains("preemption increment 1000 bps, fragments first on, calm after notice 30 min, "
            + "clearing owners on, night batch 0.50, move when cheaper 1000 bps"), with.summary());
        assertTrue(with.summary().contains("hand over on notice on"), with.summary());
        final Matcher moves = MOVES.matcher(with.summary());
        assertTrue(moves.find() && Long.parseLong(moves.group(1).replace(",", "")) > 0, "jobs moved onto cheaper GPUs: "
            + with.summary());
        final long[] after = preemptions(with);
        assertTrue(after[0] > 0, "renters still preempt after the calm period");
        assertTrue(after[1] == 0, "no bid placed on a notice preempts: " + after[1]);
    }
}
