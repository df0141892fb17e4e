package io.gpux.engine;

import io.gpux.engine.InvariantStream.Act;
import io.gpux.engine.InvariantStream.Actions;
import io.gpux.engine.InvariantStream.Setup;
import io.gpux.engine.InvariantStream.Setups;
import io.gpux.engine.event.EventType;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.statistics.Statistics;

import java.util.List;

/**
 * Random command streams ({@link InvariantStream}: thousands of scenario lines over three markets, owners,
 * renters with small and large deposits, a market maker, machines in regions whose heartbeats sometimes
 * stop, every order type and constraint, cancels, replaces, mass cancels, reclaims, releases, halts, API
 * keys, and time jumps of up to hours). After every line the {@link InvariantChecker} runs (rulebook
 * section 12 and the engine's own consistency).
 *
 * <p>A failure reports (and writes under {@code target/invariant-failures/}) the scenario text up to
 * the failing line, ready for {@code gpux replay} ({@link InvariantRun}). jqwik prints the seed; failures
 * shrink to a short action list. Each property runs ten times its tries under {@code -Pstress}
 * ({@link StressTries}).
 */
@AddLifecycleHook(StressTries.class)
class EngineInvariantProperties
{
    /** Invariants 1-3 and 5 and the engine's consistency, after every command of a long random stream. */
    @Property(tries = 20)
    void invariantsHoldAfterEveryCommand(@ForAll(supplier = Setups.class) final Setup setup,
        @ForAll(supplier = Actions.class) final List<Act> acts)
    {
        final InvariantRun run = InvariantRun.run(setup, acts, false);
        Statistics.label("preemption notice").collect(run.totals.getOrDefault(EventType.PREEMPT_NOTICE, 0) > 0);
        Statistics.label("notice reasons").collect(run.noticeReasons.keySet().toString());
        Statistics.label("machine offline").collect(run.totals.getOrDefault(EventType.MACHINE_OFFLINE, 0) > 0);
        Statistics.label("settlements > 100").collect(run.checker.settlements() > 100);
        Statistics.label("plain fills > 50").collect(run.checker.plainFills() > 50);
        Statistics.label("notices > 10").collect(run.checker.notices() > 10);
        Statistics.label("preemption fills > 5").collect(run.checker.preemptionFills() > 5);
        Statistics.label("days").collect(run.time / 86_400_000L);
    }

    /**
     * The same checks on streams aimed at preemption: machines that never time out, bids only in the two
     * preemption markets, priced higher, a third of them gang bids; grace periods from 0 up.
     */
    @Property(tries = 15)
    void invariantsHoldUnderHeavyPreemption(@ForAll(supplier = Setups.class) final Setup setup,
        @ForAll(supplier = Actions.class) final List<Act> acts)
    {
        final Setup noTimeout = new Setup(setup.graceH(), setup.prepayH(), setup.feeH(), setup.minIncTicksH(),
            setup.graceA(), setup.prepayA(), setup.graceL(), 3, setup.depositR1(), setup.depositR4());
        final InvariantRun run = InvariantRun.run(noTimeout, acts, false, true);
        Statistics.label("preemption fills > 20").collect(run.checker.preemptionFills() > 20);
        Statistics.label("notices ended early > 3").collect(run.checker.noticesEndedEarly() > 3);
        Statistics.label("gang preemptions > 2").collect(run.checker.gangPreemptions() > 2);
    }
}
