package io.gpux.bench.xc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code ./gpux bench-paired --against JAR}, the A/B of two gpux builds, and {@code --forks N}, the run in several JVMs,
 * end to end as the launcher runs them, in one run of both: gpux's benchmarks jar in a JVM of its own, this module's
 * classpath as exchange-core's side. With {@code --against} the same benchmarks jar is the "other" build (loaded
 * again, in a class loader of its own): in each JVM all three sides must run and check their work, and the run must
 * report this build / that build. With {@code --forks 2} each JVM must report its ratios and the summaries must agree
 * with them. No timing is asserted (a run this short says nothing about speed).
 */
class PairedAgainstTest
{
    private static final Pattern FORKS = Pattern.compile(
        "RESULT forks=2 flow=synthetic impl=direct ratioMedian=([0-9.]+) ratioMin=([0-9.]+) ratioMax=([0-9.]+) ahead=([0-2]) " +
            "ratios=([0-9.;]+)");
    private static final Pattern AB = Pattern.compile("RESULT abRatio=([0-9.]+) flow=synthetic q1=([0-9.]+) q3=([0-9.]+) rounds=3");
    private static final Pattern AB_FORKS = Pattern.compile("RESULT forks=2 flow=synthetic abMedian=[0-9.]+ abMin=[0-9.]+ " +
        "abMax=[0-9.]+ faster=[0-2] abRatios=([0-9.;]+)");

    /** The order flows, written by the first run that needs them and read by the others. */
    @TempDir
    static Path flows;

    @TempDir
    Path out;

    @Test
    void aBuildAgainstItselfInTwoJvmsRunsAllThreeSidesInEachAndReportsEachOneAndThenTheirRatiosTogether() throws Exception
    {
        final Path gpuxJar = BenchJvm.gpuxJar();
        final List<String> command = BenchJvm.javaWithFlags();
        command.addAll(List.of("-Xmx2g", "-cp", gpuxJar.toString(), "io.gpux.bench.PairedBooks", "--flow", "synthetic",
            "--flow-dir", flows.toString(), "--xc-cp", BenchJvm.xcClasspath(), "--against", gpuxJar.toString(), "--forks", "2",
            "--rounds", "3", "--warmup-rounds", "1", "--slice-ms", "20"));
        final String output = BenchJvm.run(command, out.resolve("paired.log"), 5, "bench-paired --against --forks 2");
        for (final String side : new String[] {"gpux", "xc", "against"})
        {
            assertEquals(2, count(Pattern.compile("RESULT side=" + side + " flow=synthetic").matcher(output)),
                "a result for side " + side + " from each JVM:\n" + output);
        }

        final List<Double> perJvm = values(Pattern.compile("RESULT ratio=([0-9.]+) flow=synthetic").matcher(output));
        assertEquals(2, perJvm.size(), "one gpux / exchange-core ratio from each JVM:\n" + output);
        final Matcher m = FORKS.matcher(output);
        assertTrue(m.find(), "no summary of the two JVMs:\n" + output);
        final String[] listed = m.group(5).split(";");
        assertEquals(2, listed.length, "the summary lists each JVM's ratio: " + m.group());
        for (int i = 0; i < 2; i++)
        {
            assertEquals(perJvm.get(i), Double.parseDouble(listed[i]), 1e-4, "JVM " + (i + 1) + "'s ratio, in order");
        }
        final double min = Math.min(perJvm.get(0), perJvm.get(1));
        final double max = Math.max(perJvm.get(0), perJvm.get(1));
        assertEquals(min, Double.parseDouble(m.group(2)), 1e-4);
        assertEquals(max, Double.parseDouble(m.group(3)), 1e-4);
        // two values: the nearest-rank median is the upper one
        assertEquals(max, Double.parseDouble(m.group(1)), 1e-4);
        assertEquals((perJvm.get(0) > 1 ? 1 : 0) + (perJvm.get(1) > 1 ? 1 : 0), Integer.parseInt(m.group(4)));

        // this build / that build: each JVM's ratio with its quartiles in order, then the two listed together
        final Matcher ab = AB.matcher(output);
        final List<Double> abPerJvm = new ArrayList<>();
        while (ab.find())
        {
            final double q1 = Double.parseDouble(ab.group(2));
            final double median = Double.parseDouble(ab.group(1));
            final double q3 = Double.parseDouble(ab.group(3));
            assertTrue(q1 > 0 && q1 <= median && median <= q3, "quartiles out of order: " + ab.group());
            abPerJvm.add(median);
        }
        assertEquals(2, abPerJvm.size(), "one this build / that build ratio from each JVM:\n" + output);
        final Matcher abSummary = AB_FORKS.matcher(output);
        assertTrue(abSummary.find(), "no summary of the two JVMs' this build / that build ratios:\n" + output);
        final String[] abListed = abSummary.group(1).split(";");
        assertEquals(2, abListed.length, abSummary.group());
        for (int i = 0; i < 2; i++)
        {
            assertEquals(abPerJvm.get(i), Double.parseDouble(abListed[i]), 1e-4, "JVM " + (i + 1) + "'s A/B ratio, in order");
        }
    }

    private static int count(final Matcher m)
    {
        int n = 0;
        while (m.find())
        {
            n++;
        }
        return n;
    }

    private static List<Double> values(final Matcher m)
    {
        final List<Double> values = new ArrayList<>();
        while (m.find())
        {
            values.add(Double.parseDouble(m.group(1)));
        }
        return values;
    }

    @Test
    void aJarWithoutGpuxSlicesIsRefusedWithAReason() throws Exception
    {
        final Path gpuxJar = BenchJvm.gpuxJar();
        final Path notABuild = Files.writeString(out.resolve("empty.jar"), "");
        final List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
            "-cp", gpuxJar.toString(), "io.gpux.bench.PairedBooks", "--flow-dir", out.resolve("flows").toString(),
            "--xc-cp", "target/classes", "--against", notABuild.toString(), "--rounds", "1"));
        final Path log = out.resolve("refused.log");
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertTrue(p.waitFor(5, TimeUnit.MINUTES));
        final String output = Files.readString(log);
        assertTrue(p.exitValue() != 0, "accepted a jar without GpuxSlices:\n" + output);
        assertTrue(output.contains("no io.gpux.bench.GpuxSlices in it"), "no reason given:\n" + output);
        assertFalse(Files.exists(out.resolve("flows")), "did work before refusing");
    }
}
