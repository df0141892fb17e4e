package io.gpux.sim.workload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The workload lane's job: a shell command that counts to a target, one step per {@code stepMs} of
 * wall time, and writes what it did to a ledger (one line per event, appended) that the lane reads
 * back to measure the work each preemption lost.
 *
 * <p>With a checkpoint ({@code GPUX_CHECKPOINT_DIR} set) it starts from the count saved there,
 * saves the count every {@code every} steps and on SIGTERM (the preemption notice), then exits;
 * without one each attempt starts from 0. The ledger's lines:
 * <pre>
 * start ATTEMPT FROM    an attempt began at count FROM
 * step ATTEMPT N        it reached count N
 * saved ATTEMPT N       it saved count N in its checkpoint
 * done ATTEMPT N        it reached the target and exits 0
 * </pre>
 */
public final class CountingJob
{
    private CountingJob()
    {
    }

    /**
     * The command line for {@code /bin/sh -c}: counts to {@code target}, a step each {@code stepMs},
     * saving every {@code every} steps; the ledger is the file named by the variable {@code LEDGER}.
     */
    public static String command(final int target, final long stepMs, final int every)
    {
        final String sleep = String.format(java.util.Locale.ROOT, "%d.%03d", stepMs / 1000, stepMs % 1000);
        return String.join("; ",
            "ck=\"$GPUX_CHECKPOINT_DIR\"",
            "n=0",
            "if [ -n \"$ck\" ] && [ -f \"$ck/count\" ]; then n=$(cat \"$ck/count\"); fi",
            "echo \"start $GPUX_ATTEMPT $n\" >> \"$LEDGER\"",
            "save() { if [ -n \"$ck\" ]; then echo $n > \"$ck/count.tmp\" && mv \"$ck/count.tmp\" \"$ck/count\" "
                + "&& echo \"saved $GPUX_ATTEMPT $n\" >> \"$LEDGER\"; fi; }",
            "trap 'save; exit 0' TERM",
            "while [ $n -lt " + target + " ]; do sleep " + sleep + "; n=$((n+1)); echo \"step $GPUX_ATTEMPT $n\" >> \"$LEDGER\"; "
                + "if [ $((n % " + every + ")) -eq 0 ]; then save; fi; done",
            "save",
            "echo \"done $GPUX_ATTEMPT $n\" >> \"$LEDGER\"");
    }

    /** One attempt as its ledger tells it: the count it started from, the highest it reached, whether it finished. */
    public record Attempt(int number, int from, int reached, boolean done)
    {
    }

    /** The attempts in a ledger by number; an absent ledger has none. */
    public static Map<Integer, Attempt> read(final Path ledger) throws IOException
    {
        final List<String> lines;
        try
        {
            lines = Files.readAllLines(ledger);
        }
        catch (final NoSuchFileException ex)
        {
            return Map.of();
        }
        return parse(lines);
    }

    /** The attempts in a ledger's lines; a line cut short by a kill is skipped. */
    public static Map<Integer, Attempt> parse(final List<String> lines)
    {
        final Map<Integer, Attempt> attempts = new TreeMap<>();
        for (final String line : lines)
        {
            final String[] f = line.trim().split(" ");
            if (f.length != 3 || !f[1].matches("\\d{1,9}") || !f[2].matches("\\d{1,9}"))
            {
                continue;
            }
            final int number = Integer.parseInt(f[1]);
            final int n = Integer.parseInt(f[2]);
            final Attempt a = attempts.get(number);
            switch (f[0])
            {
                case "start" -> attempts.put(number, new Attempt(number, n, n, false));
                case "step", "saved" ->
                {
                    if (a != null)
                    {
                        attempts.put(number, new Attempt(number, a.from(), Math.max(a.reached(), n), a.done()));
                    }
                }
                case "done" ->
                {
                    if (a != null)
                    {
                        attempts.put(number, new Attempt(number, a.from(), Math.max(a.reached(), n), true));
                    }
                }
                default ->
                {
                }
            }
        }
        return attempts;
    }
}
