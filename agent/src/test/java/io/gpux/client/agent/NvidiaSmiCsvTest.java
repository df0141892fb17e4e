package io.gpux.client.agent;

import static io.gpux.client.agent.NvidiaSmiCsv.NULL_VALUE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class NvidiaSmiCsvTest
{
    private static final List<String> FIELDS = NvidiaSmi.DISCOVERY_FIELDS;
    private static final NvidiaSmiCsv WITH_HEADER = new NvidiaSmiCsv(FIELDS, true);
    private static final NvidiaSmiCsv NO_HEADER = new NvidiaSmiCsv(FIELDS, false);


    // ---------------------------------------------------------------- the captured H200 output

    @Test
    void discoversTheH200FromTheQueryWithHeaderAndUnits() throws NvidiaSmiException
    {
        final List<GpuInfo> gpus = WITH_HEADER.parseGpus(H200Fixtures.read("query-idle.csv"));

        assertEquals(1, gpus.size());
        assertH200(gpus.get(0));
    }

    @Test
    void discoversTheH200FromTheQueryWithoutHeaderOrUnits() throws NvidiaSmiException
    {
        final List<GpuInfo> gpus = NO_HEADER.parseGpus(H200Fixtures.read("query-idle-nounits.csv"));

        assertEquals(1, gpus.size());
        assertH200(gpus.get(0));
    }

    @Test
    void readsIdleTelemetryWithUnits() throws NvidiaSmiException
    {
        final GpuTelemetry idle = single(WITH_HEADER.parseTelemetry(H200Fixtures.read("query-idle.csv")));

        assertEquals(new GpuTelemetry(H200Fixtures.UUID, 0, 0, 0, 36, 122_520, 1980, 0, 0), idle);
    }

    @Test
    void readsIdleTelemetryWithoutUnits() throws NvidiaSmiException
    {
        final GpuTelemetry idle = single(NO_HEADER.parseTelemetry(H200Fixtures.read("query-idle-nounits.csv")));

        assertEquals(new GpuTelemetry(H200Fixtures.UUID, 0, 0, 0, 36, 122_550, 1980, 0, 0), idle);
    }

    @Test
    void readsTheLoadTraceSampleBySample() throws NvidiaSmiException
    {
        final NvidiaSmiCsv csv = new NvidiaSmiCsv(NvidiaSmi.TELEMETRY_FIELDS, true);
        final List<GpuTelemetry> trace = csv.parseTelemetry(H200Fixtures.read("telemetry-load.csv"));

        assertEquals(60, trace.size());
        assertEquals(new GpuTelemetry(H200Fixtures.UUID, 0, 0, 0, 36, 121_740, 405, 0, 0), trace.get(0));
        assertEquals(new GpuTelemetry(H200Fixtures.UUID, 100, 24, 1139, 56, 697_280, 1500, 0, 0), trace.get(19));
        assertEquals(new GpuTelemetry(H200Fixtures.UUID, 0, 0, 0, 37, 78_180, 345, 0, 0), trace.get(59));

        final List<Long> powerAtFullLoad = new ArrayList<>();
        int maxTemperature = 0;
        for (final GpuTelemetry sample : trace)
        {
            assertEquals(H200Fixtures.UUID, sample.uuid());
            maxTemperature = Math.max(maxTemperature, sample.temperatureC());
            if (sample.utilizationGpuPct() == 100)
            {
                powerAtFullLoad.add(sample.powerDrawMilliW());
            }
        }
        assertEquals(36, powerAtFullLoad.size());
        powerAtFullLoad.sort(null);
        final long medianMilliW = powerAtFullLoad.get(powerAtFullLoad.size() / 2);
        assertTrue(medianMilliW > 685_000 && medianMilliW < 700_000, "median at 100 %: " + medianMilliW);
        assertEquals(697_280, powerAtFullLoad.get(powerAtFullLoad.size() - 1));
        assertEquals(60, maxTemperature);
    }

    @Test
    void readsTheDiscoveryFieldsOfEveryTraceLine() throws NvidiaSmiException
    {
        final NvidiaSmiCsv csv = new NvidiaSmiCsv(NvidiaSmi.TELEMETRY_FIELDS, true);
        final List<GpuInfo> gpus = csv.parseGpus(H200Fixtures.read("telemetry-load.csv"));

        assertEquals(60, gpus.size());
        assertEquals(59, gpus.get(59).index());
        assertEquals("H200-141G", gpus.get(59).marketSymbol());
    }

    // ---------------------------------------------------------------- many GPUs

    @Test
    void discoversEightGpusWithoutHeader() throws NvidiaSmiException
    {
        final List<GpuInfo> gpus = NO_HEADER.parseGpus(eightGpus(idleLine(), ""));

        assertEightDistinctH200s(gpus);
    }

    @Test
    void discoversEightGpusWithHeaderAndUnits() throws NvidiaSmiException
    {
        final String[] lines = H200Fixtures.read("query-idle.csv").split("\n");
        final List<GpuInfo> gpus = WITH_HEADER.parseGpus(eightGpus(lines[1], lines[0] + "\n"));

        assertEightDistinctH200s(gpus);
        assertEquals(8, WITH_HEADER.parseTelemetry(eightGpus(lines[1], lines[0] + "\n")).size());
    }

    // ---------------------------------------------------------------- unavailable values

    @Test
    void placeholdersAreAbsentValues() throws NvidiaSmiException
    {
        String line = idleLine();
        line = withCell(line, "serial", "[N/A]");
        line = withCell(line, "pci.bus_id", "N/A");
        line = withCell(line, "memory.used", "[N/A]");
        line = withCell(line, "utilization.gpu", "[Not Supported]");
        line = withCell(line, "utilization.memory", "[Not Supported]");
        line = withCell(line, "temperature.gpu", "[N/A]");
        line = withCell(line, "power.draw", "[Unknown Error]");
        line = withCell(line, "power.limit", "[Not Supported]");
        line = withCell(line, "clocks.sm", "[N/A]");
        line = withCell(line, "clocks.max.sm", "[N/A]");
        line = withCell(line, "ecc.errors.uncorrected.volatile.total", "[N/A]");
        line = withCell(line, "pstate", "[N/A]");
        line = withCell(line, "compute_cap", "[N/A]");

        final GpuInfo gpu = single(NO_HEADER.parseGpus(line));
        assertNull(gpu.serial());
        assertNull(gpu.pciBusId());
        assertNull(gpu.computeCapability());
        assertEquals(NULL_VALUE, gpu.powerLimitMilliW());
        assertEquals(NULL_VALUE, gpu.maxSmClockMHz());
        assertEquals("H200-141G", gpu.marketSymbol());

        final GpuTelemetry sample = single(NO_HEADER.parseTelemetry(line));
        assertEquals(new GpuTelemetry(H200Fixtures.UUID, NULL_VALUE, NULL_VALUE, NULL_VALUE, NULL_VALUE,
            NULL_VALUE, NULL_VALUE, NULL_VALUE, NULL_VALUE), sample);
    }

    @Test
    void placeholdersInUnitOutputAreAbsentToo() throws NvidiaSmiException
    {
        final String[] lines = H200Fixtures.read("query-idle.csv").split("\n");
        final String line = withCell(lines[1], "power.draw", "[N/A]");

        assertEquals(NULL_VALUE, single(WITH_HEADER.parseTelemetry(lines[0] + "\n" + line)).powerDrawMilliW());
    }

    @ParameterizedTest
    @CsvSource({ "uuid, [N/A]", "name, [N/A]", "memory.total, [N/A]", "uuid, ''", "name, ''" })
    void identityFieldsAreRequired(final String field, final String value)
    {
        final NvidiaSmiException ex = assertThrows(NvidiaSmiException.class,
            () -> NO_HEADER.parseGpus(withCell(idleLine(), field, value)));

        assertEquals("line 1: " + field + ": required but reported as '" + value + "'", ex.getMessage());
        assertEquals(1, ex.lineNumber());
    }

    // ---------------------------------------------------------------- fixed point

    @ParameterizedTest
    @CsvSource({
        "122.55, 122550", "122.5500, 122550", "700.00, 700000", "700, 700000", "0.001, 1", "1.5, 1500",
        "0, 0", "0000.10, 100", "'122.55 W', 122550" })
    void powerIsExactFixedPointMilliwatts(final String value, final long milliW) throws NvidiaSmiException
    {
        final GpuTelemetry sample = single(NO_HEADER.parseTelemetry(withCell(idleLine(), "power.draw", value)));

        assertEquals(milliW, sample.powerDrawMilliW());
    }

    @Test
    void largestPowerStillFitsALong() throws NvidiaSmiException
    {
        final String value = "999999999999999.999";

        assertEquals(999_999_999_999_999_999L,
            single(NO_HEADER.parseTelemetry(withCell(idleLine(), "power.draw", value))).powerDrawMilliW());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "122.5555", "0.0005", "1.", ".5", "1.2.3", "1e3", "-5", "+5", "12x.5", "", "NaN", "9999999999999999.0",
        "122.55 mW", "122.55 W W", "122,55" })
    void rejectsMalformedDecimals(final String value)
    {
        final String line = value.contains(",") ? idleLine().replace("122.55", value) : withCell(idleLine(), "power.draw", value);
        final NvidiaSmiException ex = assertThrows(NvidiaSmiException.class, () -> NO_HEADER.parseTelemetry(line));

        assertEquals(1, ex.lineNumber());
        assertTrue(ex.getMessage().startsWith("line 1: "), ex.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = { "143771.5", "99999999999999999999", "14x771", "-1", "143771 GiB", "0x10" })
    void rejectsMalformedWholeNumbers(final String value)
    {
        final NvidiaSmiException ex = assertThrows(NvidiaSmiException.class,
            () -> NO_HEADER.parseGpus(withCell(idleLine(), "memory.total", value)));

        assertTrue(ex.getMessage().startsWith("line 1: memory.total: '" + value + "'"), ex.getMessage());
    }

    @Test
    void rejectsAnIntFieldBeyondInt()
    {
        final NvidiaSmiException ex = assertThrows(NvidiaSmiException.class,
            () -> NO_HEADER.parseTelemetry(withCell(idleLine(), "temperature.gpu", "3000000000")));

        assertEquals("line 1: temperature.gpu: '3000000000' is out of range", ex.getMessage());
    }

    @ParameterizedTest
    @CsvSource({ "P8, 8", "P15, 15", "P0, 0" })
    void readsPerformanceStates(final String value, final int state) throws NvidiaSmiException
    {
        assertEquals(state, single(NO_HEADER.parseTelemetry(withCell(idleLine(), "pstate", value))).pstate());
    }

    @ParameterizedTest
    @ValueSource(strings = { "P16", "P", "X0", "p0", "P-1", "P000", "0" })
    void rejectsBadPerformanceStates(final String value)
    {
        final NvidiaSmiException ex = assertThrows(NvidiaSmiException.class,
            () -> NO_HEADER.parseTelemetry(withCell(idleLine(), "pstate", value)));

        assertEquals("line 1: pstate: '" + value + "' is not a performance state P0..P15", ex.getMessage());
    }

    @Test
    void rejectsAUnitOnAFieldThatHasNone()
    {
        final NvidiaSmiException ex = assertThrows(NvidiaSmiException.class,
            () -> NO_HEADER.parseTelemetry(withCell(idleLine(), "temperature.gpu", "36 C")));

        assertEquals("line 1: temperature.gpu: '36 C' has an unexpected unit", ex.getMessage());
    }

    // ---------------------------------------------------------------- malformed lines

    @Test
    void rejectsAMissingColumnNamingTheLine()
    {
        final String line = idleLine();
        final String shortLine = line.substring(0, line.lastIndexOf(','));
        final NvidiaSmiException ex = assertThrows(NvidiaSmiException.class,
            () -> NO_HEADER.parseGpus(line + "\n" + line + "\n" + shortLine + "\n"));

        assertEquals("line 3: 17 columns, but the query has 18 fields", ex.getMessage());
        assertEquals(3, ex.lineNumber());
    }

    @Test
    void rejectsAnExtraColumn()
    {
        final String[] lines = H200Fixtures.read("query-idle.csv").split("\n");
        final NvidiaSmiException ex = assertThrows(NvidiaSmiException.class,
            () -> WITH_HEADER.parseGpus(lines[0] + "\n" + lines[1] + ", 42\n"));

        assertEquals("line 2: 19 columns, but the query has 18 fields", ex.getMessage());
    }

    @Test
    void countsBlankLinesAndAcceptsCrLf() throws NvidiaSmiException
    {
        final String line = idleLine();
        assertEquals(2, NO_HEADER.parseGpus("\r\n" + line + "\r\n\r\n" + line + "\r\n").size());

        final NvidiaSmiException ex = assertThrows(NvidiaSmiException.class,
            () -> NO_HEADER.parseGpus("\n" + line + "\n\n" + withCell(line, "clocks.max.sm", "fast") + "\n"));
        assertEquals("line 4: clocks.max.sm: 'fast' is not a number", ex.getMessage());
    }

    @Test
    void rejectsAHeaderThatDoesNotMatchTheQuery()
    {
        final String output = H200Fixtures.read("query-idle.csv")
            .replace("memory.used [MiB], memory.free [MiB]", "memory.free [MiB], memory.used [MiB]");
        final NvidiaSmiException ex = assertThrows(NvidiaSmiException.class, () -> WITH_HEADER.parseGpus(output));

        assertEquals("line 1: header does not match the query: column 7 is 'memory.free [MiB]' but the query " +
            "asked for 'memory.used'", ex.getMessage());
    }

    @Test
    void rejectsAHeaderWithOtherColumns()
    {
        final NvidiaSmiCsv csv = new NvidiaSmiCsv(NvidiaSmi.TELEMETRY_FIELDS, true);
        final NvidiaSmiException ex = assertThrows(NvidiaSmiException.class,
            () -> csv.parseTelemetry(H200Fixtures.read("query-idle.csv")));

        assertEquals("line 1: header has 18 columns, but the query has 19 fields", ex.getMessage());
    }

    @Test
    void rejectsAHeaderWithAnotherUnit()
    {
        final String output = H200Fixtures.read("query-idle.csv").replace("power.draw [W]", "power.draw [mW]");
        final NvidiaSmiException ex = assertThrows(NvidiaSmiException.class, () -> WITH_HEADER.parseGpus(output));

        assertEquals("line 1: header column 12 'power.draw [mW]' has unit mW; expected W", ex.getMessage());
    }

    @Test
    void rejectsAMissingHeader()
    {
        final NvidiaSmiException ex = assertThrows(NvidiaSmiException.class,
            () -> WITH_HEADER.parseGpus(H200Fixtures.read("query-idle-nounits.csv")));

        assertEquals("line 1: header does not match the query: column 1 is 'NVIDIA H200' but the query " +
            "asked for 'name'", ex.getMessage());
    }

    @Test
    void rejectsAnUnexpectedHeader()
    {
        final NvidiaSmiException ex = assertThrows(NvidiaSmiException.class,
            () -> NO_HEADER.parseGpus(H200Fixtures.read("query-idle.csv")));

        assertEquals("line 1: unexpected header line; the query asked for noheader", ex.getMessage());
    }

    @Test
    void matchesAliasesAndLongNamesInTheHeader() throws NvidiaSmiException
    {
        final List<String> longNames = new ArrayList<>(FIELDS);
        longNames.set(longNames.indexOf("clocks.sm"), "clocks.current.sm");
        final NvidiaSmiCsv csv = new NvidiaSmiCsv(longNames, true);

        assertEquals(1980, single(csv.parseTelemetry(H200Fixtures.read("query-idle.csv"))).smClockMHz());
    }

    @ParameterizedTest
    @ValueSource(strings = { "", "\n", "\r\n\r\n", "   \n" })
    void rejectsEmptyOutput(final String output)
    {
        final NvidiaSmiException noHeader = assertThrows(NvidiaSmiException.class, () -> NO_HEADER.parseGpus(output));
        final NvidiaSmiException header = assertThrows(NvidiaSmiException.class, () -> WITH_HEADER.parseGpus(output));

        assertEquals("empty output: no GPU lines", noHeader.getMessage());
        assertEquals("empty output: expected a header line", header.getMessage());
        assertEquals(0, header.lineNumber());
    }

    @Test
    void rejectsAHeaderWithoutGpus()
    {
        final String headerOnly = H200Fixtures.read("query-idle.csv").split("\n")[0] + "\n";
        final NvidiaSmiException ex = assertThrows(NvidiaSmiException.class, () -> WITH_HEADER.parseTelemetry(headerOnly));

        assertEquals("no GPU lines after the header", ex.getMessage());
    }

    @Test
    void aQuotedCellKeepsItsCommaAndSpaces() throws NvidiaSmiException
    {
        final GpuInfo gpu = single(NO_HEADER.parseGpus(withCell(idleLine(), "name", "\"NVIDIA H200, rev 2 \"")));

        assertEquals("NVIDIA H200, rev 2 ", gpu.name());
        assertEquals(143_771, gpu.memoryTotalMiB());
    }

    @Test
    void rejectsAnUnclosedQuoteNamingTheLine()
    {
        final String output = idleLine() + "\n" + withCell(idleLine(), "name", "\"NVIDIA H200");
        final NvidiaSmiException ex = assertThrows(NvidiaSmiException.class, () -> NO_HEADER.parseGpus(output));

        assertEquals(2, ex.lineNumber());
        assertTrue(ex.getMessage().startsWith("line 2: not CSV: "), ex.getMessage());
    }

    @Test
    void rejectsNonCsvText()
    {
        final NvidiaSmiException ex = assertThrows(NvidiaSmiException.class,
            () -> NO_HEADER.parseGpus(H200Fixtures.read("nvidia-smi-L.txt")));

        assertEquals("line 1: 1 columns, but the query has 18 fields", ex.getMessage());
    }

    // ---------------------------------------------------------------- the caller's field list

    @Test
    void refusesAQueryWithoutTheFieldsItMaps()
    {
        final NvidiaSmiCsv csv = new NvidiaSmiCsv(List.of("uuid", "power.draw"), false);

        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> csv.parseTelemetry("GPU-1, 100.00\n"));
        assertTrue(ex.getMessage().contains("'utilization.gpu'"), ex.getMessage());
    }

    @Test
    void refusesEmptyOrDuplicateFields()
    {
        assertThrows(IllegalArgumentException.class, () -> new NvidiaSmiCsv(List.of(), true));
        assertThrows(IllegalArgumentException.class, () -> new NvidiaSmiCsv(List.of("uuid", "clocks.sm",
            "clocks.current.sm"), true));
    }

    // ---------------------------------------------------------------- helpers

    private static void assertH200(final GpuInfo gpu)
    {
        assertEquals(new GpuInfo(0, "NVIDIA H200", H200Fixtures.UUID, "1650000000001", "00000000:00:06.0",
            "580.159.04", 143_771, "9.0", 700_000, 1980), gpu);
        assertEquals(141, gpu.vramGb());
        assertEquals("H200-141G", gpu.marketSymbol());
    }

    private static void assertEightDistinctH200s(final List<GpuInfo> gpus)
    {
        assertEquals(8, gpus.size());
        final HashSet<String> uuids = new HashSet<>();
        for (int i = 0; i < gpus.size(); i++)
        {
            final GpuInfo gpu = gpus.get(i);
            assertEquals(i, gpu.index());
            assertEquals("NVIDIA H200", gpu.name());
            assertEquals(String.format("00000000:%02X:00.0", 0x18 + i), gpu.pciBusId());
            assertEquals(143_771, gpu.memoryTotalMiB());
            uuids.add(gpu.uuid());
        }
        assertEquals(8, uuids.size());
    }

    /** The real line eight times, as on an 8-GPU machine: each GPU its own uuid, serial and bus id. */
    private static String eightGpus(final String realLine, final String header)
    {
        final StringBuilder output = new StringBuilder(header);
        for (int i = 0; i < 8; i++)
        {
            output.append(realLine
                .replace(H200Fixtures.UUID, H200Fixtures.UUID.substring(0, H200Fixtures.UUID.length() - 1) + (i + 1))
                .replace("1650000000001", "165000000000" + (i + 1))
                .replace("00000000:00:06.0", String.format("00000000:%02X:00.0", 0x18 + i)))
                .append('\n');
        }
        return output.toString();
    }

    private static String idleLine()
    {
        return H200Fixtures.read("query-idle-nounits.csv").strip();
    }

    private static String withCell(final String line, final String field, final String value)
    {
        final String[] cells = line.split(", ", -1);
        cells[FIELDS.indexOf(field)] = value;
        return String.join(", ", Arrays.asList(cells));
    }

    private static <T> T single(final List<T> list)
    {
        assertEquals(1, list.size());
        return list.get(0);
    }
}
