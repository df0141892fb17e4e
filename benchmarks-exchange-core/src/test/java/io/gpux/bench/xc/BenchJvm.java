package io.gpux.bench.xc;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** What the tests here need to run gpux's benchmarks jar in a JVM of its own, as the launcher does. */
final class BenchJvm
{
    private BenchJvm()
    {
    }

    /** gpux's shaded benchmarks jar, packaged before this module. */
    static Path gpuxJar()
    {
        final Path jar = Path.of(System.getProperty("gpux.benchmarks.jar", "../benchmarks/target/benchmarks.jar"));
        assertTrue(Files.isRegularFile(jar), jar + " missing: package the benchmarks module first " +
            "(./mvnw -B verify builds it before this module)");
        return jar;
    }

    /** This module's classes and classpath: exchange-core's side. */
    static String xcClasspath() throws IOException
    {
        final Path classpathFile = Path.of("target/classpath.txt");
        assertTrue(Files.isRegularFile(classpathFile), "target/classpath.txt missing (written at process-classes)");
        return Path.of("target/classes").toAbsolutePath() + File.pathSeparator + Files.readString(classpathFile).trim();
    }

    /** This JVM's java with the root pom's JVM flags, ready for more arguments. */
    static List<String> javaWithFlags()
    {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        for (final String flag : System.getProperty("gpux.jvm.flags", "").trim().split("\\s+"))
        {
            if (!flag.isEmpty())
            {
                command.add(flag);
            }
        }
        return command;
    }

    /**
     * Runs a command to its end, its output (both streams) into log; fails the test, showing the log's last lines, if
     * it takes longer than the minutes given (it is then killed) or exits other than 0.
     *
     * @return everything it printed.
     */
    static String run(final List<String> command, final Path log, final int minutes, final String what) throws Exception
    {
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(minutes, TimeUnit.MINUTES))
        {
            p.destroyForcibly();
            fail(what + " did not finish in " + minutes + " minutes; its output ends:\n" + tail(log));
        }
        assertEquals(0, p.exitValue(), what + " failed; its output ends:\n" + tail(log));
        return Files.readString(log);
    }

    /** The last 80 lines of a log. */
    static String tail(final Path log) throws IOException
    {
        final List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 80), lines.size()));
    }
}
