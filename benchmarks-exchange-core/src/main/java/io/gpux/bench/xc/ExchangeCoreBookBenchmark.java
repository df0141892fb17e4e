package io.gpux.bench.xc;

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

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.TimeUnit;

/**
 * exchange-core's side of the order book comparison: {@code OrderBookDirectImpl} (its fast book; {@code -p
 * impl=naive} for {@code OrderBookNaiveImpl}) on an order flow file that gpux's side wrote, in flow commands per
 * second, with the same JMH settings as gpux's {@code OrderBookBenchmark} (each invocation {@link #BATCH} flow
 * commands). Run from this module's jar, with the root pom's {@code gpux.jvm.flags}:
 *
 * <pre>
 *   java FLAGS -jar benchmarks-exchange-core/target/benchmarks-exchange-core.jar ExchangeCoreBookBenchmark -prof gc
 *   ... -p flow=lobster -p impl=direct,naive -p flowDir=benchmarks/target/flows
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ExchangeCoreBookBenchmark
{
    /** Flow commands per benchmark invocation (as gpux's OrderBookBenchmark). */
    public static final int BATCH = 10_000;

    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

    @State(Scope.Thread)
    public static class Book
    {
        /** lobster or synthetic. */
        @Param({"lobster", "synthetic"})
        public String flow;

        /** direct (OrderBookDirectImpl) or naive (OrderBookNaiveImpl). */
        @Param({"direct"})
        public String impl;

        /** Directory of the flow files; empty: benchmarks/target/flows under the project root. */
        @Param("")
        public String flowDir;

        BookReplayer replayer;
        private long cpuAtMark;
        private long appliedAtMark;

        @Setup(Level.Trial)
        public void setup() throws IOException
        {
            final OrderFlow f = OrderFlow.load(flow, flowDir);
            System.out.println("[order flow " + f.summary() + ", from " + OrderFlow.file(flow, flowDir) + "]");
            BookReplayer.verify(f, impl);
            replayer = new BookReplayer(f, impl);
            System.gc();
        }

        @Setup(Level.Iteration)
        public void markCpu()
        {
            cpuAtMark = CPU.getCurrentThreadCpuTime();
            appliedAtMark = replayer.applied();
        }

        @TearDown(Level.Iteration)
        public void reportCpu()
        {
            final long cpu = CPU.getCurrentThreadCpuTime() - cpuAtMark;
            final long n = replayer.applied() - appliedAtMark;
            System.out.printf("[exchange-core %s %s: %,d commands, %.2f M commands per CPU-second of the benchmark thread, " +
                "%d passes] ", impl, flow, n, cpu > 0 ? n * 1e3 / cpu : 0.0, replayer.passes());
            replayer.check();
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long book(final Book state)
    {
        return state.replayer.run(BATCH);
    }
}
