package io.gpux.sim.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** The lane's counting job run by a real {@code /bin/sh}, and its ledger read back. */
@DisabledOnOs(OS.WINDOWS)
class CountingJobTest
{
    @TempDir
    Path dir;

    @Test
    void aCheckpointedJobGoesOnFromItsCheckpointAndOneWithoutStartsAgain() throws Exception
    {
        final Path ck = Files.createDirectories(dir.resolve("ck"));
        final Path ledger = dir.resolve("ledger");
        assertEquals(0, run(1, ck, ledger, 4).waitFor(), "counts to 4 and exits 0");
        assertEquals("4", Files.readString(ck.resolve("count")).trim());
        Files.writeString(ck.resolve("count"), "2\n");
        assertEquals(0, run(2, ck, ledger, 4).waitFor());

        final Map<Integer, CountingJob.Attempt> attempts = CountingJob.read(ledger);
        assertEquals(new CountingJob.Attempt(1, 0, 4, true), attempts.get(1));
        assertEquals(new CountingJob.Attempt(2, 2, 4, true), attempts.get(2), "the second attempt starts from the checkpoint");

        final Path noCk = dir.resolve("ledger-nock");
        assertEquals(0, run(1, null, noCk, 3).waitFor());
        assertEquals(0, run(2, null, noCk, 3).waitFor());
        assertEquals(new CountingJob.Attempt(2, 0, 3, true), CountingJob.read(noCk).get(2), "without a checkpoint from 0");
    }

    @Test
    void onSigtermItSavesItsCountAndExits() throws Exception
    {
        final Path ck = Files.createDirectories(dir.resolve("ck"));
        final Path ledger = dir.resolve("ledger");
        final Process p = run(1, ck, ledger, 100_000);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (CountingJob.read(ledger).getOrDefault(1, new CountingJob.Attempt(1, 0, 0, false)).reached() < 3
            && System.nanoTime() < deadline)
        {
            Thread.sleep(10);
        }
        p.destroy(); // SIGTERM
        assertTrue(p.waitFor(20, TimeUnit.SECONDS), "it exits on SIGTERM");
        final CountingJob.Attempt a = CountingJob.read(ledger).get(1);
        assertTrue(a.reached() >= 3 && !a.done(), a.toString());
        assertEquals(Integer.toString(a.reached()), Files.readString(ck.resolve("count")).trim(), "saved where it was");
        assertTrue(Files.readAllLines(ledger).contains("saved 1 " + a.reached()), "the save is in the ledger");
    }

    @Test
    void aLineCutShortByAKillIsSkipped()
    {
        final Map<Integer, CountingJob.Attempt> attempts = CountingJob.parse(List.of("start 1 0", "step 1 1", "step 1 2",
            "saved 1 2", "step 1", "start 2 2", "step 2 3", "ste"));
        assertEquals(new CountingJob.Attempt(1, 0, 2, false), attempts.get(1));
        assertEquals(new CountingJob.Attempt(2, 2, 3, false), attempts.get(2));
    }

    private Process run(final int attempt, final Path ck, final Path ledger, final int target) throws Exception
    {
        final ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c", CountingJob.command(target, 10, 2))
            .redirectErrorStream(true).redirectOutput(dir.resolve("out-" + attempt).toFile());
        pb.environment().put("GPUX_ATTEMPT", Integer.toString(attempt));
        pb.environment().put("GPUX_CHECKPOINT_DIR", ck == null ? "" : ck.toString());
        pb.environment().put("LEDGER", ledger.toString());
        return pb.start();
    }
}
