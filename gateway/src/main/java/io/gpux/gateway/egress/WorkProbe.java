package io.gpux.gateway.egress;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * For benchmarks: told the wall time and the thread's own CPU time of each unit of the work the core's and
 * the egress's threads do for queries and resends (in the shared layout, one thread: the event loop that also
 * runs the core). The CPU time is what the thread ran ({@code CLOCK_THREAD_CPUTIME_ID}), so a unit's CPU time
 * is the work it caused, and its wall time beyond that is the scheduler's. Off by default: with no probe
 * ({@link io.gpux.gateway.Exchange#workProbe}) no clock is read; the matching path is never timed.
 */
@FunctionalInterface
public interface WorkProbe
{
    /** The units timed. */
    enum Work
    {
        /** A portfolio query's copy of the account's orders, leases and machines, on the core thread. */
        PORTFOLIO_COPY,
        /** A portfolio answer's encoding, on the portfolio encoder's thread (the egress's and the core's threads wait for none). */
        PORTFOLIO_ENCODE,
        /**
         * An encoded portfolio answer's write to its session's output, with what waited behind it, on the egress thread
         * (and, when the encoder is full, the answer's encoding too).
         */
        PORTFOLIO_WRITE,
        /** A resend's round of journal reads (a bounded number of documents and time), on the resend reader's thread. */
        RESEND_SLICE,
        /**
         * The egress's part of a duty cycle's resends, on the egress thread: the rounds read since the last cycle written
         * to their sessions, the sessions brought live, the resends handed over for their next round.
         */
        RESEND_WRITE
    }

    /** On the thread that did the work, right after it. */
    void done(Work work, long wallNs, long cpuNs);

    /** Times one kind of work on the thread that calls it: {@link #start()}, the work, {@link #stop()}. One thread per timer. */
    final class Timer
    {
        private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
        private final WorkProbe probe;
        private final Work work;
        private long wallStart;
        private long cpuStart;

        private Timer(final WorkProbe probe, final Work work)
        {
            this.probe = probe;
            this.work = work;
        }

        /** A timer of {@code work} for {@code probe}, or null when there is no probe (nothing is timed). */
        public static Timer of(final WorkProbe probe, final Work work)
        {
            return probe == null ? null : new Timer(probe, work);
        }

        /** The calling thread's CPU time so far, in nanoseconds. */
        public static long threadCpuNs()
        {
            return THREADS.getCurrentThreadCpuTime();
        }

        public void start()
        {
            wallStart = System.nanoTime();
            cpuStart = THREADS.getCurrentThreadCpuTime();
        }

        public void stop()
        {
            final long cpu = THREADS.getCurrentThreadCpuTime() - cpuStart;
            probe.done(work, System.nanoTime() - wallStart, cpu);
        }
    }
}
