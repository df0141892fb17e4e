package io.gpux.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Single-threaded throughput of {@code MatchingEngine.apply}, in engine commands per second: each
 * invocation applies {@link #BATCH} precomputed commands of an endless, repeating {@link Workload}.
 *
 * <pre>
 *   ./gpux bench EngineBenchmark -prof gc                      # full run
 *   ./gpux bench EngineBenchmark -f 1 -wi 0 -i 1 -r 1s          # smoke test
 *   ./gpux bench EngineBenchmark.lobster -p lobsterZip=/path/to/LOBSTER_SampleFile_GOOG_2012-06-21_10.zip
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class EngineBenchmark
{
    /** Commands per benchmark invocation. */
    public static final int BATCH = 10_000;

    /** Real Nasdaq order flow (LOBSTER GOOG, 10 levels) as plain orders: ~48 % adds, 44 % cancels, 5 % executions. */
    @State(Scope.Thread)
    public static class Lobster
    {
        /** The LOBSTER zip; empty: found under shared/data or ../shared/data from the working directory up. */
        @Param("")
        public String lobsterZip;

        Replayer replayer;

        @Setup(Level.Trial)
        public void setup()
        {
            replayer = new Replayer(LobsterWorkload.get(DataFiles.find(lobsterZip, DataFiles.GOOG_10)));
            settle();
        }

        @Setup(Level.Iteration)
        public void markCpu()
        {
            replayer.markCpu();
        }

        @TearDown(Level.Iteration)
        public void reportCpu()
        {
            System.out.print(replayer.cpuReport() + " ");
            replayer.checkNoDrift();
        }
    }

    /** exchange-core-like synthetic stream: mostly moves of resting orders, GTC adds, IOC takers, cancels. */
    @State(Scope.Thread)
    public static class Synthetic
    {
        Replayer replayer;

        @Setup(Level.Trial)
        public void setup()
        {
            replayer = new Replayer(SyntheticWorkload.get());
            settle();
        }

        @Setup(Level.Iteration)
        public void markCpu()
        {
            replayer.markCpu();
        }

        @TearDown(Level.Iteration)
        public void reportCpu()
        {
            System.out.print(replayer.cpuReport() + " ");
            replayer.checkNoDrift();
        }
    }

    /** GPU market mix: heartbeats, gang and duration-capped bids, preemption with notices and hand-over, releases, ticks. */
    @State(Scope.Thread)
    public static class GpuMix
    {
        Replayer replayer;

        @Setup(Level.Trial)
        public void setup()
        {
            replayer = new Replayer(GpuMixWorkload.get());
            settle();
        }

        @Setup(Level.Iteration)
        public void markCpu()
        {
            replayer.markCpu();
        }

        @TearDown(Level.Iteration)
        public void reportCpu()
        {
            System.out.print(replayer.cpuReport() + " ");
            replayer.checkNoDrift();
        }
    }

    /**
     * After the (allocation-heavy) workload generation: a full GC, so that the measurement starts from a clean
     * heap and the engine's long-lived state sits in the old generation, as in a long-running exchange (a
     * zero-allocation run would otherwise keep it young for ever, and G1's write barriers cost less on young
     * objects). {@code -jvmArgsAppend -Dgpux.bench.gc=false} leaves it out.
     */
    static void settle()
    {
        if (!"false".equals(System.getProperty("gpux.bench.gc")))
        {
            System.gc();
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long lobster(final Lobster state)
    {
        return state.replayer.run(BATCH);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long synthetic(final Synthetic state)
    {
        return state.replayer.run(BATCH);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long gpuMix(final GpuMix state)
    {
        return state.replayer.run(BATCH);
    }
}
