package io.gpux.engine.data;

import java.util.ArrayList;
import java.util.List;

/**
 * Just enough of a Gherkin reader for the matching vectors: {@code Feature}, {@code Background},
 * {@code Scenario}, {@code Scenario Outline} with {@code Examples} (expanded, one scenario per example row,
 * {@code <name>} placeholders substituted in steps and tables), steps ({@code Given/When/Then/And/But}) with
 * data tables. Tags, comments and free description lines are ignored.
 */
final class Gherkin
{
    private Gherkin()
    {
    }

    /** A step: its keyword, its text after the keyword, its data table (rows of trimmed cells) and line. */
    record Step(String keyword, String text, List<List<String>> table, int line)
    {
    }

    /** A runnable scenario: the feature's background steps followed by its own. */
    record Scenario(String name, List<Step> steps, int line)
    {
    }

    private static final String[] KEYWORDS = {"Given ", "When ", "Then ", "And ", "But ", "* "};

    static List<Scenario> parse(final List<String> lines)
    {
        final List<Step> background = new ArrayList<>();
        final List<Scenario> result = new ArrayList<>();
        List<Step> current = null;
        String name = null;
        int scenarioLine = 0;
        boolean outline = false;
        List<List<String>> examples = null;
        List<List<String>> lastTable = null;
        for (int n = 0; n < lines.size(); n++)
        {
            final String line = lines.get(n).strip();
            if (line.isEmpty() || line.startsWith("#") || line.startsWith("@"))
            {
                continue;
            }
            if (line.startsWith("Feature:"))
            {
                continue;
            }
            if (line.startsWith("Background:"))
            {
                current = background;
                lastTable = null;
                continue;
            }
            if (line.startsWith("Scenario:") || line.startsWith("Scenario Outline:") || line.startsWith("Scenario Template:"))
            {
                flush(result, background, name, current, scenarioLine, outline, examples);
                outline = !line.startsWith("Scenario:");
                name = line.substring(line.indexOf(':') + 1).strip();
                scenarioLine = n + 1;
                current = new ArrayList<>();
                examples = null;
                lastTable = null;
                continue;
            }
            if (line.startsWith("Examples:") || line.startsWith("Scenarios:"))
            {
                examples = new ArrayList<>();
                lastTable = examples;
                continue;
            }
            if (line.startsWith("|"))
            {
                if (lastTable == null)
                {
                    throw new IllegalArgumentException("line " + (n + 1) + ": table without a step: " + line);
                }
                lastTable.add(cells(line));
                continue;
            }
            final String keyword = keyword(line);
            if (keyword != null && current != null)
            {
                final Step step = new Step(keyword.strip(), line.substring(keyword.length()).strip(), new ArrayList<>(), n + 1);
                current.add(step);
                lastTable = step.table();
            }
            // anything else is a free-text description of the feature or scenario
        }
        flush(result, background, name, current, scenarioLine, outline, examples);
        return result;
    }

    private static void flush(final List<Scenario> result, final List<Step> background, final String name,
        final List<Step> steps, final int line, final boolean outline, final List<List<String>> examples)
    {
        if (name == null || steps == null || steps == background)
        {
            return;
        }
        if (!outline)
        {
            result.add(new Scenario(name, concat(background, steps), line));
            return;
        }
        if (examples == null || examples.size() < 2)
        {
            throw new IllegalArgumentException("scenario outline '" + name + "' without examples");
        }
        final List<String> header = examples.get(0);
        for (int r = 1; r < examples.size(); r++)
        {
            final List<String> row = examples.get(r);
            final List<Step> expanded = new ArrayList<>();
            for (final Step s : steps)
            {
                final List<List<String>> table = new ArrayList<>();
                for (final List<String> cells : s.table())
                {
                    table.add(cells.stream().map(c -> substitute(c, header, row)).toList());
                }
                expanded.add(new Step(s.keyword(), substitute(s.text(), header, row), table, s.line()));
            }
            result.add(new Scenario(name + " [" + String.join(", ", row) + "]", concat(background, expanded), line));
        }
    }

    private static List<Step> concat(final List<Step> a, final List<Step> b)
    {
        final List<Step> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    private static String substitute(final String text, final List<String> header, final List<String> row)
    {
        String s = text;
        for (int i = 0; i < header.size(); i++)
        {
            s = s.replace("<" + header.get(i) + ">", i < row.size() ? row.get(i) : "");
        }
        return s;
    }

    private static String keyword(final String line)
    {
        for (final String k : KEYWORDS)
        {
            if (line.startsWith(k))
            {
                return k;
            }
        }
        return null;
    }

    private static List<String> cells(final String line)
    {
        final String inner = line.substring(1, line.endsWith("|") && line.length() > 1 ? line.length() - 1 : line.length());
        final List<String> cells = new ArrayList<>();
        for (final String c : inner.split("\\|", -1))
        {
            cells.add(c.strip());
        }
        return cells;
    }
}
