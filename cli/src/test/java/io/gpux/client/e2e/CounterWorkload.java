package io.gpux.client.e2e;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The end-to-end tests' counting workload: a shell command that counts from its checkpoint to n, a
 * step each 0.1 s, keeping the count in {@code $GPUX_CHECKPOINT_DIR/count}. A lock file says which
 * attempt runs (one found at start is an overlap, recorded in {@code overlaps}); each start appends
 * "attempt pid lease CUDA_VISIBLE_DEVICES" to {@code attempts} (the pid leads the workload's process
 * group); on SIGTERM, handled from its first line, it drops the lock and exits 0, or, while a file
 * {@code linger} is in the checkpoint directory, keeps its lock and runs on until it is killed. A lock
 * whose process is gone or a zombie (killed at its lease's end, before its shell ran the handler or while
 * it lingered) is no overlap. While a file {@code hold} is in the checkpoint directory it does not take
 * its last step, so that a test decides when it may finish.
 */
final class CounterWorkload
{
    private CounterWorkload()
    {
    }

    /** The command line that counts to n. */
    static String script(final int n)
    {
        return String.join("; ",
            "ck=\"$GPUX_CHECKPOINT_DIR\"",
            "n=0",
            // the handler first: a notice may come the moment the workload runs, before it has taken the lock
            "trap 'if [ -e \"$ck/linger\" ]; then echo \"term at $n, lingering\"; while :; do sleep 0.1; done; fi; "
                + "rm -f \"$ck/lock\"; echo \"term at $n\"; exit 0' TERM",
            "echo \"start attempt=$GPUX_ATTEMPT lease=$GPUX_LEASE_ID\"",
            // a lock whose process still runs is an overlap; one left by a process killed before its trap ran (or while
            // it lingered), gone or a zombie not yet reaped, is not
            "if [ -e \"$ck/lock\" ]; then p=$(cut -d' ' -f2 \"$ck/lock\"); st=$(sed 's/.*) //' /proc/$p/stat 2>/dev/null | cut -c1); "
                + "if kill -0 \"$p\" 2>/dev/null && [ \"$st\" != Z ]; then "
                + "echo \"$GPUX_ATTEMPT found $(cat \"$ck/lock\")\" >> \"$ck/overlaps\"; fi; fi",
            "echo \"$GPUX_ATTEMPT $$\" > \"$ck/lock\"",
            "echo \"$GPUX_ATTEMPT $$ $GPUX_LEASE_ID $CUDA_VISIBLE_DEVICES\" >> \"$ck/attempts\"",
            "n=$(cat \"$ck/count\" 2>/dev/null || echo 0)",
            "while [ \"$n\" -lt " + n + " ]; do sleep 0.1; while [ $((n+1)) -ge " + n + " ] && [ -e \"$ck/hold\" ]; do sleep 0.1; done; "
                + "n=$((n+1)); echo $n > \"$ck/count.tmp\"; mv \"$ck/count.tmp\" \"$ck/count\"; done",
            "rm -f \"$ck/lock\"",
            "echo \"done $n\"");
    }

    /** A job file's text for the counter: one GPU of market at up to 2, checkpoint in ck (absolute). */
    static String jobFile(final String name, final String market, final Path ck, final int n)
    {
        return "name: " + name + "\n"
            + "resources: {market: " + market + ", gpus: 1, maxPrice: 2}\n"
            + "run: {runtime: process, command: '" + script(n).replace("'", "''") + "'}\n"
            + "checkpoint: {dir: " + ck + "}\n";
    }

    /** Whether an attempt runs: the lock names a process that is still alive. */
    static boolean running(final Path ck)
    {
        try
        {
            final long pid = Long.parseLong(Files.readString(ck.resolve("lock")).trim().split(" ")[1]);
            return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
        }
        catch (final Exception noLock)
        {
            return false;
        }
    }

    /** The count so far (0 before the first step). */
    static int count(final Path ck)
    {
        try
        {
            return Integer.parseInt(Files.readString(ck.resolve("count")).trim());
        }
        catch (final Exception ex)
        {
            return 0;
        }
    }
}
