package io.gpux.sim.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.series.Series;

/** What people read: plain labels, no Java map text, the outage on every chart, days on long runs, the terms defined. */
class ReportReadabilityTest
{
    private static final long H = 3_600_000L;
    private static final Pattern CAMEL_CASE = Pattern.compile("\\b[a-z]+[A-Z][A-Za-z]*\\b");
    private static final Pattern MAP_TEXT = Pattern.compile("\\{[^}]*=[^}]*}");

    private static Analysis market(final long hours)
    {
        final AgentRecords owner = new AgentRecords("o", "owner");
        final MachineRecord m = new MachineRecord("o-m1", "o", "A100-80G", 2, "eu-west", 1.0);
        m.machineId = 5;
        m.online.open(0);
        m.listed.open(0);
        owner.machines.add(m);
        owner.sales.add(new TradeRecord(H, "A100-80G", 1, 12_000));
        final Analysis a = new Analysis(List.of(owner), 0, hours * H, 300_000);
        a.notices.put("OUTBID", 12L);
        a.notices.put("NOTICE_OWNER_RECLAIM", 3L);
        a.endReasons.put("RELEASED", 7L);
        a.withoutNotice.put("MACHINE_OFFLINE", 2L);
        a.jobOutcomes.put("GAVE_UP", 1L);
        a.jobOutcomes.put("DONE", 9L);
        return a;
    }

    private static Report report(final Analysis a)
    {
        final Map<String, Object> run = Json.object();
        run.put("description", "a hand-made market");
        run.put("clockScale", 1440);
        run.put("killExchange", true);
        final Map<String, Object> checks = Json.object();
        checks.put("moneyConserved", true);
        checks.put("depositsMicros", 12_500_000L);
        final Map<String, Object> exchange = Json.object();
        exchange.put("commandsJournaled", 1234L);
        final Map<String, Object> wall = Json.object();
        final Map<String, Object> kill = Json.object();
        kill.put("restartSeconds", 1.5);
        kill.put("clientsReconnected", 3);
        wall.put("exchangeKill", kill);
        return new Report(a, run, checks, exchange, wall);
    }

    private static void assertReadable(final String text)
    {
        final Matcher camel = CAMEL_CASE.matcher(text);
        assertFalse(camel.find(), () -> "a camelCase key: " + camel.group() + " in\n" + text);
        final Matcher map = MAP_TEXT.matcher(text);
        assertFalse(map.find(), () -> "Java map text: " + map.group() + " in\n" + text);
    }

    @Test
    void theSummaryAndTheHtmlReadInWords(@TempDir final Path dir) throws Exception
    {
        final Report report = report(market(6)).outage(new Outage(2 * H, 3 * H));
        final String summary = report.summary(List.of());
        assertReadable(summary);
        assertTrue(summary.contains("market efficiency"), summary);
        assertTrue(summary.contains("GPU utilization"), summary);
        assertTrue(summary.contains("notices: outbid 12, owner reclaim 3"), summary);
        assertTrue(summary.contains("without notice: machine offline 2"), summary);
        assertTrue(summary.contains("exchange down 1970-01-01T02:00:00Z to 1970-01-01T03:00:00Z"), summary);

        final String html = Files.readString(report.write(dir));
        final String text = html.replaceAll("(?s)<style>.*?</style>", "").replaceAll("<[^>]*>", " ");
        assertReadable(text);
        assertTrue(text.contains("clock scale (market time per wall time)"), text);
        assertTrue(text.contains("exchange kill  restart seconds 1.5; clients reconnected 3"), text);
        assertTrue(text.contains("deposits ($)  12.50"), text);
        assertTrue(html.contains("shaded and labelled \"exchange down\" on every chart"), html);
        for (final String term : List.of("Peer reference", "Market efficiency", "Without foresight", "GPU utilization", "VWAP", "Work lost",
            "Readiness", "Exchange down"))
        {
            assertEquals(1, count(html, "<dt>" + term + "</dt>"), term + " defined once");
        }
        final Map<?, ?> json = (Map<?, ?>)Json.parse(Files.readString(dir.resolve("report.json")));
        assertTrue(((Map<?, ?>)json.get("overall")).containsKey("efficiency") && ((Map<?, ?>)json.get("overall")).containsKey("surplusBound"), "report.json keeps its keys");
    }

    @Test
    void anOutageIsMarkedOnEveryChartAndNoneWithoutOne()
    {
        final Analysis a = market(6);
        int charts = 0;
        for (final Charts.Figure f : Charts.figures(a, new Outage(2 * H, 3 * H)))
        {
            for (final XYChart c : f.charts())
            {
                assertEquals(Outage.LABEL, Charts.outageLabel(c), f.file() + ": " + c.getTitle());
                charts++;
            }
        }
        assertEquals(8 + 1 + 2 + 1, charts, "every chart of every figure");
        for (final Charts.Figure f : Charts.figures(a, null))
        {
            for (final XYChart c : f.charts())
            {
                assertNull(Charts.outageLabel(c), f.file());
            }
        }
    }

    @Test
    void multiDayRunsShowDaysAndShortRunsHours()
    {
        for (final Charts.Figure f : Charts.figures(market(72), null))
        {
            for (final XYChart c : f.charts())
            {
                assertEquals("market time (UTC)", c.getXAxisTitle(), f.file());
                assertEquals("EEE HH:mm", c.getStyler().getDatePattern(), f.file());
                assertEquals(0.0, c.getStyler().getXAxisMin(), f.file());
                assertEquals(3 * 24 * H, c.getStyler().getXAxisMax(), 1e-9, f.file());
                for (final XYSeries s : c.getSeriesCollection())
                {
                    assertEquals(Series.DataType.Date, s.getxAxisDataType(), f.file() + " " + s.getName());
                }
            }
        }
        assertEquals("EEE d MMM", Charts.figures(market(7 * 24), null).get(0).charts().get(0).getStyler().getDatePattern(),
            "a week shows dates");
        for (final Charts.Figure f : Charts.figures(market(24), null))
        {
            assertEquals("market hours since the open", f.charts().get(0).getXAxisTitle(), f.file());
        }
    }

    @Test
    void labelsAreWords()
    {
        assertEquals("market wall seconds", Labels.label("marketWallSeconds"));
        assertEquals("leased GPU hours", Labels.label("leasedGpuHours"));
        assertEquals("machine offline", Labels.label("MACHINE_OFFLINE"));
        assertEquals("insufficient funds", Labels.label("NOTICE_INSUFFICIENT_FUNDS"));
        assertEquals("none", Labels.counts(Map.of()));
        final Map<String, Object> latency = Json.object();
        latency.put("p50", 3);
        latency.put("p99", 4.5);
        assertEquals("p50 3; p99 4.5", Labels.value(latency));
        assertEquals("yes", Labels.value(true));
        assertEquals("11291066.4", Labels.value(1.12910664E7));
        assertEquals("169,345,256", Labels.value(169_345_256L));
    }

    private static int count(final String s, final String part)
    {
        int n = 0;
        for (int i = s.indexOf(part); i >= 0; i = s.indexOf(part, i + 1))
        {
            n++;
        }
        return n;
    }
}
