package io.gpux.bench.suite;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code platform} section of a {@link BenchSuite} run: the machine's floor, measured first (HiccupMeter's
 * spinning threads, then a bare loopback echo at the round trip's rate). Runs on the suite's thread.
 */
final class PlatformSection extends Section
{
    PlatformSection(final SuiteRun run)
    {
        super(run);
    }

    /**
     * The machine's floor first, before anything else has run: two threads that only spin (every core busy, as
     * with a spinning exchange and a spinning bot on two cores) and what an event arriving at a random moment
     * waits for each (HiccupMeter).
     */
    void platform()
    {
        final Child c = measured("HiccupMeter", gpuxClasspath(), "io.gpux.bench.platform.HiccupMeter",
            List.of("--threads", "2", "--seconds", Integer.toString(profile.hiccupSeconds())));
        int found = 0;
        for (final JsonNode t : c.figures().path("threads"))
        {
            report.figures.add(Report.Figure.latency("platform", "random arrival's wait, spinning thread " +
                (t.path("thread").asInt() + 1) + " of 2", percentiles(t.path("randomArrivalWait")), String.format(
                "the thread did not run %.2f %% of the time; gaps a second: %.0f of 10 us or more, %.1f of 100 us or more, " +
                "%.2f of 1 ms or more. ", t.path("lostPercent").asDouble(), t.path("gaps10usPerSecond").asDouble(),
                t.path("gaps100usPerSecond").asDouble(), t.path("gaps1msPerSecond").asDouble()) +
                "What any spinning loop on this machine waits before it runs again, whatever its code; a round trip " +
                "crosses two such threads (the bot's and the exchange's)"));
            found++;
        }
        if (found != 2)
        {
            report.failures.add("HiccupMeter: exit " + c.exit() + ", " + found + " of 2 threads reported");
        }
        loopback();
    }

    /**
     * The round trip's floor: the round trip benchmark's open-loop load at its rate, answered by a bare echo over
     * loopback TCP between two spinning threads instead of by the exchange (LoopbackFloor).
     */
    private void loopback()
    {
        final Child c = measured("LoopbackFloor", gpuxClasspath(), "io.gpux.bench.platform.LoopbackFloor",
            List.of("--rate", Long.toString(profile.roundTripRate()), "--seconds", Integer.toString(profile.hiccupSeconds()),
                "--warmup", Integer.toString(profile.hiccupSeconds() / 5)));
        final JsonNode f = c.figures();
        if (c.exit() != 0 || f.path("fromDue").isMissingNode())
        {
            report.failures.add("LoopbackFloor: exit " + c.exit() + (f.isMissingNode() ? ", no results" : ""));
            return;
        }
        final List<String> calls = new ArrayList<>();
        for (final String side : new String[] {"load", "echo"})
        {
            calls.add(String.format("%s thread: a write %.2f us, a read %.2f us", side, f.path(side).path("writeUs").asDouble(),
                f.path(side).path("readUs").asDouble()));
        }
        report.figures.add(Report.Figure.latency("platform", String.format("loopback echo round trip, %,d messages/s " +
            "offered", profile.roundTripRate()), percentiles(f.path("fromDue")), "1 connection, 64 bytes each way, from " +
            "when each message was due; no exchange, no framework: two spinning threads, one write and one read a message " +
            "each side (" + String.join("; ", calls) + "). The gateway's round trip, measured the same way, cannot be faster"));
    }
}
