package io.gpux.sim;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.stream.Stream;

/** The demo's files: the size of the exchange's journals, and the clean-up of its work directory. */
final class DemoFiles
{
    private DemoFiles()
    {
    }

    static String bytes(final long b)
    {
        if (b < 0)
        {
            return "-";
        }
        return b >= 1 << 20 ? String.format(Locale.ROOT, "%.1f MB", b / 1048576.0) : String.format(Locale.ROOT, "%.0f kB", b / 1024.0);
    }

    /** Disk blocks used under a directory ({@code du -sk}; Chronicle's files are sparse), -1 if unknown. */
    static long diskUsage(final Path dir)
    {
        try
        {
            final Process du = new ProcessBuilder("du", "-sk", dir.toString()).redirectErrorStream(true).start();
            final String out = new String(du.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (du.waitFor() != 0)
            {
                return -1;
            }
            return Long.parseLong(out.split("\\s+")[0]) * 1024;
        }
        catch (final IOException | NumberFormatException ex)
        {
            return -1;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** Bytes of the files under a directory (their apparent size). */
    static long directorySize(final Path dir)
    {
        try (Stream<Path> files = Files.walk(dir))
        {
            return files.filter(Files::isRegularFile).mapToLong(f ->
            {
                try
                {
                    return Files.size(f);
                }
                catch (final IOException ex)
                {
                    return 0;
                }
            }).sum();
        }
        catch (final IOException ex)
        {
            return -1;
        }
    }

    static void deleteRecursively(final Path dir)
    {
        try (Stream<Path> files = Files.walk(dir))
        {
            files.sorted(Comparator.reverseOrder()).forEach(f ->
            {
                try
                {
                    Files.deleteIfExists(f);
                }
                catch (final IOException ignored)
                {
                    // best effort: a temporary directory
                }
            });
        }
        catch (final IOException ignored)
        {
            // best effort
        }
    }
}
