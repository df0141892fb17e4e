package io.gpux.engine.data;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Real Nasdaq order flow (LOBSTER samples of 2012-06-21, {@code shared/data/lobster}) replayed through gpux
 * by {@link LobsterReplay}: every visible execution of a known order must hit that very order (price-time
 * priority as Nasdaq applied it), and after every message gpux's book must equal LOBSTER's order-book row on
 * every level that is fully known. See {@link LobsterReplay} for the mapping and what is skipped.
 */
class LobsterReplayTest
{
    private static final double MIN_HIT_RATE = 0.95;

    @Test
    void aaplFirst998Messages() throws IOException
    {
        final Path dir = SharedData.resolve("lobster/AAPL_2012-06-21_L10_first998");
        final Path messages = dir.resolve("AAPL_2012-06-21_34200000_57600000_message_10.csv");
        final Path book = dir.resolve("AAPL_2012-06-21_34200000_57600000_orderbook_10.csv");
        final LobsterStats stats;
        try (BufferedReader b = Files.newBufferedReader(book, StandardCharsets.US_ASCII))
        {
            stats = new LobsterReplay("AAPL", 10).run(Files.readAllLines(messages, StandardCharsets.US_ASCII), b);
        }
        check("AAPL first 999 messages", stats, 999);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void googFullDay() throws IOException
    {
        final Path zip = SharedData.resolve("lobster/LOBSTER_SampleFile_GOOG_2012-06-21_10.zip");
        final long start = System.nanoTime();
        final LobsterStats stats;
        try (ZipFile z = new ZipFile(zip.toFile()))
        {
            final ZipEntry messages = z.getEntry("GOOG_2012-06-21_34200000_57600000_message_10.csv");
            final ZipEntry book = z.getEntry("GOOG_2012-06-21_34200000_57600000_orderbook_10.csv");
            assertNotNull(messages, "message file in " + zip);
            assertNotNull(book, "order-book file in " + zip);
            final List<String> lines;
            try (BufferedReader m = reader(z, messages))
            {
                lines = m.lines().toList();
            }
            try (BufferedReader b = reader(z, book))
            {
                stats = new LobsterReplay("GOOG", 10).run(lines, b);
            }
        }
        System.out.printf("GOOG full day replayed in %.1f s%n", (System.nanoTime() - start) / 1e9);
        check("GOOG full day", stats, 147_916);
    }

    private static BufferedReader reader(final ZipFile zip, final ZipEntry entry) throws IOException
    {
        return new BufferedReader(new InputStreamReader(zip.getInputStream(entry), StandardCharsets.US_ASCII), 1 << 16);
    }

    private static void check(final String name, final LobsterStats stats, final long messages)
    {
        final String summary = stats.summary(name);
        System.out.println(summary);
        assertEquals(messages, stats.messages, "messages replayed\n" + summary);
        assertEquals(0, stats.addsRejected, "adds gpux rejected (a Nasdaq add never crosses)\n" + summary);
        assertEquals(0, stats.mirrorDivergence, "levels where gpux's book and the replay's own order list differ\n" + summary);
        assertTrue(stats.hitRate() >= MIN_HIT_RATE, "executions that hit the Nasdaq order id\n" + summary);
        assertEquals(0, stats.mismatches, "fully known levels where gpux's book differs from LOBSTER's\n" + summary);
    }
}
