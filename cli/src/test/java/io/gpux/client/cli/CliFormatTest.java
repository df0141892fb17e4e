package io.gpux.client.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Fill;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

/** The CLI's parsing and printing helpers: exact numbers, durations, JSON escaping, table alignment. */
class CliFormatTest
{
    @Test
    void pricesAmountsAndReliabilitiesAreParsedExactly()
    {
        assertEquals(25_000L, new Converters.Price().convert("2.5"));
        assertEquals(1L, new Converters.Price().convert("0.0001"));
        assertThrows(TypeConversionException.class, () -> new Converters.Price().convert("0"));
        assertThrows(TypeConversionException.class, () -> new Converters.Price().convert("2.00001"));
        assertThrows(TypeConversionException.class, () -> new Converters.Price().convert("1e3"));
        assertEquals(12_345_678L, new Converters.Amount().convert("12.345678"));
        assertThrows(TypeConversionException.class, () -> new Converters.Amount().convert("-1"));
        assertEquals(990_000L, new Converters.Reliability().convert("0.99"));
        assertEquals(1_000_000L, new Converters.Reliability().convert("1"));
        assertThrows(TypeConversionException.class, () -> new Converters.Reliability().convert("1.000001"));
    }

    @Test
    void durationsTakeUnits()
    {
        assertEquals(7_200_000L, Converters.durationMs("2h"));
        assertEquals(5_400_000L, Converters.durationMs("90m"));
        assertEquals(5_400_000L, Converters.durationMs("1h30m"));
        assertEquals(3_600_000L, Converters.durationMs("3600000"));
        assertEquals(500L, Converters.durationMs("500ms"));
        assertEquals(86_400_000L, Converters.durationMs("1d"));
        for (final String bad : new String[] {"", "0", "2x", "h", "1h 30m", "-5s", "99999999999999999999"})
        {
            assertThrows(TypeConversionException.class, () -> Converters.durationMs(bad), bad);
        }
        assertEquals(0L, new Converters.DurationOrZeroMs().convert("0"));
    }

    @Test
    void jsonLeavesOutWhatIsAbsentAndWritesInstantsTwice()
    {
        assertEquals("{\"type\":\"lease\",\"start_ms\":1764480000123,\"start_at\":\"2025-11-30T05:20:00.123Z\","
            + "\"prepaid_left_ms\":0,\"lease_id\":5,\"region\":\"eu\"}",
            new Json().put("type", "lease").putTime("start", 1_764_480_000_123L).putTime("ends", 0)
                .putSpan("prepaid_left_ms", 0).putSpan("telemetry_age_ms", -1).putPositive("lease_id", 5)
                .putPositive("preempts_lease_id", 0).putText("region", "eu").putText("interconnect", "")
                .putText("hint", null).toString());
        final AccountEvent.Builder fill = AccountEvent.newBuilder().setSeq(3).setEngineSeq(9)
            .setTimeMs(1_764_480_000_000L).setCommandSeq(4).setFill(Fill.newBuilder().setOrderId(7)
                .setCounterOrderId(8).setLeaseId(2).setGpus(4).setPrice(25_000));
        final String plain = EventFormat.json(fill.build()).toString();
        JsonRules.check(plain);
        assertTrue(plain.endsWith("\"gpus\":4,\"price\":\"2.5000\"}"), "no preempts_lease_id: " + plain);
        fill.getFillBuilder().setPreemptsLeaseId(1);
        assertTrue(EventFormat.json(fill.build()).toString().endsWith(",\"preempts_lease_id\":1}"));
    }

    @Test
    void jsonEscapesWhatItMustAndReadsBack()
    {
        final String nasty = "a \"quoted\" back\\slash\nnew line\ttab \u0001 and \u2028";
        final String line = new Json().put("text", nasty).put("n", -42).put("ok", true)
            .put("list", List.of(new Json().put("price", "2.5000"))).toString();
        assertEquals(-1, line.indexOf('\n'), "one line");
        assertEquals(-1, line.indexOf('\u2028'), "no line separator a reader could split on");
        assertTrue(line.startsWith("{\"text\":\"a \\\"quoted\\\" back\\\\slash\\nnew line\\ttab \\u0001 and \\u2028\","), line);
        final Map<String, Object> back = MiniJson.object(line);
        assertEquals(nasty, back.get("text"));
        assertEquals(-42L, back.get("n"));
        assertEquals(true, back.get("ok"));
        assertEquals("2.5000", ((Map<?, ?>)((List<?>)back.get("list")).get(0)).get("price"));
    }

    @Test
    void jsonKeepsTheOrderFieldsWerePutInAndAppendsMergedFields()
    {
        final Json result = new Json().put("type", "result").put("ok", true)
            .putAll(new Json().put("order_id", 7).putStrings("markets", List.of("h100", "a100")));
        assertEquals("{\"type\":\"result\",\"ok\":true,\"order_id\":7,\"markets\":[\"h100\",\"a100\"]}", result.toString());
        assertEquals("type=result ok=true", result.human());
        assertEquals("{}", new Json().toString());
    }

    @Test
    void theTestReaderRefusesFractionsDuplicatesAndTrailingText()
    {
        for (final String bad : new String[] {"{\"p\":2.5}", "{\"p\":[1e3]}", "{\"a\":1,\"a\":2}", "{} {}", "[1]"})
        {
            assertThrows(IllegalArgumentException.class, () -> MiniJson.object(bad), bad);
        }
        assertEquals(Map.of("a", List.of(1L, "2")), MiniJson.object("{\"a\":[1,\"2\"]}"));
    }

    @Test
    void tablesAlignNumbersRightAndTextLeft()
    {
        final StringWriter out = new StringWriter();
        new Table("NAME", "PRICE", "GPUS").row("a", "2.5000", 4).row("long-name", "10.0000", 16).print(new PrintWriter(out, true));
        assertEquals("NAME         PRICE  GPUS\n"
            + "a           2.5000     4\n"
            + "long-name  10.0000    16\n", out.toString());
    }

    @Test
    void formatsForPeople()
    {
        assertEquals("0.990000", Format.ppm(990_000));
        assertEquals("1.000000", Format.ppm(1_000_000));
        assertEquals("1970-01-01 00:00:01.500Z", Format.time(1_500));
        assertEquals("-", Format.time(0));
    }
}
