package io.gpux.bench.scale;

import io.gpux.bench.LatencyLine;
import io.gpux.gateway.egress.WorkProbe;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * {@link ResendStall}'s probe of the exchange's own work ({@link io.gpux.gateway.Exchange#workProbe}): each portfolio
 * copy (core thread), portfolio encode (the portfolio encoder's thread), resend slice (the resend reader's thread),
 * portfolio write and resend write (egress thread; in the shared layout the same event loop as the core), by the
 * wall clock and by the thread's CPU time, a phase at a time. Recorded on the exchange's threads,
 * read on the benchmark's.
 */
final class WorkTimes implements WorkProbe
{
    private static final Work[] WORKS = Work.values();
    /** The JSON field prefix of each kind of work. */
    private static final String[] NAMES = {"portfolioCopy", "portfolioEncode", "portfolioWrite", "resendSlice", "resendWrite"};
    private static final String[] LABELS = {"portfolio copies", "portfolio encodes", "portfolio writes", "resend slices",
        "resend writes"};

    private final Recorder[] wall = new Recorder[WORKS.length];
    private final Recorder[] cpu = new Recorder[WORKS.length];
    /** Per kind of work: units done since the exchange started; the phase's most CPU, and which unit it was. */
    private final AtomicLongArray done = new AtomicLongArray(WORKS.length);
    private final AtomicLongArray phaseMaxCpu = new AtomicLongArray(WORKS.length);
    private final AtomicLongArray phaseMaxAt = new AtomicLongArray(WORKS.length);

    WorkTimes()
    {
        for (int w = 0; w < WORKS.length; w++)
        {
            wall[w] = new Recorder(60_000_000_000L, 3);
            cpu[w] = new Recorder(60_000_000_000L, 3);
        }
    }

    @Override
    public void done(final Work work, final long wallNs, final long cpuNs)
    {
        final int w = work.ordinal();
        wall[w].recordValue(Math.min(60_000_000_000L, Math.max(0, wallNs)));
        cpu[w].recordValue(Math.min(60_000_000_000L, Math.max(0, cpuNs)));
        // one thread does each kind of work: these are read by the benchmark's thread, written only here
        final long n = done.incrementAndGet(w);
        if (cpuNs > phaseMaxCpu.get(w))
        {
            phaseMaxCpu.set(w, cpuNs);
            phaseMaxAt.set(w, n);
        }
    }

    /**
     * One phase's figures: per kind of work, its wall and CPU times, and which unit since the exchange started took
     * the most CPU (its first is 1: a maximum among the first units is the JVM's first run of that code).
     */
    record Phase(Histogram[] wallNs, Histogram[] cpuNs, long[] maxCpuAt, long[] doneSinceStart)
    {
        /** A line per kind of work seen, wall time and CPU time in microseconds. */
        String lines()
        {
            final StringBuilder s = new StringBuilder();
            for (int w = 0; w < WORKS.length; w++)
            {
                if (wallNs[w].getTotalCount() > 0)
                {
                    s.append(String.format(Locale.ROOT, "%n    %s (%,d), us: wall %s; CPU %s (the most CPU: unit %,d of %,d since the start)",
                        LABELS[w], wallNs[w].getTotalCount(), LatencyLine.of(wallNs[w]), LatencyLine.of(cpuNs[w]),
                        maxCpuAt[w], doneSinceStart[w]));
                }
            }
            return s.toString();
        }

        /** The JSON fields, flat: {@code resendSliceCount}, {@code resendSliceCpuP999Us}, ... */
        String json()
        {
            final StringBuilder s = new StringBuilder();
            for (int w = 0; w < WORKS.length; w++)
            {
                s.append(String.format(Locale.ROOT, ",\"%sCount\":%d", NAMES[w], wallNs[w].getTotalCount()));
                fields(s, NAMES[w] + "Wall", wallNs[w]);
                fields(s, NAMES[w] + "Cpu", cpuNs[w]);
                s.append(String.format(Locale.ROOT, ",\"%sCpuMaxAt\":%d", NAMES[w], maxCpuAt[w]));
            }
            return s.toString();
        }

        private static void fields(final StringBuilder s, final String prefix, final Histogram ns)
        {
            s.append(String.format(Locale.ROOT, ",\"%sP50Us\":%.1f,\"%sP99Us\":%.1f,\"%sP999Us\":%.1f,\"%sMaxUs\":%.1f",
                prefix, ns.getValueAtPercentile(50) / 1e3, prefix, ns.getValueAtPercentile(99) / 1e3, prefix,
                ns.getValueAtPercentile(99.9) / 1e3, prefix, ns.getMaxValue() / 1e3));
        }
    }

    /** Forgets what was recorded so far: a phase starts. */
    void reset()
    {
        for (int w = 0; w < WORKS.length; w++)
        {
            wall[w].reset();
            cpu[w].reset();
            phaseMaxCpu.set(w, 0);
            phaseMaxAt.set(w, 0);
        }
    }

    /** What was recorded since the last {@link #reset()} or {@code take()}. */
    Phase take()
    {
        final Histogram[] wallNs = new Histogram[WORKS.length];
        final Histogram[] cpuNs = new Histogram[WORKS.length];
        final long[] maxAt = new long[WORKS.length];
        final long[] since = new long[WORKS.length];
        for (int w = 0; w < WORKS.length; w++)
        {
            wallNs[w] = wall[w].getIntervalHistogram();
            cpuNs[w] = cpu[w].getIntervalHistogram();
            maxAt[w] = phaseMaxAt.get(w);
            since[w] = done.get(w);
        }
        return new Phase(wallNs, cpuNs, maxAt, since);
    }
}
