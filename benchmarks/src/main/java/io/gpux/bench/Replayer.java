package io.gpux.bench;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.command.Command;

/**
 * Feeds a {@link Workload} to a {@link MatchingEngine}: the setup commands once, then the packed pass
 * ({@link CommandCodec}) in a loop, forever, each command decoded into one reused {@link Command}
 * flyweight. A pass leaves the engine with no open orders and no leases, so the book never grows; each
 * repetition runs {@link Workload#timeShiftMs} later and its RELEASEs name leases
 * {@link Workload#leasesPerPass} higher (the engine numbers leases on). The run loop allocates nothing.
 */
public final class Replayer
{
    final Workload workload;
    final MatchingEngine engine;
    final CountingSink sink = new CountingSink();
    private final Command cmd = new Command();
    private final CommandCodec.Decoder decoder;
    private final long[] pass;
    private final long timeShiftMs;
    private final long leasesPerPass;
    private int cursor;
    private long timeOffset;
    private long leaseOffset;
    private long passes;
    private long applied;
    private long cpuAtMark;
    private long appliedAtMark;

    public Replayer(final Workload workload)
    {
        this.workload = workload;
        this.engine = new MatchingEngine(sink);
        this.pass = workload.packedPass;
        this.timeShiftMs = workload.timeShiftMs;
        this.leasesPerPass = workload.leasesPerPass;
        for (final Command c : workload.setup)
        {
            cmd.copyFrom(c);
            engine.apply(cmd);
        }
        decoder = new CommandCodec.Decoder(cmd);
    }

    /** Applies the next n commands of the endless stream; returns an event count (for the blackhole). */
    public long run(final int n)
    {
        applied += n;
        final MatchingEngine e = engine;
        final long[] p = pass;
        final Command c = cmd;
        final CommandCodec.Decoder d = decoder;
        int pos = cursor;
        for (int i = 0; i < n; i++)
        {
            pos = d.decode(p, pos, timeOffset, leaseOffset);
            e.apply(c);
            if (pos == p.length)
            {
                pos = 0;
                timeOffset += timeShiftMs;
                leaseOffset += leasesPerPass;
                passes++;
            }
        }
        cursor = pos;
        return sink.counts[0];
    }

    /** Runs to the end of the current pass. */
    void finishPass()
    {
        final long p = passes;
        while (passes == p)
        {
            run(1);
        }
    }

    /**
     * Checks that the endless replay has not drifted from the recorded pass: a drift (a lease id off, an
     * order already gone) shows up as REJECTED events the recording did not have.
     *
     * @throws IllegalStateException on drift.
     */
    void checkNoDrift()
    {
        final int rejected = io.gpux.engine.event.EventType.REJECTED.ordinal();
        final long perPass = workload.passEvents[rejected];
        final long actual = sink.counts[rejected];
        if (actual < passes * perPass || actual > (passes + 1) * perPass)
        {
            throw new IllegalStateException(workload.name + ": replay drifted: " + actual + " rejects after " + passes +
                " passes, recorded " + perPass + " per pass");
        }
    }

    /** Starts a CPU-time measurement of this (the calling) thread. */
    void markCpu()
    {
        cpuAtMark = CPU.getCurrentThreadCpuTime();
        appliedAtMark = applied;
    }

    /**
     * Commands per CPU-second of the calling thread since {@link #markCpu()}: unlike the wall-clock score it
     * does not drop when other processes take the CPU (it still does when they take the caches).
     */
    String cpuReport()
    {
        final long cpu = CPU.getCurrentThreadCpuTime() - cpuAtMark;
        final long n = applied - appliedAtMark;
        return String.format("[%s: %,d commands, %.2f M commands per CPU-second of the benchmark thread, %d passes]",
            workload.name, n, cpu > 0 ? n * 1e3 / cpu : 0.0, passes);
    }

    private static final java.lang.management.ThreadMXBean CPU = java.lang.management.ManagementFactory.getThreadMXBean();

    public long passes()
    {
        return passes;
    }

    public MatchingEngine engine()
    {
        return engine;
    }
}
