package io.gpux.client.agent;

import java.util.Map;

/**
 * What nvidia-smi does with the names of {@code --query-gpu} fields: the short aliases it accepts
 * but prints under their long name in the CSV header, and the unit it appends to each field's
 * values (and header) unless asked for {@code nounits}.
 */
final class QueryFields
{
    /**
     * Aliases whose header shows the long name. The captured H200 header proves the first one
     * ({@code clocks.sm} printed as {@code clocks.current.sm}); the rest are the other aliases
     * listed by {@code nvidia-smi --help-query-gpu}.
     */
    private static final Map<String, String> LONG_NAMES = Map.ofEntries(
        Map.entry("clocks.sm", "clocks.current.sm"),
        Map.entry("clocks.gr", "clocks.current.graphics"),
        Map.entry("clocks.mem", "clocks.current.memory"),
        Map.entry("clocks.video", "clocks.current.video"),
        Map.entry("clocks.max.gr", "clocks.max.graphics"),
        Map.entry("clocks.max.mem", "clocks.max.memory"),
        Map.entry("gpu_name", "name"),
        Map.entry("gpu_uuid", "uuid"),
        Map.entry("gpu_serial", "serial"),
        Map.entry("gpu_bus_id", "pci.bus_id"));

    private QueryFields()
    {
    }

    /**
     * The name nvidia-smi prints in the header for a queried field.
     *
     * @param field a {@code --query-gpu} field name, possibly an alias.
     * @return its long name.
     */
    static String canonical(final String field)
    {
        return LONG_NAMES.getOrDefault(field, field);
    }

    /**
     * The unit nvidia-smi appends to a field's values, e.g. {@code 143771 MiB}; temperatures and
     * counters carry none.
     *
     * @param canonicalField a field's long name.
     * @return the unit, or null when the field's values have none.
     */
    static String unitOf(final String canonicalField)
    {
        if (canonicalField.startsWith("memory."))
        {
            return "MiB";
        }
        if (canonicalField.startsWith("utilization."))
        {
            return "%";
        }
        if (canonicalField.startsWith("power.") || canonicalField.startsWith("enforced.power."))
        {
            return "W";
        }
        if (canonicalField.startsWith("clocks."))
        {
            return "MHz";
        }
        return null;
    }

    /**
     * The field name in a header cell such as {@code memory.total [MiB]}.
     *
     * @param headerCell a trimmed header cell.
     * @return the name without the bracketed unit.
     */
    static String headerName(final String headerCell)
    {
        final int bracket = headerCell.indexOf(" [");
        return bracket < 0 ? headerCell : headerCell.substring(0, bracket);
    }

    /**
     * The unit in a header cell such as {@code memory.total [MiB]}.
     *
     * @param headerCell a trimmed header cell.
     * @return the unit, or null when the cell has none.
     */
    static String headerUnit(final String headerCell)
    {
        final int bracket = headerCell.indexOf(" [");
        if (bracket < 0 || !headerCell.endsWith("]"))
        {
            return null;
        }
        return headerCell.substring(bracket + 2, headerCell.length() - 1);
    }
}
