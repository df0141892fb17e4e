package io.gpux.bench.suite;

import java.util.List;

/**
 * How long {@link BenchSuite} measures: {@link #SHORT} (the default, under 5 minutes on 2 cores), {@link #FULL}
 * ({@code --full}, what the README quotes) and {@link #SMOKE} ({@code --smoke}: every benchmark for a second or
 * two with tiny counts, what CI runs so that no benchmark rots; its numbers mean nothing).
 *
 * @param jmhForks          JMH forks per benchmark (0: in the suite's own JVM)
 * @param xcBooks           exchange-core order books to run: direct, or direct,naive
 * @param pairedWarmupRounds {@code PairedBooks}: rounds not counted (each side one slice a round)
 * @param pairedRounds      {@code PairedBooks}: rounds measured, a ratio each
 * @param pairedSliceMs     {@code PairedBooks}: how long each side replays the flow in a round
 * @param pairedForks       {@code PairedBooks}: JVMs each paired run is repeated in (its {@code --forks}); under G1 each
 *                          side's speed is a draw per JVM, so a figure from one JVM is one draw
 * @param collectorFlows    the order flows the paired books are also run on under each other collector of
 *                          {@link Machine#COLLECTORS} (the run's own collector runs them all)
 * @param compareFlows      order flows of the pipeline comparison
 * @param compareRuns       runs of each throughput measurement (mean and standard deviation over them)
 * @param compareRates      offered rates of the latency runs, flow commands per second
 * @param latencySeconds    measured seconds of a latency run (after {@code latencyWarmupSeconds})
 * @param latencyConfigs    which of the {@link #PIPELINES} the latency runs cover (throughput covers all of them)
 * @param hiccupSeconds     measured seconds of the machine's floor: HiccupMeter (two spinning threads), then
 *                          LoopbackFloor at the round trip's rate (after a fifth of that as warm-up)
 */
record Profile(
    String name,
    int jmhForks, int jmhWarmups, String jmhWarmupTime, int jmhIterations, String jmhIterationTime,
    String xcBooks, int pairedWarmupRounds, int pairedRounds, int pairedSliceMs, int pairedForks, List<String> collectorFlows,
    List<String> compareFlows, int compareWarmup, int compareMessages, int compareRuns,
    List<Long> compareRates, double latencySeconds, double latencyWarmupSeconds, int latencyMinMessages,
    List<String> latencyConfigs,
    int pipelineWarmup, int pipelineCommands, int pipelineRuns, List<String> pipelineDurabilities, List<Long> pipelineRates,
    int recoveryCommands, int recoverySnapshotEvery,
    long roundTripRate, int roundTripSeconds, int roundTripWarmup,
    int hiccupSeconds)
{
    /** The pipelines compared: gpux ASYNC and SYNC, exchange-core with its journal on and off. */
    static final List<String> PIPELINES = List.of("gpux-ASYNC", "gpux-SYNC", "xc-on", "xc-off");

    static final Profile SHORT = new Profile("short",
        1, 2, "1s", 3, "1s",
        "direct", 10, 30, 100, 1, List.of("synthetic"),
        List.of("synthetic"), 200_000, 600_000, 2,
        List.of(100_000L), 4, 3, 0,
        List.of("gpux-ASYNC", "gpux-SYNC", "xc-on"),
        300_000, 1_000_000, 2, List.of("ASYNC"), List.of(100_000L),
        2_000_000, 500_000,
        // the round trip needs about 15 s before the JIT has settled (C2 still busy at 10 s)
        20_000, 5, 15,
        6);

    static final Profile FULL = new Profile("full",
        2, 3, "2s", 5, "2s",
        "direct,naive", 20, 100, 100, 3, List.of("synthetic", "lobster"),
        List.of("synthetic", "lobster"), 500_000, 3_000_000, 3,
        List.of(10_000L, 50_000L, 100_000L, 200_000L), 10, 3, 0,
        PIPELINES,
        1_000_000, 3_000_000, 3, List.of("ASYNC", "SYNC"), List.of(10_000L, 50_000L, 100_000L),
        10_000_000, 1_500_000,
        50_000, 10, 20,
        30);

    static final Profile SMOKE = new Profile("smoke",
        0, 0, "100ms", 1, "100ms",
        "direct", 1, 3, 20, 2, List.of("synthetic"),
        List.of("synthetic"), 10_000, 30_000, 1,
        List.of(20_000L), 0.5, 0.2, 5_000,
        List.of("gpux-ASYNC", "xc-on"),
        10_000, 30_000, 1, List.of("ASYNC"), List.of(20_000L),
        20_000, 7_000,
        2_000, 1, 1,
        1);

    /** Measured flow commands of a latency run at a rate. */
    int latencyMessages(final long rate)
    {
        return (int)Math.max(latencyMinMessages, rate * latencySeconds);
    }

    int latencyWarmup(final long rate)
    {
        return (int)Math.max(latencyMinMessages / 4, rate * latencyWarmupSeconds);
    }

    String describe()
    {
        return String.format("JMH: %d fork(s), %d x %s warm-up, %d x %s measurement, -prof gc; books paired in one JVM: %d " +
            "rounds of %d ms a side after %d warm-up rounds, in %d JVM(s), also under the other collectors on %s; pipeline comparison: flows %s, " +
            "throughput %,d warm-up + %,d measured flow commands x %d runs, latency at %s flow commands/s (%.1f s warm-up + " +
            "%.1f s measured) for %s; PipelineBenchmark: %,d + %,d commands x %d runs %s, latency at %s/s; recovery after " +
            "%,d commands (snapshot every %,d); round trip %,d bids/s, %d s + %d s warm-up; machine's floor %d s",
            jmhForks, jmhWarmups, jmhWarmupTime, jmhIterations, jmhIterationTime, pairedRounds, pairedSliceMs, pairedWarmupRounds, pairedForks, collectorFlows,
            compareFlows, compareWarmup, compareMessages, compareRuns, compareRates, latencyWarmupSeconds, latencySeconds, latencyConfigs, pipelineWarmup, pipelineCommands,
            pipelineRuns, pipelineDurabilities, pipelineRates, recoveryCommands, recoverySnapshotEvery, roundTripRate,
            roundTripSeconds, roundTripWarmup, hiccupSeconds);
    }
}
