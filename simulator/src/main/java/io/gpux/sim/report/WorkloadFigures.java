package io.gpux.sim.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The workload lane's figures: real workloads run by owner agents on leases, as their renters saw
 * them. Readiness is the wall time from the renter's client hearing the lease start (the fill) to it
 * hearing the workload RUNNING; a relaunch is any attempt after a job's first; the work an
 * interruption lost is the count the interrupted attempt had reached minus the count the next attempt
 * started from (its checkpoint, or 0 without one), in steps of {@code stepMs} of wall time.
 */
public final class WorkloadFigures
{
    /**
     * One attempt of a job.
     *
     * @param readinessMs wall milliseconds from the lease's start to RUNNING at the renter; -1: never ran.
     * @param from        the count it started from (-1: it never started counting).
     * @param reached     the highest count it reached.
     * @param interrupted whether a notice or an early end of its lease stopped it.
     * @param result      how it ended, in words.
     */
    public record AttemptRun(int number, long readinessMs, int from, int reached, boolean interrupted, String result)
    {
    }

    /**
     * One job.
     *
     * @param outcome    SUCCEEDED, GAVE_UP or CANCELLED (still running when the market closed).
     * @param finalCount the count the job ended with (its checkpoint's, or the last attempt's).
     */
    public record JobRun(String name, boolean checkpointed, int target, String outcome, int finalCount, List<AttemptRun> attempts)
    {
    }

    /** The work lost by the interruptions of one kind of job (those followed by another attempt). */
    public record Loss(int interruptions, long steps, int maxSteps)
    {
        public double meanSteps()
        {
            return interruptions == 0 ? Double.NaN : steps / (double)interruptions;
        }
    }

    public final List<JobRun> jobs;
    public final long stepMs;
    public final int succeeded;
    public final int attempts;
    public final int relaunches;
    public final int interruptions;
    public final int readinessSamples;
    public final long readinessP50Ms;
    public final long readinessP99Ms;
    public final long readinessMaxMs;
    public final Loss withCheckpoint;
    public final Loss withoutCheckpoint;
    /** Every job that succeeded ended with its target count. */
    public final boolean countsRight;

    public WorkloadFigures(final List<JobRun> jobs, final long stepMs)
    {
        this.jobs = List.copyOf(jobs);
        this.stepMs = stepMs;
        int ok = 0;
        int all = 0;
        int again = 0;
        int interrupted = 0;
        boolean right = true;
        final Percentiles readiness = new Percentiles();
        long readinessMax = -1;
        final long[] lostWith = new long[3];
        final long[] lostWithout = new long[3];
        for (final JobRun job : jobs)
        {
            if ("SUCCEEDED".equals(job.outcome()))
            {
                ok++;
                right &= job.finalCount() == job.target();
            }
            final List<AttemptRun> as = job.attempts();
            for (int i = 0; i < as.size(); i++)
            {
                final AttemptRun a = as.get(i);
                all++;
                again += i > 0 ? 1 : 0;
                if (a.readinessMs() >= 0)
                {
                    readiness.record(a.readinessMs());
                    readinessMax = Math.max(readinessMax, a.readinessMs());
                }
                if (a.interrupted())
                {
                    interrupted++;
                    if (i + 1 < as.size() && as.get(i + 1).from() >= 0 && a.from() >= 0)
                    {
                        add(job.checkpointed() ? lostWith : lostWithout, Math.max(0, a.reached() - as.get(i + 1).from()));
                    }
                }
            }
        }
        this.succeeded = ok;
        this.attempts = all;
        this.relaunches = again;
        this.interruptions = interrupted;
        this.countsRight = right;
        this.readinessSamples = (int)readiness.count();
        this.readinessP50Ms = readiness.at(50);
        this.readinessP99Ms = readiness.at(99);
        this.readinessMaxMs = readinessMax;
        this.withCheckpoint = new Loss((int)lostWith[0], lostWith[1], (int)lostWith[2]);
        this.withoutCheckpoint = new Loss((int)lostWithout[0], lostWithout[1], (int)lostWithout[2]);
    }

    private static void add(final long[] loss, final int steps)
    {
        loss[0]++;
        loss[1] += steps;
        loss[2] = Math.max(loss[2], steps);
    }

    /** How many jobs ended each way. */
    public Map<String, Integer> outcomes()
    {
        final Map<String, Integer> m = new TreeMap<>();
        for (final JobRun j : jobs)
        {
            m.merge(j.outcome(), 1, Integer::sum);
        }
        return m;
    }

    /** The lines of the summary printed at the end of the demo. */
    public List<String> summaryLines()
    {
        final List<String> lines = new ArrayList<>();
        lines.add(Report.line("workloads", String.format(Locale.ROOT, "%d jobs run by owner agents (process runtime, recorded "
            + "H200s): %s; %d attempts, %d relaunches, %d interruptions", jobs.size(), Labels.counts(outcomes()), attempts, relaunches,
            interruptions)));
        lines.add(Report.line("readiness", readinessSamples == 0 ? "no workload reached RUNNING"
            : String.format(Locale.ROOT, "fill -> RUNNING at the renter: p50 %d ms, p99 %d ms, max %d ms (%d attempts)",
                readinessP50Ms, readinessP99Ms, readinessMaxMs, readinessSamples)));
        lines.add(Report.line("work lost", "per interruption: with checkpoints " + loss(withCheckpoint) + "; without "
            + loss(withoutCheckpoint)));
        return lines;
    }

    private String loss(final Loss l)
    {
        if (l.interruptions() == 0)
        {
            return "none measured";
        }
        return String.format(Locale.ROOT, "%.1f steps (%.1f s) on average, at most %d, over %d", l.meanSteps(),
            l.meanSteps() * stepMs / 1000.0, l.maxSteps(), l.interruptions());
    }

    /** The report.json section. */
    public Map<String, Object> toJson()
    {
        final Map<String, Object> m = Json.object();
        m.put("what", "real workloads (a shell job counting steps of " + stepMs + " ms) run by owner agents with the process "
            + "runtime on recorded H200s, kept going by managed jobs");
        m.put("jobs", jobs.size());
        m.put("outcomes", outcomes());
        m.put("attempts", attempts);
        m.put("relaunches", relaunches);
        m.put("interruptions", interruptions);
        final Map<String, Object> r = Json.object();
        r.put("what", "wall ms from the renter's client hearing the lease start (the fill) to it hearing the workload RUNNING");
        r.put("samples", readinessSamples);
        r.put("p50Ms", readinessP50Ms);
        r.put("p99Ms", readinessP99Ms);
        r.put("maxMs", readinessMaxMs);
        m.put("readiness", r);
        final Map<String, Object> lost = Json.object();
        lost.put("what", "per interruption followed by another attempt: the count reached minus the next attempt's start, in steps");
        lost.put("stepMs", stepMs);
        lost.put("withCheckpoint", lossJson(withCheckpoint));
        lost.put("withoutCheckpoint", lossJson(withoutCheckpoint));
        m.put("workLostPerInterruption", lost);
        m.put("countsRight", countsRight);
        final List<Object> list = new ArrayList<>();
        for (final JobRun j : jobs)
        {
            final Map<String, Object> jm = Json.object();
            jm.put("name", j.name());
            jm.put("checkpointed", j.checkpointed());
            jm.put("target", j.target());
            jm.put("outcome", j.outcome());
            jm.put("finalCount", j.finalCount());
            final List<Object> as = new ArrayList<>();
            for (final AttemptRun a : j.attempts())
            {
                final Map<String, Object> am = Json.object();
                am.put("attempt", a.number());
                am.put("readinessMs", a.readinessMs());
                am.put("from", a.from());
                am.put("reached", a.reached());
                am.put("interrupted", a.interrupted());
                am.put("result", a.result());
                as.add(am);
            }
            jm.put("attempts", as);
            list.add(jm);
        }
        m.put("jobList", list);
        return m;
    }

    private Map<String, Object> lossJson(final Loss l)
    {
        final Map<String, Object> m = Json.object();
        m.put("interruptions", l.interruptions());
        m.put("meanSteps", Double.isNaN(l.meanSteps()) ? null : Json.round(l.meanSteps(), 2));
        m.put("maxSteps", l.maxSteps());
        m.put("meanSeconds", Double.isNaN(l.meanSteps()) ? null : Json.round(l.meanSteps() * stepMs / 1000.0, 2));
        return m;
    }

    /** The report.html section. */
    public String html()
    {
        final StringBuilder h = new StringBuilder(2048);
        h.append("<h2>Workloads</h2>\n<p>Real workloads run by owner agents (the process runtime, on recorded H200s) in the ")
            .append("market with everyone else: each job counts steps of ").append(stepMs).append(" ms, half of them keeping a ")
            .append("checkpoint. Readiness is the wall time from the renter hearing the fill to it hearing RUNNING.</p>\n<table>");
        Report.row(h, "jobs", jobs.size() + ": " + Labels.counts(outcomes()));
        Report.row(h, "attempts / relaunches / interruptions", attempts + " / " + relaunches + " / " + interruptions);
        Report.row(h, "readiness p50 / p99 / max", readinessSamples == 0 ? "-"
            : readinessP50Ms + " / " + readinessP99Ms + " / " + readinessMaxMs + " ms");
        Report.row(h, "work lost per interruption, with checkpoint", loss(withCheckpoint));
        Report.row(h, "work lost per interruption, without", loss(withoutCheckpoint));
        h.append("</table>\n<table><tr><th>job</th><th>checkpoint</th><th>outcome</th><th>count</th><th>attempts (readiness ms, ")
            .append("from -&gt; reached, end)</th></tr>\n");
        for (final JobRun j : jobs)
        {
            final StringBuilder as = new StringBuilder();
            for (final AttemptRun a : j.attempts())
            {
                as.append(as.length() == 0 ? "" : "<br>").append(a.number()).append(": ").append(a.readinessMs()).append(" ms, ")
                    .append(a.from()).append(" -&gt; ").append(a.reached()).append(", ").append(Report.escape(a.result()));
            }
            h.append("<tr><td>").append(Report.escape(j.name())).append("</td><td>").append(j.checkpointed() ? "yes" : "no")
                .append("</td><td>").append(j.outcome()).append("</td><td>").append(j.finalCount()).append(" / ").append(j.target())
                .append("</td><td>").append(as).append("</td></tr>\n");
        }
        return h.append("</table>\n").toString();
    }
}
