package io.gpux.client.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A text table with aligned columns: a header row, then rows; a column whose cells are all numbers
 * (prices, amounts, counts, percentages) is aligned right, any other left. Columns are separated by
 * two spaces; trailing blanks are trimmed.
 */
final class Table
{
    private static final Pattern NUMBER = Pattern.compile("-?[0-9][0-9,.]*%?|-");

    private final String[] headers;
    private final List<String[]> rows = new ArrayList<>();

    Table(final String... headers)
    {
        this.headers = headers;
    }

    Table row(final Object... cells)
    {
        if (cells.length != headers.length)
        {
            throw new IllegalArgumentException(cells.length + " cells for " + headers.length + " columns");
        }
        final String[] text = new String[cells.length];
        for (int i = 0; i < cells.length; i++)
        {
            text[i] = cells[i] == null ? "" : cells[i].toString();
        }
        rows.add(text);
        return this;
    }

    boolean isEmpty()
    {
        return rows.isEmpty();
    }

    void print(final PrintWriter out)
    {
        final int columns = headers.length;
        final int[] width = new int[columns];
        final boolean[] right = new boolean[columns];
        for (int c = 0; c < columns; c++)
        {
            width[c] = headers[c].length();
            boolean numeric = !rows.isEmpty();
            for (final String[] row : rows)
            {
                width[c] = Math.max(width[c], row[c].length());
                numeric &= row[c].isEmpty() || NUMBER.matcher(row[c]).matches();
            }
            right[c] = numeric;
        }
        line(out, headers, width, right);
        for (final String[] row : rows)
        {
            line(out, row, width, right);
        }
    }

    private static void line(final PrintWriter out, final String[] cells, final int[] width, final boolean[] right)
    {
        final StringBuilder sb = new StringBuilder();
        for (int c = 0; c < cells.length; c++)
        {
            if (c > 0)
            {
                sb.append("  ");
            }
            final String pad = " ".repeat(width[c] - cells[c].length());
            if (right[c])
            {
                sb.append(pad).append(cells[c]);
            }
            else
            {
                sb.append(cells[c]).append(pad);
            }
        }
        int end = sb.length();
        while (end > 0 && sb.charAt(end - 1) == ' ')
        {
            end--;
        }
        sb.setLength(end);
        out.println(sb);
    }
}
