package io.gpux.bench.suite;

import com.fasterxml.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What every section of a {@link BenchSuite} run shares: the run's settings and report, and the launching of
 * the children that measure (each main in a JVM of its own, with this JVM's flags). Sections run one after the
 * other on the suite's thread.
 */
abstract class Section
{
    final Profile profile;
    final Report report;
    final Path flowDir;
    final String xcClasspath;
    private final SuiteRun run;

    Section(final SuiteRun run)
    {
        this.run = run;
        this.profile = run.profile();
        this.report = run.report();
        this.flowDir = run.flowDir();
        this.xcClasspath = run.xcClasspath();
    }

    String gpuxClasspath()
    {
        return System.getProperty("java.class.path");
    }

    Child child(final String what, final String classpath, final String main, final List<String> args)
    {
        return child(what, Machine.jvmFlags(), classpath, main, args);
    }

    Child child(
        final String what, final List<String> jvmFlags, final String classpath, final String main, final List<String> args)
    {
        run.announce(what, main, args);
        return Child.run(jvmFlags, classpath, main, args);
    }

    /** A main that writes its figures to {@code --json FILE}: a file of its own in the run's scratch folder. */
    Child measured(final String what, final String classpath, final String main, final List<String> args)
    {
        run.announce(what, main, args);
        return Child.run(Machine.jvmFlags(), classpath, main, args, run.nextFiguresFile());
    }

    /** The file a child writes to {@code --json}: a fresh one in the run's scratch folder. */
    Path scratchFile(final String name)
    {
        return run.scratch().resolve(name);
    }

    static Map<String, Double> percentiles(final JsonNode p)
    {
        final Map<String, Double> out = new LinkedHashMap<>();
        for (final String k : new String[] {"p50", "p90", "p99", "p99.9", "p99.99", "max", "count"})
        {
            final JsonNode v = p.path(k);
            out.put(k, v.isNumber() ? v.asDouble() : Double.NaN);
        }
        return out;
    }

    static double dbl(final Map<String, String> r, final String key)
    {
        final String v = r.get(key);
        try
        {
            return v == null ? Double.NaN : Double.parseDouble(v);
        }
        catch (final NumberFormatException e)
        {
            return Double.NaN;
        }
    }
}
