package io.gpux.bench.xc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The benchmarks run, so none can rot unseen: {@code ./gpux bench --smoke} as the launcher runs it (gpux's benchmarks
 * jar in a JVM of its own with the root pom's JVM flags), with this module's classes and classpath as exchange-core's
 * side. The suite runs each JMH benchmark through the JMH Runner API (no fork, no warm-up, one iteration of 100 ms),
 * the machine's floor (HiccupMeter) and each pipeline, recovery and round-trip main with tiny counts, and writes its
 * results files. No timing is asserted: only that everything ran, checked its own work (trades per pass, no failed
 * command) and reported a figure.
 * <p>
 * By default only the quick sections run ({@code --only platform,hotpaths,recovery}): JMH in the suite's JVM, mains
 * in child JVMs, the results files, in seconds. The exchange-core side runs in {@link PairedAgainstTest}. Every
 * section, with the order flows, both books and the other collectors (minutes on 2 cores), runs under
 * {@code -Pstress}.
 */
class BenchSuiteSmokeTest
{
    @TempDir
    Path out;

    @Test
    void theQuickSectionsRunAndReport() throws Exception
    {
        final String report = names(runSuite("--only", "platform,hotpaths,recovery"));
        for (final String figure : new String[] {
            "HotPathBenchmark.commandEncode", "HotPathBenchmark.eventEncodeDecode", "HotPathBenchmark.journalAppend",
            "HotPathBenchmark.gatewayDecode", "HotPathBenchmark.gatewayEncode",
            "restart after 20,000 journaled commands",
            "random arrival's wait, spinning thread 1 of 2", "random arrival's wait, spinning thread 2 of 2",
            "loopback echo round trip, 2,000 messages/s offered"})
        {
            assertTrue(report.contains("\n" + figure), "no figure '" + figure + "' in\n" + report);
        }
        assertFalse(report.contains("\nEngineBenchmark."), "a section not asked for ran:\n" + report);
    }

    @Test
    @EnabledIfSystemProperty(named = "gpux.stress", matches = "true")
    void everyBenchmarkRunsAndReports() throws Exception
    {
        final String report = names(runSuite());
        for (final String figure : new String[] {
            "EngineBenchmark.lobster", "EngineBenchmark.synthetic", "EngineBenchmark.gpuMix",
            "gpux engine, lobster", "gpux engine, synthetic",
            "exchange-core OrderBookDirectImpl, lobster", "exchange-core OrderBookDirectImpl, synthetic",
            "gpux ASYNC, synthetic, throughput", "gpux SYNC, synthetic, throughput",
            "exchange-core journal on, synthetic, throughput", "exchange-core journal off, synthetic, throughput",
            "gpux ASYNC, synthetic, 20,000/s offered", "exchange-core journal on, synthetic, 20,000/s offered",
            "throughput ASYNC", "ASYNC, 20,000 commands/s offered",
            "restart after 20,000 journaled commands", "bid -> fill at the client",
            "random arrival's wait, spinning thread 1 of 2", "random arrival's wait, spinning thread 2 of 2",
            "loopback echo round trip, 2,000 messages/s offered"})
        {
            assertTrue(report.contains("\n" + figure), "no figure '" + figure + "' in\n" + report);
        }
        assertTrue(report.contains("\ngpux / exchange-core direct, lobster\n"), "no book ratio in\n" + report);
        assertTrue(report.contains("\ngpux / exchange-core direct, synthetic, paired in one JVM\n"),
            "no paired book ratio in\n" + report);
        // the smoke profile runs each paired comparison in two JVMs: the ratio is their summary, not one JVM's
        assertTrue(report.contains("median of 2 JVMs' ratios"), "the paired ratio is not over two JVMs in\n" + report);
        // the paired books again under each collector but the run's own: two of the three when the machine's default
        // is one of them (G1 here), all three otherwise
        final long otherCollectors = Stream.of("G1", "Parallel", "ZGC").filter(c -> report.contains(
            "\ngpux / exchange-core direct, synthetic, paired in one JVM, " + c + "\n")).count();
        assertTrue(otherCollectors >= 2, "no paired book ratio under the other collectors in\n" + report);
    }

    /** Runs {@code ./gpux bench --smoke} with more arguments; checks it wrote its results and reported no failure. */
    private JsonNode runSuite(final String... more) throws Exception
    {
        final Path gpuxJar = BenchJvm.gpuxJar();
        final String xcClasspath = BenchJvm.xcClasspath();
        final List<String> command = BenchJvm.javaWithFlags();
        // JMH's lock keeps two measuring runs apart; a smoke run measures nothing, and may share the machine with one
        command.addAll(List.of("-Xmx2g", "-Djmh.ignoreLock=true", "-cp", gpuxJar.toString(), "io.gpux.bench.suite.BenchSuite", "--smoke",
            "--out", out.toString(), "--flow-dir", out.resolve("flows").toString(), "--xc-cp", xcClasspath));
        command.addAll(List.of(more));
        final String output = BenchJvm.run(command, out.resolve("suite.log"), 15, "the smoke run");
        System.out.println(output);

        final Path md;
        final Path json;
        try (Stream<Path> files = Files.list(out))
        {
            final List<Path> all = files.toList();
            md = all.stream().filter(f -> f.toString().endsWith("-smoke.md")).findFirst().orElseThrow();
            json = all.stream().filter(f -> f.toString().endsWith("-smoke.json")).findFirst().orElseThrow();
        }
        final JsonNode report = new ObjectMapper().readTree(json.toFile());
        assertTrue(report.path("failures").isArray() && report.path("failures").isEmpty(), "failures reported:\n" + report);
        assertFalse(Files.readString(md).isBlank());
        return report;
    }

    /** The names of the report's figures and ratios, each between newlines, then the notes. */
    private static String names(final JsonNode report)
    {
        final StringBuilder names = new StringBuilder();
        for (final String list : new String[] {"figures", "ratios"})
        {
            report.path(list).forEach(f -> names.append('\n').append(f.path("name").asText()).append('\n'));
        }
        report.path("ratios").forEach(r -> names.append("\nnote: ").append(r.path("note").asText()));
        return names.toString();
    }
}
