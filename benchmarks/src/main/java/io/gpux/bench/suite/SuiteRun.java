package io.gpux.bench.suite;

import java.nio.file.Path;
import java.util.List;

/**
 * One {@link BenchSuite} run's settings once resolved, its report, and its scratch folder (where the children
 * write their figures), shared by its {@link Section}s on the suite's thread.
 */
final class SuiteRun
{
    private final Profile profile;
    private final Report report;
    private final Path flowDir;
    private final String xcClasspath;
    private final Path scratch;
    private final long startNanos;
    private int children;

    SuiteRun(final Profile profile, final Report report, final Path flowDir, final String xcClasspath, final Path scratch,
        final long startNanos)
    {
        this.profile = profile;
        this.report = report;
        this.flowDir = flowDir;
        this.xcClasspath = xcClasspath;
        this.scratch = scratch;
        this.startNanos = startNanos;
    }

    Profile profile()
    {
        return profile;
    }

    Report report()
    {
        return report;
    }

    Path flowDir()
    {
        return flowDir;
    }

    String xcClasspath()
    {
        return xcClasspath;
    }

    Path scratch()
    {
        return scratch;
    }

    /** Prints which child starts, and when in the run. */
    void announce(final String what, final String main, final List<String> args)
    {
        System.out.println();
        System.out.printf("=== %s (at %.0f s): %s %s%n", what, (System.nanoTime() - startNanos) / 1e9, main,
            String.join(" ", args));
    }

    /** A figures file of its own for the next measuring child. */
    Path nextFiguresFile()
    {
        return scratch.resolve("child-" + (++children) + ".json");
    }
}
