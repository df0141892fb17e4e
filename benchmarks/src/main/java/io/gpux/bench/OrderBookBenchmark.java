package io.gpux.bench;

import io.gpux.bench.flow.OrderFlow;
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
 * gpux's side of the order book comparison with exchange-core: the engine ({@code MatchingEngine.apply}, driven as
 * {@link EngineBenchmark} drives it) on a plain {@link OrderFlow}, in <b>flow commands per second</b>, the unit of
 * exchange-core's side ({@code io.gpux.bench.xc.ExchangeCoreBookBenchmark} in module benchmarks-exchange-core),
 * which replays the same file. Each invocation applies the gpux commands of {@link #BATCH} flow commands: the
 * flow command itself and whatever gpux needs after it ({@link OrderFlowWorkload}: cancels of fully leased asks,
 * lease releases, end-of-pass deposits), all of it measured.
 *
 * <pre>
 *   ./gpux bench OrderBookBenchmark -prof gc                            # both flows
 *   ./gpux bench OrderBookBenchmark -p flow=lobster -p flowDir=benchmarks/target/flows
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class OrderBookBenchmark
{
    /** Flow commands per benchmark invocation. */
    public static final int BATCH = 10_000;

    @State(Scope.Thread)
    public static class Flow
    {
        /** lobster or synthetic. */
        @Param({"lobster", "synthetic"})
        public String flow;

        /** Directory of the flow files; empty: benchmarks/target/flows under the project root (generated if absent). */
        @Param("")
        public String flowDir;

        OrderFlowWorkload gpux;
        Replayer replayer;
        int position;

        @Setup(Level.Trial)
        public void setup()
        {
            final OrderFlow f = OrderFlows.get(flow, flowDir);
            gpux = OrderFlowWorkload.of(f);
            System.out.println("[" + f.summary() + "]");
            System.out.println("[gpux: " + gpux.workload.notes + "]");
            replayer = new Replayer(gpux.workload);
            EngineBenchmark.settle();
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

        long run()
        {
            return run(BATCH);
        }

        /** Applies the gpux commands of the next {@code flowCommands} flow commands. */
        long run(final int flowCommands)
        {
            final int commands = gpux.commandsFor(position, flowCommands);
            position = (position + flowCommands) % gpux.messageEnd.length;
            return replayer.run(commands);
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long gpux(final Flow state)
    {
        return state.run();
    }
}
