package io.gpux.gateway;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The command line of a child JVM that runs a main class of this build with the flags this JVM was given. */
final class ChildJvm
{
    private ChildJvm()
    {
    }

    static List<String> command(final Class<?> main, final String... args)
    {
        final List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        final List<String> jvm = ManagementFactory.getRuntimeMXBean().getInputArguments();
        for (int i = 0; i < jvm.size(); i++)
        {
            final String arg = jvm.get(i);
            if (arg.equals("--add-opens") || arg.equals("--add-exports"))
            {
                cmd.add(arg);
                cmd.add(jvm.get(++i));
            }
            else if (arg.startsWith("--add-") || arg.startsWith("-Dchronicle"))
            {
                cmd.add(arg);
            }
        }
        cmd.addAll(List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
            main.getName()));
        cmd.addAll(List.of(args));
        return cmd;
    }
}
