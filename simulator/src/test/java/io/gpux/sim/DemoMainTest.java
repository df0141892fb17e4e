package io.gpux.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;

/**
 * {@code ./gpux demo} itself, shortened, with the exchange SIGKILLed halfway and restarted: the
 * command exits 0 (every check held: nothing lost across the restart) and prints its summary and the
 * report's path. It checks the command's mechanics, not market figures (those are {@link DemoRunTest}'s):
 * 30 agents for 10 s of market (60 agents under {@code -Pstress}).
 */
@ResourceLock(Resources.SYSTEM_OUT) // captures the summary DemoMain prints to System.out
class DemoMainTest
{
    /** Owners, market-makers and renters: enough for trades and leases across the kill. */
    private static final String AGENTS = Boolean.getBoolean("gpux.stress") ? "60" : "30";

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void theDemoCommandSurvivesAKilledExchangeAndExitsZero(@TempDir final Path dir) throws Exception
    {
        final Path out = dir.resolve("report");
        final PrintStream stdout = System.out;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        final int status;
        try (PrintStream capture = new PrintStream(captured, true, StandardCharsets.UTF_8))
        {
            System.setOut(capture);
            status = DemoMain.execute("--duration", "10", "--agents", AGENTS, "--seed", "3", "--kill-exchange",
                "--out", out.toString());
        }
        finally
        {
            System.setOut(stdout);
        }
        final String summary = captured.toString(StandardCharsets.UTF_8);
        System.err.println(summary);
        assertEquals(0, status, "exit status");
        assertTrue(summary.contains("market efficiency"), "the summary table is printed");
        assertTrue(summary.contains("exchange kill"), "the kill is reported");
        assertTrue(summary.contains("gap-free"), "no event lost");
        assertTrue(summary.contains(out.resolve("report.html").toAbsolutePath().toString()), "the report's path is printed");
        assertTrue(Files.size(out.resolve("report.html")) > 1000);
        assertTrue(summary.contains("exchange down"), "the outage's window is in the summary");
        assertTrue(Files.readString(out.resolve("report.html")).contains("shaded and labelled \"exchange down\" on every chart"),
            "the report names the outage marked on its charts");
    }
}
