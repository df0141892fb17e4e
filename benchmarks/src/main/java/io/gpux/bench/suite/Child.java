package io.gpux.bench.suite;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.gpux.bench.ResultFile;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A benchmark main run in a JVM of its own, with this JVM's flags (the root pom's {@code gpux.jvm.flags} and
 * {@code GPUX_JAVA_OPTS}, as the launcher passed them) and an English locale; what it prints is echoed and kept for
 * people. A main's figures are the JSON file it was asked to write ({@code --json FILE}, see
 * {@link io.gpux.bench.ResultFile}), or its {@code RESULT key=value ...} lines.
 */
public final class Child
{
    /** A child still running after this long is killed and counted as failed. */
    static final long TIMEOUT_MINUTES = 60;

    private final List<String> lines;
    private final int exit;
    private JsonNode figures = MissingNode.getInstance();

    private Child(final List<String> lines, final int exit)
    {
        this.lines = lines;
        this.exit = exit;
    }

    /**
     * As {@link #run(List, String, String, List)}, with {@code --json FILE} added to the arguments; the figures the
     * main wrote there are {@link #figures()}.
     */
    static Child run(final List<String> jvmFlags, final String classpath, final String main, final List<String> args,
        final Path json)
    {
        final List<String> withJson = new ArrayList<>(args);
        withJson.add("--json");
        withJson.add(json.toString());
        final Child c = run(jvmFlags, classpath, main, withJson);
        c.figures = ResultFile.read(json);
        return c;
    }

    /** The figures from the main's {@code --json} file: a missing node when it wrote none. */
    JsonNode figures()
    {
        return figures;
    }

    public static Child run(final String classpath, final String main, final List<String> args)
    {
        return run(Machine.jvmFlags(), classpath, main, args);
    }

    /** As {@link #run(String, String, List)}, with these JVM flags instead of this JVM's (e.g. another collector). */
    static Child run(final List<String> jvmFlags, final String classpath, final String main, final List<String> args)
    {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(jvmFlags);
        command.add("-Duser.language=en");
        command.add("-Duser.country=US");
        command.add("-cp");
        command.add(classpath);
        command.add(main);
        command.addAll(args);
        final List<String> lines = new ArrayList<>();
        try
        {
            final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            final Thread reader = new Thread(() ->
            {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)))
                {
                    for (String line; (line = r.readLine()) != null; )
                    {
                        System.out.println(line);
                        synchronized (lines)
                        {
                            lines.add(line);
                        }
                    }
                }
                catch (final IOException e)
                {
                    System.out.println("(output lost: " + e + ")");
                }
            }, "child-output");
            reader.start();
            if (!p.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES))
            {
                p.destroyForcibly().waitFor();
                reader.join();
                System.out.println("(killed after " + TIMEOUT_MINUTES + " minutes)");
                return new Child(lines, -1);
            }
            reader.join();
            return new Child(lines, p.exitValue());
        }
        catch (final IOException e)
        {
            System.out.println("(could not start: " + e + ")");
            return new Child(lines, -2);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return new Child(lines, -3);
        }
    }

    public int exit()
    {
        return exit;
    }

    /** The {@code RESULT} lines, each as its key=value pairs. */
    List<Map<String, String>> results()
    {
        final List<Map<String, String>> out = new ArrayList<>();
        for (final String line : lines)
        {
            if (line.startsWith("RESULT "))
            {
                final Map<String, String> r = new LinkedHashMap<>();
                for (final String kv : line.substring(7).trim().split("\\s+"))
                {
                    final int eq = kv.indexOf('=');
                    if (eq > 0)
                    {
                        r.put(kv.substring(0, eq), kv.substring(eq + 1));
                    }
                }
                out.add(r);
            }
        }
        return out;
    }

    /** The first RESULT line with {@code key=value}, or null. */
    Map<String, String> result(final String key, final String value)
    {
        for (final Map<String, String> r : results())
        {
            if (value.equals(r.get(key)))
            {
                return r;
            }
        }
        return null;
    }

    /** The first RESULT line that has {@code key} (e.g. {@code ratio=}), or null. */
    public Map<String, String> resultWith(final String key)
    {
        for (final Map<String, String> r : results())
        {
            if (r.containsKey(key))
            {
                return r;
            }
        }
        return null;
    }
}
