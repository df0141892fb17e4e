package io.gpux.bench.suite;

import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The JMH benchmarks of a {@link BenchSuite} run: gpux's in this JVM's JMH (with forks, in JVMs of JMH's own with
 * this JVM's flags), and the options a JMH of another JVM is given. Runs on the suite's thread.
 */
final class JmhRuns extends Section
{
    JmhRuns(final SuiteRun run)
    {
        super(run);
    }

    private ChainedOptionsBuilder jmhOptions()
    {
        return new OptionsBuilder().forks(profile.jmhForks()).warmupIterations(profile.jmhWarmups())
            .warmupTime(TimeValue.fromString(profile.jmhWarmupTime())).measurementIterations(profile.jmhIterations())
            .measurementTime(TimeValue.fromString(profile.jmhIterationTime())).addProfiler(GCProfiler.class)
            .shouldFailOnError(true);
    }

    List<String> jmhArgs()
    {
        return List.of("-f", Integer.toString(profile.jmhForks()), "-wi", Integer.toString(profile.jmhWarmups()), "-w",
            profile.jmhWarmupTime(), "-i", Integer.toString(profile.jmhIterations()), "-r", profile.jmhIterationTime(),
            "-prof", "gc", "-foe", "true");
    }

    /** One gpux JMH benchmark in this JVM's JMH (with forks, in JVMs of JMH's own with this JVM's flags). */
    Report.Figure jmh(final String section, final String include, final String name, final String unit,
        final Map<String, String> params)
    {
        final ChainedOptionsBuilder options = jmhOptions().include(include);
        params.forEach(options::param);
        try
        {
            final Collection<RunResult> results = new Runner(options.build()).run();
            if (results.size() != 1)
            {
                throw new RunnerException(results.size() + " results for " + include);
            }
            final RunResult r = results.iterator().next();
            final Result<?> primary = r.getPrimaryResult();
            Result<?> alloc = null;
            for (final String key : r.getSecondaryResults().keySet())
            {
                if (key.endsWith("gc.alloc.rate.norm"))
                {
                    alloc = r.getSecondaryResults().get(key);
                }
            }
            final List<Double> iterations = new ArrayList<>();
            for (final BenchmarkResult br : r.getBenchmarkResults())
            {
                for (final IterationResult ir : br.getIterationResults())
                {
                    iterations.add(ir.getPrimaryResult().getScore());
                }
            }
            final Report.Figure f = new Report.Figure(section, name, unit, primary.getScore(), primary.getScoreError(),
                "99.9 % confidence half-width (JMH)", iterations.size(),
                iterations.stream().mapToDouble(Double::doubleValue).toArray(), alloc == null ? Double.NaN : alloc.getScore(),
                alloc == null ? Double.NaN : alloc.getScoreError(), null, "JMH " + primary.getScoreUnit());
            report.figures.add(f);
            return f;
        }
        catch (final Exception e)
        {
            // the report lists the failure; one line here says which benchmark and why, without a stack trace
            report.failures.add(name + ": " + e);
            System.err.println("gpux bench: " + name + " failed: " + e);
            return null;
        }
    }
}
