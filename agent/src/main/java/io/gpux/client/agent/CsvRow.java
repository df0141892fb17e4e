package io.gpux.client.agent;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.regex.Pattern;

/**
 * One data line of nvidia-smi CSV output, its cells as Apache Commons CSV cut them ({@link NvidiaSmiCsv}),
 * with typed access by column that turns every malformed value into an {@link NvidiaSmiException} naming
 * the line and the field.
 * <p>
 * Numbers are parsed into fixed-point longs through {@link BigDecimal}: a decimal such as
 * {@code 122.55} never goes through {@code double}, so {@code 122.55 W} is exactly {@code 122550}
 * mW. The quantities nvidia-smi reports are never negative, so a minus sign is an error and
 * {@link NvidiaSmiCsv#NULL_VALUE} cannot collide with a real value.
 */
final class CsvRow
{
    /** Digits, then perhaps a point and more digits: no sign, exponent or bare point. */
    private static final Pattern DECIMAL = Pattern.compile("[0-9]+(\\.[0-9]+)?");
    private static final Pattern PSTATE = Pattern.compile("P[0-9]{1,2}");

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
        if (!PSTATE.matcher(cell).matches() || Integer.parseInt(cell, 1, cell.length(), 10) > 15)
        {
            throw problem(column, "'" + cell + "' is not a performance state P0..P15");
        }
        return Integer.parseInt(cell, 1, cell.length(), 10);
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
        if (!DECIMAL.matcher(number).matches())
        {
            throw problem(column, "'" + cell + "' is not a number");
        }
        if (scale == 0 && number.indexOf('.') >= 0)
        {
            throw problem(column, "'" + cell + "' is not a whole number");
        }
        final BigDecimal scaled;
        try
        {
            scaled = new BigDecimal(number).setScale(scale, RoundingMode.UNNECESSARY);
        }
        catch (final ArithmeticException e)
        {
            throw problem(column, "'" + cell + "' has more than " + scale + " decimals");
        }
        try
        {
            return scaled.unscaledValue().longValueExact();
        }
        catch (final ArithmeticException e)
        {
            throw problem(column, "'" + cell + "' is out of range");
        }
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

    private NvidiaSmiException problem(final int column, final String problem)
    {
        return new NvidiaSmiException(lineNumber, canonicalFields.get(column) + ": " + problem);
    }
}
