package io.gpux.bench.xc;

import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;

import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

/**
 * JMH with its usual command line, printing each result at the end also as one machine-readable line for gpux's
 * {@code BenchSuite} (which runs this module in its own JVM):
 * {@code RESULT benchmark=NAME params=k:v,k:v score=S error=E unit=U alloc=B allocError=E}.
 */
public final class XcJmh
{
    private XcJmh()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Collection<RunResult> results = new Runner(new CommandLineOptions(args)).run();
        for (final RunResult r : results)
        {
            final Result<?> primary = r.getPrimaryResult();
            final Map<String, String> params = new TreeMap<>();
            for (final String key : r.getParams().getParamsKeys())
            {
                params.put(key, r.getParams().getParam(key));
            }
            params.remove("flowDir");
            final StringBuilder p = new StringBuilder();
            params.forEach((k, v) -> p.append(p.length() > 0 ? "," : "").append(k).append(':').append(v));
            final Result<?> alloc = r.getSecondaryResults().get("gc.alloc.rate.norm");
            System.out.printf("RESULT benchmark=%s params=%s score=%s error=%s unit=%s alloc=%s allocError=%s%n",
                r.getParams().getBenchmark(), p.length() == 0 ? "-" : p, primary.getScore(), primary.getScoreError(),
                primary.getScoreUnit().replace(' ', '_'), alloc == null ? "NaN" : alloc.getScore(),
                alloc == null ? "NaN" : alloc.getScoreError());
        }
    }
}
