package io.gpux.bench;

import java.util.function.IntToLongFunction;

/**
 * gpux's engine on an order flow as a plain function (the work of {@link OrderBookBenchmark}), for a harness that
 * loads another gpux build's benchmarks jar in a class loader of its own and alternates it with this one in one JVM
 * ({@code ./gpux bench-paired --against JAR}): {@link #applyAsLong} applies the gpux commands of the next n flow
 * commands; {@link #run} checks that the replay has not drifted. Only JDK interfaces cross the class-loader boundary.
 */
public final class GpuxSlices implements IntToLongFunction, Runnable
{
    private final OrderBookBenchmark.Flow flow;

    private GpuxSlices(final OrderBookBenchmark.Flow flow)
    {
        this.flow = flow;
    }

    /** Builds and verifies gpux's workload for the flow (as the JMH benchmark's setup does), ready to replay it. */
    public static GpuxSlices of(final String flow, final String flowDir)
    {
        final OrderBookBenchmark.Flow f = new OrderBookBenchmark.Flow();
        f.flow = flow;
        f.flowDir = flowDir;
        f.setup();
        return new GpuxSlices(f);
    }

    @Override
    public long applyAsLong(final int flowCommands)
    {
        return flow.run(flowCommands);
    }

    @Override
    public void run()
    {
        flow.replayer.checkNoDrift();
    }
}
