package io.gpux.client.agent;

import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Parser of the CSV printed by {@code nvidia-smi --query-gpu=FIELDS --format=csv[,noheader][,nounits]}:
 * one line per GPU, cells separated by {@code ", "}, in the order of the queried fields. The output is
 * read by Apache Commons CSV, one record a line: spaces around a cell are dropped, and a cell in
 * double quotes is one value even with a comma inside; {@link CsvRow} reads the values.
 * <ul>
 *   <li>The caller gives the field list it queried and says whether it asked for a header. A header
 *       is checked against the fields (long names such as {@code clocks.current.sm} match their
 *       alias {@code clocks.sm}, which is what nvidia-smi prints) and any difference is an error:
 *       reading columns under the wrong names would report wrong numbers.</li>
 *   <li>Values may carry units ({@code 143771 MiB}, {@code 122.52 W}, {@code 0 %}) or not; a unit
 *       other than the field's own is an error.</li>
 *   <li>Placeholders ({@code [N/A]}, {@code [Not Supported]}, any bracketed text, bare {@code N/A})
 *       are absent values: {@link #NULL_VALUE} for numbers, null for text.</li>
 *   <li>Blank lines are skipped (the output ends with a newline; CRLF is accepted).</li>
 *   <li>Output with no GPU line is an error: nvidia-smi with no GPU fails rather than printing
 *       nothing, so empty output means something went wrong.</li>
 * </ul>
 * Every problem is an {@link NvidiaSmiException} whose message starts with {@code line N:}.
 * Instances are immutable and thread-safe.
 */
public final class NvidiaSmiCsv
{
    /** The value of a numeric field nvidia-smi reports as unavailable; real values are never negative. */
    public static final int NULL_VALUE = -1;

    /**
     * nvidia-smi's CSV: cells trimmed, a cell in double quotes taken as one value; blank lines kept as records, so
     * that every record's line is known (and blank ones are skipped here).
     */
    private static final CSVFormat OUTPUT = CSVFormat.DEFAULT.builder().setIgnoreSurroundingSpaces(true)
        .setIgnoreEmptyLines(false).get();

    private final List<String> fields;
    private final List<String> canonicalFields;
    private final boolean header;

    /**
     * A parser for the output of one query.
     *
     * @param fields the {@code --query-gpu} fields in query order, as passed to nvidia-smi.
     * @param header whether the output starts with a header line (the format lacks {@code noheader}).
     * @throws IllegalArgumentException if the list is empty or names a field twice.
     */
    public NvidiaSmiCsv(final List<String> fields, final boolean header)
    {
        this.fields = List.copyOf(fields);
        if (this.fields.isEmpty())
        {
            throw new IllegalArgumentException("no query fields");
        }
        final List<String> canonical = new ArrayList<>(this.fields.size());
        final Set<String> seen = new HashSet<>();
        for (final String field : this.fields)
        {
            final String name = QueryFields.canonical(field);
            if (!seen.add(name))
            {
                throw new IllegalArgumentException("field queried twice: " + field);
            }
            canonical.add(name);
        }
        this.canonicalFields = Collections.unmodifiableList(canonical);
        this.header = header;
    }

    /**
     * The queried fields.
     *
     * @return the fields in query order.
     */
    public List<String> fields()
    {
        return fields;
    }

    /**
     * Whether the output is expected to start with a header line.
     *
     * @return true unless the query used {@code noheader}.
     */
    public boolean header()
    {
        return header;
    }

    /**
     * Parses a discovery query. The fields must include {@code name, uuid, serial, pci.bus_id,
     * driver_version, memory.total, compute_cap, power.limit, clocks.max.sm}; other columns are
     * ignored. {@code name}, {@code uuid} and {@code memory.total} must have values.
     *
     * @param output everything nvidia-smi printed on standard output.
     * @return the GPUs in output order, each with its position as {@link GpuInfo#index()}.
     * @throws NvidiaSmiException       if the output is malformed.
     * @throws IllegalArgumentException if the query lacks one of the fields above.
     */
    public List<GpuInfo> parseGpus(final CharSequence output) throws NvidiaSmiException
    {
        final int name = column("name");
        final int uuid = column("uuid");
        final int serial = column("serial");
        final int pciBusId = column("pci.bus_id");
        final int driverVersion = column("driver_version");
        final int memoryTotal = column("memory.total");
        final int computeCap = column("compute_cap");
        final int powerLimit = column("power.limit");
        final int maxSmClock = column("clocks.max.sm");

        final List<CsvRow> rows = rows(output);
        final List<GpuInfo> gpus = new ArrayList<>(rows.size());
        for (final CsvRow row : rows)
        {
            gpus.add(new GpuInfo(
                gpus.size(),
                row.requiredText(name),
                row.requiredText(uuid),
                row.text(serial),
                row.text(pciBusId),
                row.text(driverVersion),
                row.requiredWhole(memoryTotal),
                row.text(computeCap),
                row.milli(powerLimit),
                row.wholeInt(maxSmClock)));
        }
        return Collections.unmodifiableList(gpus);
    }

    /**
     * Parses a telemetry query. The fields must include {@code uuid, utilization.gpu,
     * utilization.memory, memory.used, temperature.gpu, power.draw, clocks.sm (or
     * clocks.current.sm), ecc.errors.uncorrected.volatile.total, pstate}; other columns (such as
     * {@code timestamp}) are ignored. Only {@code uuid} must have a value.
     *
     * @param output everything nvidia-smi printed on standard output.
     * @return one sample per line, in output order.
     * @throws NvidiaSmiException       if the output is malformed.
     * @throws IllegalArgumentException if the query lacks one of the fields above.
     */
    public List<GpuTelemetry> parseTelemetry(final CharSequence output) throws NvidiaSmiException
    {
        final int uuid = column("uuid");
        final int utilizationGpu = column("utilization.gpu");
        final int utilizationMemory = column("utilization.memory");
        final int memoryUsed = column("memory.used");
        final int temperature = column("temperature.gpu");
        final int powerDraw = column("power.draw");
        final int smClock = column("clocks.current.sm");
        final int eccUncorrected = column("ecc.errors.uncorrected.volatile.total");
        final int pstate = column("pstate");

        final List<CsvRow> rows = rows(output);
        final List<GpuTelemetry> samples = new ArrayList<>(rows.size());
        for (final CsvRow row : rows)
        {
            samples.add(new GpuTelemetry(
                row.requiredText(uuid),
                row.wholeInt(utilizationGpu),
                row.wholeInt(utilizationMemory),
                row.whole(memoryUsed),
                row.wholeInt(temperature),
                row.milli(powerDraw),
                row.wholeInt(smClock),
                row.whole(eccUncorrected),
                row.pstate(pstate)));
        }
        return Collections.unmodifiableList(samples);
    }

    /** Where a field the parse needs sits in the query; by long name, so an alias finds it too. */
    private int column(final String canonicalField)
    {
        final int column = canonicalFields.indexOf(canonicalField);
        if (column < 0)
        {
            throw new IllegalArgumentException("the query has no field '" + canonicalField + "'; queried: " + fields);
        }
        return column;
    }

    private List<CsvRow> rows(final CharSequence output) throws NvidiaSmiException
    {
        Objects.requireNonNull(output, "output");
        final String text = output.toString();
        final List<CsvRow> rows = new ArrayList<>();
        final LineCounter lines = new LineCounter(text);
        boolean headerPending = header;
        int lineNumber = 0;
        try (CSVParser parser = CSVParser.parse(text, OUTPUT))
        {
            final Iterator<CSVRecord> records = parser.iterator();
            while (true)
            {
                final CSVRecord record;
                try
                {
                    if (!records.hasNext())
                    {
                        break;
                    }
                    record = records.next();
                }
                catch (final UncheckedIOException e)
                {
                    // the record after the last one read begins on the next line
                    throw new NvidiaSmiException(lineNumber + 1, "not CSV: " + e.getCause().getMessage());
                }
                lineNumber = lines.lineOf(record.getCharacterPosition());
                final String[] cells = record.values();
                if (cells.length == 1 && cells[0].isEmpty())
                {
                    continue;
                }
                if (headerPending)
                {
                    checkHeader(lineNumber, cells);
                    headerPending = false;
                }
                else if (cells.length != fields.size())
                {
                    throw new NvidiaSmiException(
                        lineNumber, cells.length + " columns, but the query has " + fields.size() + " fields");
                }
                else if (rows.isEmpty() && !header && isHeader(cells))
                {
                    throw new NvidiaSmiException(lineNumber, "unexpected header line; the query asked for noheader");
                }
                else
                {
                    rows.add(new CsvRow(lineNumber, cells, canonicalFields));
                }
            }
        }
        catch (final IOException e)
        {
            throw new NvidiaSmiException(lineNumber + 1, "not CSV: " + e.getMessage());
        }
        if (headerPending)
        {
            throw new NvidiaSmiException("empty output: expected a header line");
        }
        if (rows.isEmpty())
        {
            throw new NvidiaSmiException(header ? "no GPU lines after the header" : "empty output: no GPU lines");
        }
        return rows;
    }

    /** Line numbers of character positions met in increasing order, counting line feeds once. */
    private static final class LineCounter
    {
        private final String text;
        private int scanned;
        private int line = 1;

        LineCounter(final String text)
        {
            this.text = text;
        }

        int lineOf(final long position)
        {
            while (scanned < position)
            {
                if (text.charAt(scanned++) == '\n')
                {
                    line++;
                }
            }
            return line;
        }
    }

    private void checkHeader(final int lineNumber, final String[] cells) throws NvidiaSmiException
    {
        if (cells.length != fields.size())
        {
            throw new NvidiaSmiException(lineNumber,
                "header has " + cells.length + " columns, but the query has " + fields.size() + " fields");
        }
        for (int i = 0; i < cells.length; i++)
        {
            if (!headerNames(i, cells[i]))
            {
                throw new NvidiaSmiException(lineNumber, "header does not match the query: column " + (i + 1) +
                    " is '" + cells[i] + "' but the query asked for '" + fields.get(i) + "'");
            }
            final String unit = QueryFields.headerUnit(cells[i]);
            final String expectedUnit = QueryFields.unitOf(canonicalFields.get(i));
            if (unit != null && expectedUnit != null && !unit.equals(expectedUnit))
            {
                throw new NvidiaSmiException(lineNumber, "header column " + (i + 1) + " '" + cells[i] +
                    "' has unit " + unit + "; expected " + expectedUnit);
            }
        }
    }

    private boolean isHeader(final String[] cells)
    {
        for (int i = 0; i < cells.length; i++)
        {
            if (!headerNames(i, cells[i]))
            {
                return false;
            }
        }
        return true;
    }

    private boolean headerNames(final int column, final String headerCell)
    {
        final String name = QueryFields.headerName(headerCell);
        return name.equals(canonicalFields.get(column)) || name.equals(fields.get(column));
    }
}
