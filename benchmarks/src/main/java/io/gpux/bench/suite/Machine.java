package io.gpux.bench.suite;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** What the results file says about the machine, the JVM and the code measured. */
final class Machine
{
    private Machine()
    {
    }

    static String host()
    {
        String h = System.getenv("HOSTNAME");
        if (h == null || h.isBlank())
        {
            try
            {
                h = InetAddress.getLocalHost().getHostName();
            }
            catch (final IOException e)
            {
                h = "unknown";
            }
        }
        return h.replaceAll("[^A-Za-z0-9._-]", "_");
    }

    /** {@code nproc} CPUs, the CPU model and the memory, as /proc tells them. */
    static String describe()
    {
        final String model = firstValue(Path.of("/proc/cpuinfo"), "model name");
        final String memory = firstValue(Path.of("/proc/meminfo"), "MemTotal");
        return Runtime.getRuntime().availableProcessors() + " CPUs (availableProcessors), " +
            (model == null ? "CPU model unknown" : model) + ", memory " + (memory == null ? "unknown" : memory);
    }

    private static String firstValue(final Path file, final String key)
    {
        try (Stream<String> lines = Files.lines(file))
        {
            return lines.filter(l -> l.startsWith(key)).map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse(null);
        }
        catch (final IOException | RuntimeException e)
        {
            return null;
        }
    }

    /** The 1-, 5- and 15-minute load averages (/proc/loadavg): the machine is shared, neighbours show here. */
    static String loadAverage()
    {
        try
        {
            final String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        }
        catch (final IOException | RuntimeException e)
        {
            return "unknown";
        }
    }

    static String garbageCollectors()
    {
        return ManagementFactory.getGarbageCollectorMXBeans().stream().map(GarbageCollectorMXBean::getName)
            .collect(Collectors.joining(", "));
    }

    /** This JVM's flags, which every JVM of the run gets (JMH's forks inherit them too). */
    static List<String> jvmFlags()
    {
        final List<String> flags = new ArrayList<>();
        for (final String a : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (!a.startsWith("-Duser.language=") && !a.startsWith("-Duser.country="))
            {
                flags.add(a);
            }
        }
        return flags;
    }

    /** The collectors the book comparison is also run under, by the name the results give them, and their flag. */
    static final SortedMap<String, String> COLLECTORS = Collections.unmodifiableSortedMap(new TreeMap<>(Map.of(
        "G1", "-XX:+UseG1GC", "Parallel", "-XX:+UseParallelGC", "ZGC", "-XX:+UseZGC")));
    /** A flag choosing a collector ({@code -XX:+UseG1GC}, {@code -XX:-UseZGC}, ...). */
    private static final Pattern GC_SELECTION = Pattern.compile("-XX:[+-]Use[A-Za-z0-9]*GC");

    /** This JVM's collector, by the names of {@link #COLLECTORS} (or its beans' names, for another collector). */
    static String collector()
    {
        return collectorOf(garbageCollectors());
    }

    /** @param beans the collector beans' names, comma-separated, as {@link #garbageCollectors()} gives them */
    static String collectorOf(final String beans)
    {
        if (beans.startsWith("G1 "))
        {
            return "G1";
        }
        if (beans.startsWith("PS "))
        {
            return "Parallel";
        }
        if (beans.startsWith("ZGC"))
        {
            return "ZGC";
        }
        return beans;
    }

    /** The flags with any {@code -XX:+Use...GC} left out and the collector's flag added at the end. */
    static List<String> withCollector(final List<String> jvmFlags, final String collector)
    {
        final String flag = COLLECTORS.get(collector);
        if (flag == null)
        {
            throw new IllegalArgumentException("unknown collector " + collector + " (known: " + COLLECTORS.keySet() + ")");
        }
        final List<String> flags = new ArrayList<>();
        for (final String a : jvmFlags)
        {
            if (!GC_SELECTION.matcher(a).matches())
            {
                flags.add(a);
            }
        }
        flags.add(flag);
        return flags;
    }

    /** The commit measured, {@code +dirty} when the work tree has changes; "unknown" without git. */
    static String commit(final Path root)
    {
        final String head = git(root, "rev-parse", "--short", "HEAD");
        if (head == null || head.isBlank())
        {
            return "unknown (no git)";
        }
        final String status = git(root, "status", "--porcelain", "--untracked-files=no");
        return head.trim() + (status != null && !status.isBlank() ? "+dirty" : "");
    }

    private static String git(final Path root, final String... args)
    {
        final List<String> command = new ArrayList<>(List.of("git", "-C", root.toString()));
        command.addAll(List.of(args));
        try
        {
            final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            final String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0)
            {
                return null;
            }
            return out;
        }
        catch (final IOException e)
        {
            return null;
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Whether any file under dir is newer than a time. */
    static boolean newerThan(final Path dir, final long millis)
    {
        try (Stream<Path> files = Files.walk(dir))
        {
            return files.map(Path::toFile).anyMatch(f -> f.isFile() && f.lastModified() > millis);
        }
        catch (final IOException e)
        {
            return false;
        }
    }
}
