package io.gpux.bench.scale;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ScaleDayTest
{
    private static ScaleDay.Result day(final Path dir, final int portfolioQueries, final String... more)
    {
        final ScaleDay day = new ScaleDay();
        final String[] args = {"--machines", "100", "--renters", "20", "--leases", "500",
            "--compression", "2880", "--portfolio-queries", String.valueOf(portfolioQueries), "--dir", dir.toString()};
        final String[] all = java.util.Arrays.copyOf(args, args.length + more.length);
        System.arraycopy(more, 0, all, args.length, more.length);
        final int rc = new CommandLine(day).execute(all);
        assertEquals(0, rc);
        return day.result;
    }

    @Test
    void aTinyDayRunsThroughThePipelineAndRestartsFromItsSnapshot(@TempDir final Path a, @TempDir final Path b)
    {
        final ScaleDay.Result r = day(a, 0);
        // 30 s of market time: every machine heartbeats 6 times, plus its registration heartbeat
        assertTrue(r.commands() > 100 * 7 + 500, "commands " + r.commands());
        assertTrue(r.leasesStarted() > 0 && r.leasesEnded() > 0, r.toString());
        assertTrue(r.reclaimRequests() > 0, r.toString());
        assertTrue(r.snapshotBytes() > 0, r.toString());
        // the tiny day is shorter than the snapshot interval: the first restart replays all of it
        assertEquals(r.commands(), r.replayedAfterPeriodicSnapshot());
        assertEquals(0, r.replayedOnRestart(), "the snapshot taken at the end of the day is the second restart's");
        assertTrue(r.batchNs().getTotalCount() > 0 && r.heapBytes() > 0, r.toString());
        // every batch timed twice: its CPU time is part of its wall time
        assertEquals(r.batchNs().getTotalCount(), r.batchCpuNs().getTotalCount());
        assertTrue(r.batchCpuNs().getMaxValue() > 0 && r.batchCpuNs().getMaxValue() <= r.batchNs().getMaxValue(), r.toString());
        assertTrue(r.snapshotCpuNs() > 0 && r.snapshotCpuNs() <= r.snapshotNs(), r.toString());
        assertTrue(r.tickCpuNs() > 0 && r.tickCpuNs() <= r.tickNs(), r.toString());
        assertTrue(r.batchCpuMaxAt() >= 1 && r.batchCpuMaxAt() <= r.batchCpuNs().getTotalCount(), r.toString());

        assertEquals(0, r.queryNs().getTotalCount());

        // seeded: the same day again makes the same market, with portfolio queries on the engine thread or without
        final ScaleDay.Result again = day(b, 3);
        // 30 s of market time, 3 queries a second
        assertEquals(90, again.queryNs().getTotalCount());
        assertEquals(90, again.queryCpuNs().getTotalCount());
        assertTrue(again.queryCpuMaxAt() >= 1 && again.queryCpuMaxAt() <= 90, again.toString());
        assertTrue(again.queryCpuNs().getMaxValue() > 0 && again.queryCpuNs().getMaxValue() <= again.queryNs().getMaxValue(),
            again.toString());
        assertEquals(r.commands(), again.commands());
        assertEquals(r.leasesStarted(), again.leasesStarted());
        assertEquals(r.leasesEnded(), again.leasesEnded());
        assertEquals(r.preemptions(), again.preemptions());
        assertEquals(r.snapshotBytes(), again.snapshotBytes());
        assertEquals(r.liveLeases(), again.liveLeases());
        assertEquals(r.leasesStarted() - r.leasesEnded(), r.liveLeases(), r.toString());
    }

    @Test
    void shorterLeasesEndMoreOfThemInTheSameDay(@TempDir final Path a, @TempDir final Path b)
    {
        // the tiny day is 30 s of market time: by default a lease asks for 5 s plus up to 15 s
        final ScaleDay.Result plain = day(a, 0);
        final ScaleDay.Result shorter = day(b, 0, "--max-lease-seconds", "2");
        assertEquals(2, new CommandLine(new ScaleDay()).execute("--max-lease-seconds", "-1"), "a negative maximum is refused");
        assertTrue(shorter.leasesEnded() > plain.leasesEnded(), plain + " / " + shorter);
        assertEquals(shorter.leasesStarted() - shorter.leasesEnded(), shorter.liveLeases(), shorter.toString());
    }
}
