package io.gpux.bench.scale;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ResendStallTest
{
    private static final String[] PHASE_FIELDS = {"layout", "phase", "probeCount", "probeErrors", "probeP50Us",
        "probeP99Us", "probeP999Us", "probeMaxUs", "batchMaxP50Us", "batchMaxUs", "secondsWithBatchOver1ms", "logins",
        "eventsResent", "maxResendsInProgress", "portfoliosAnswered", "portfolioCopyCount", "portfolioEncodeCount",
        "resendSliceCount"};
    private static final String[] WORK = {"portfolioCopy", "portfolioEncode", "portfolioWrite", "resendSlice", "resendWrite"};

    private static double number(final String json, final String field)
    {
        final Matcher m = Pattern.compile("\"" + field + "\":(-?[0-9.]+)").matcher(json);
        assertTrue(m.find(), field + " in " + json);
        return Double.parseDouble(m.group(1));
    }

    @Test
    void aSmallRunMeasuresEveryPhaseOfBothLayoutsAndWritesItsJson(@TempDir final Path dir) throws Exception
    {
        final Path json = dir.resolve("stall.json");
        final ResendStall stall = new ResendStall();
        final int rc = new CommandLine(stall).setCaseInsensitiveEnumValuesAllowed(true).execute("--accounts", "60",
            "--events", "3000", "--quiet", "3", "--quiet-events", "10", "--resenders", "2", "--fleet", "5",
            "--seconds", "1", "--warmup", "0", "--probe-rate", "100", "--query-rate", "200", "--threads", "both", "--json", json.toString());
        assertEquals(0, rc);

        final String line = Files.readString(json).trim();
        assertEquals(stall.result.json(), line);
        assertTrue(line.startsWith("{\"benchmark\":\"resend-stall\"") && line.endsWith("]}"), line);
        assertEquals(3000, number(line, "events"));
        assertTrue(number(line, "cores") >= 1 && number(line, "historySeconds") > 0, line);
        number(line, "loadAverage");

        // one object per layout and phase, each with every field, in order
        final Matcher objects = Pattern.compile("\\{\"layout\":[^}]*}").matcher(line);
        final List<String> phases = new ArrayList<>();
        while (objects.find())
        {
            phases.add(objects.group());
        }
        assertEquals(8, phases.size(), line);
        final String[] names = {"idle", "logins", "resends", "portfolios"};
        for (int i = 0; i < phases.size(); i++)
        {
            final String p = phases.get(i);
            for (final String field : PHASE_FIELDS)
            {
                assertTrue(p.contains("\"" + field + "\":"), field + " in " + p);
            }
            assertTrue(p.contains("\"layout\":\"" + (i < 4 ? "SHARED" : "DEDICATED") + "\""), p);
            assertTrue(p.contains("\"phase\":\"" + names[i % 4] + "\""), p);
            // the probe's bids all filled, none refused; its quantiles in order
            assertEquals(0, number(p, "probeErrors"), p);
            assertTrue(number(p, "probeCount") > 50 && number(p, "probeCount") <= 100, p);
            assertTrue(number(p, "probeP50Us") > 0 && number(p, "probeP50Us") <= number(p, "probeP99Us") &&
                number(p, "probeP99Us") <= number(p, "probeP999Us") && number(p, "probeP999Us") <= number(p, "probeMaxUs"), p);
            // the metrics are read once a second: a 1 s phase has one or two readings
            assertTrue(number(p, "batchMaxUs") >= number(p, "batchMaxP50Us") && number(p, "secondsWithBatchOver1ms") <= 2, p);
            // each unit of the exchange's own work timed by the wall clock and the thread's CPU, the CPU within the wall
            for (final String w : WORK)
            {
                for (final String clock : new String[] {"Wall", "Cpu"})
                {
                    assertTrue(number(p, w + clock + "P50Us") <= number(p, w + clock + "P99Us") &&
                        number(p, w + clock + "P99Us") <= number(p, w + clock + "P999Us") &&
                        number(p, w + clock + "P999Us") <= number(p, w + clock + "MaxUs"), w + clock + " in " + p);
                }
                assertTrue(number(p, w + "CpuMaxUs") <= number(p, w + "WallMaxUs"), w + " in " + p);
            }
        }
        for (int layout = 0; layout < 2; layout++)
        {
            final String idle = phases.get(layout * 4);
            final String logins = phases.get(layout * 4 + 1);
            final String resends = phases.get(layout * 4 + 2);
            final String portfolios = phases.get(layout * 4 + 3);
            assertEquals(0, number(idle, "logins") + number(idle, "eventsResent") + number(idle, "portfoliosAnswered"), idle);
            assertTrue(number(logins, "logins") > 0 && number(logins, "eventsResent") == 0, logins);
            // each resend brings back at least a quiet account's 10 deposits
            assertTrue(number(resends, "logins") > 0 && number(resends, "eventsResent") >= 10 * number(resends, "logins"),
                resends);
            assertTrue(number(resends, "resendSliceCount") > 0 && number(resends, "resendSliceCpuMaxUs") > 0, resends);
            // the reader's rounds are written to their sessions on the egress
            assertTrue(number(resends, "resendWriteCount") > 0, resends);
            assertTrue(number(portfolios, "portfoliosAnswered") > 0 && number(portfolios, "logins") == 0, portfolios);
            // every portfolio answered was copied, encoded and written, each timed once
            assertTrue(number(portfolios, "portfolioCopyCount") >= number(portfolios, "portfoliosAnswered") &&
                number(portfolios, "portfolioEncodeCount") >= number(portfolios, "portfoliosAnswered") &&
                number(portfolios, "portfolioWriteCount") >= number(portfolios, "portfoliosAnswered"), portfolios);
            assertEquals(0, number(idle, "portfolioCopyCount") + number(idle, "resendSliceCount"), idle);
        }
        assertEquals(8, stall.result.phases().size());
    }
}
