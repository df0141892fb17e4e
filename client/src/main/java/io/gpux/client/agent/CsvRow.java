package io.gpux.client.agent;

import java.util.List;

/**
 * One data line of nvidia-smi CSV output, cut into cells, with typed access by column that turns
 * every malformed value into an {@link NvidiaSmiException} naming the line and the field.
 * <p>
 * Numbers are parsed by hand into fixed-point longs: a decimal such as {@code 122.55} never goes
 * through {@code double}, so {@code 122.55 W} is exactly {@code 122550} mW. The quantities
 * nvidia-smi reports are never negative, so a minus sign is an error and
 * {@link NvidiaSmiCsv#NULL_VALUE} cannot collide with a real value.
 */
final class CsvRow
{
    /** Beyond 18 digits a long may overflow; no GPU quantity comes near that. */
    private static final int MAX_DIGITS = 18;

    private final int lineNumber;
    private final String[] cells;
    private final List<String> canonicalFields;

    CsvRow(final int lineNumber, final String[] cells, final List<String> canonicalFields)
    {
        this.lineNumber = lineNumber;
        this.cells = cells;
        this.canonicalFields = canonicalFields;
    }

    /**
     * Whether nvidia-smi printed a placeholder instead of a value: {@code [N/A]},
     * {@code [Not Supported]}, {@code [Unknown Error]}, {@code [Insufficient Permissions]} and the
     * like are all bracketed; older drivers print a bare {@code N/A}.
     */
    static boolean isAbsent(final String cell)
    {
        return (cell.startsWith("[") && cell.endsWith("]")) || "N/A".equals(cell);
    }

    /** The cell as text, or null when absent. */
    String text(final int column)
    {
        final String cell = cells[column];
        return isAbsent(cell) ? null : cell;
    }

    /** The cell as text; absent or empty is an error, for the fields that identify a GPU. */
    String requiredText(final int column) throws NvidiaSmiException
    {
        final String cell = cells[column];
        if (cell.isEmpty() || isAbsent(cell))
        {
            throw problem(column, "required but reported as '" + cell + "'");
        }
        return cell;
    }

    /** A whole number that must have a value, for the memory size that prices a GPU. */
    long requiredWhole(final int column) throws NvidiaSmiException
    {
        if (isAbsent(cells[column]))
        {
            throw problem(column, "required but reported as '" + cells[column] + "'");
        }
        return scaled(column, 0);
    }

    /** A whole number (e.g. MiB, %, MHz, C, a count), or {@link NvidiaSmiCsv#NULL_VALUE} when absent. */
    long whole(final int column) throws NvidiaSmiException
    {
        return scaled(column, 0);
    }

    /** A whole number that must fit an int, or {@link NvidiaSmiCsv#NULL_VALUE} when absent. */
    int wholeInt(final int column) throws NvidiaSmiException
    {
        final long value = scaled(column, 0);
        if (value > Integer.MAX_VALUE)
        {
            throw problem(column, "'" + cells[column] + "' is out of range");
        }
        return (int)value;
    }

    /** A decimal in thousandths (W to mW), or {@link NvidiaSmiCsv#NULL_VALUE} when absent. */
    long milli(final int column) throws NvidiaSmiException
    {
        return scaled(column, 3);
    }

    /** A performance state {@code P0}..{@code P15} as its number, or {@link NvidiaSmiCsv#NULL_VALUE} when absent. */
    int pstate(final int column) throws NvidiaSmiException
    {
        final String cell = cells[column];
        if (isAbsent(cell))
        {
            return NvidiaSmiCsv.NULL_VALUE;
        }
        if (cell.length() < 2 || cell.length() > 3 || cell.charAt(0) != 'P' || !allDigits(cell, 1, cell.length()))
        {
            throw problem(column, "'" + cell + "' is not a performance state P0..P15");
        }
        final int state = Integer.parseInt(cell, 1, cell.length(), 10);
        if (state > 15)
        {
            throw problem(column, "'" + cell + "' is not a performance state P0..P15");
        }
        return state;
    }

    /**
     * Parses a non-negative decimal with an optional unit suffix into {@code value * 10^scale}.
     * Digits past {@code scale} decimals must be zeros: dropping a non-zero one would make the
     * result inexact.
     */
    private long scaled(final int column, final int scale) throws NvidiaSmiException
    {
        final String cell = cells[column];
        if (isAbsent(cell))
        {
            return NvidiaSmiCsv.NULL_VALUE;
        }
        final String number = stripUnit(column, cell);
        final int dot = number.indexOf('.');
        final int integerEnd = dot < 0 ? number.length() : dot;
        if (integerEnd == 0 || !allDigits(number, 0, integerEnd) ||
            (dot >= 0 && (dot == number.length() - 1 || !allDigits(number, dot + 1, number.length()))))
        {
            throw problem(column, "'" + cell + "' is not a number");
        }
        if (dot >= 0 && scale == 0)
        {
            throw problem(column, "'" + cell + "' is not a whole number");
        }

        final int fractionStart = dot < 0 ? number.length() : dot + 1;
        final int fractionDigits = number.length() - fractionStart;
        for (int i = fractionStart + scale; i < number.length(); i++)
        {
            if (number.charAt(i) != '0')
            {
                throw problem(column, "'" + cell + "' has more than " + scale + " decimals");
            }
        }
        if (integerEnd + scale > MAX_DIGITS)
        {
            throw problem(column, "'" + cell + "' is out of range");
        }

        long value = 0;
        for (int i = 0; i < integerEnd; i++)
        {
            value = value * 10 + (number.charAt(i) - '0');
        }
        for (int i = 0; i < scale; i++)
        {
            final int digit = i < fractionDigits ? number.charAt(fractionStart + i) - '0' : 0;
            value = value * 10 + digit;
        }
        return value;
    }

    /** Removes the field's unit, when the output has units; any other suffix is an error. */
    private String stripUnit(final int column, final String cell) throws NvidiaSmiException
    {
        final int space = cell.indexOf(' ');
        if (space < 0)
        {
            return cell;
        }
        final String unit = QueryFields.unitOf(canonicalFields.get(column));
        final String suffix = cell.substring(space + 1);
        if (unit == null || !unit.equals(suffix))
        {
            throw problem(column, "'" + cell + "' has an unexpected unit" + (unit == null ? "" : "; expected " + unit));
        }
        return cell.substring(0, space);
    }

    private static boolean allDigits(final String s, final int from, final int to)
    {
        for (int i = from; i < to; i++)
        {
            final char c = s.charAt(i);
            if (c < '0' || c > '9')
            {
                return false;
            }
        }
        return true;
    }

    private NvidiaSmiException problem(final int column, final String problem)
    {
        return new NvidiaSmiException(lineNumber, canonicalFields.get(column) + ": " + problem);
    }
}
