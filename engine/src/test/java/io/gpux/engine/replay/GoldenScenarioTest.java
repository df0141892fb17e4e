package io.gpux.engine.replay;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Runs every {@code scenarios/**}{@code /NAME.scn} through the engine and compares its output with
 * {@code NAME.expected}, line by line. A scenario with a {@code NAME.error} file must stop at bad input
 * with exactly that message ({@code line N: problem}) after printing the expected lines.
 */
class GoldenScenarioTest
{
    static final Path ROOT = Paths.get("src/test/resources/scenarios");

    @TestFactory
    Stream<DynamicTest> goldenScenarios() throws IOException
    {
        final List<Path> files;
        try (Stream<Path> walk = Files.walk(ROOT))
        {
            files = walk.filter(p -> p.toString().endsWith(".scn")).sorted().toList();
        }
        if (files.isEmpty())
        {
            fail("no scenarios under " + ROOT.toAbsolutePath());
        }
        return files.stream().map(scn -> DynamicTest.dynamicTest(ROOT.relativize(scn).toString(), scn.toUri(), () -> run(scn)));
    }

    private static void run(final Path scn) throws IOException
    {
        final String base = scn.getFileName().toString().replaceFirst("\\.scn$", "");
        final Path expectedFile = scn.resolveSibling(base + ".expected");
        final Path errorFile = scn.resolveSibling(base + ".error");
        final String input = Files.readString(scn, StandardCharsets.UTF_8);
        final String expected = Files.exists(expectedFile) ? Files.readString(expectedFile, StandardCharsets.UTF_8) : "";
        final StringBuilder out = new StringBuilder();
        String error = null;
        try
        {
            new ScenarioReplayer(out).replay(new java.io.StringReader(input));
        }
        catch (final ScenarioException ex)
        {
            error = ex.getMessage();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        assertSameLines(scn, expected, out.toString());
        final String expectedError = Files.exists(errorFile) ? Files.readString(errorFile).strip() : null;
        assertEquals(expectedError, error, "bad-input report of " + scn);
    }

    static void assertSameLines(final Path scn, final String expected, final String actual)
    {
        final String[] e = expected.lines().toArray(String[]::new);
        final String[] a = actual.lines().toArray(String[]::new);
        for (int i = 0; i < Math.max(e.length, a.length); i++)
        {
            final String el = i < e.length ? e[i] : "<end of output>";
            final String al = i < a.length ? a[i] : "<end of output>";
            if (!el.equals(al))
            {
                fail(scn + ": first difference at output line " + (i + 1) + "\nexpected: " + el + "\nactual:   " + al +
                    "\n--- actual output ---\n" + actual);
            }
        }
    }
}
