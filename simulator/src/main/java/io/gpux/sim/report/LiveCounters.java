package io.gpux.sim.report;

import java.util.concurrent.atomic.LongAdder;

/** Counters that agents bump as things happen, for the progress line (any thread). */
public final class LiveCounters
{
    public final LongAdder trades = new LongAdder();
    public final LongAdder leasesStarted = new LongAdder();
    public final LongAdder notices = new LongAdder();
    public final LongAdder endsWithoutNotice = new LongAdder();
    public final LongAdder jobsArrived = new LongAdder();
    public final LongAdder jobsDone = new LongAdder();
    public final LongAdder failures = new LongAdder();
    public final LongAdder reclaims = new LongAdder();
    public final LongAdder commands = new LongAdder();
    public final LongAdder listenerErrors = new LongAdder();
}
