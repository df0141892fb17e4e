package io.gpux.bench.xc;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

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
}
