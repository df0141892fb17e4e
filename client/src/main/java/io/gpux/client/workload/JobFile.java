package io.gpux.client.workload;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A renter's job, as read from a job file by {@link JobFileParser}: what to buy and what to run on it.
 *
 * @param name        the job's name, 1 to 63 of {@code A-Z a-z 0-9 . _ -}, starting with a letter or digit.
 * @param resources   the GPUs to buy.
 * @param workload    what runs on them.
 * @param checkpoint  where the workload keeps its checkpoint between attempts, or null for none.
 * @param maxFailures how many attempts may fail before the job gives up, 0 to 100.
 */
public record JobFile(String name, Resources resources, WorkloadSpec workload, Checkpoint checkpoint, int maxFailures)
{
    /** Attempts that may fail when the file does not say. */
    public static final int DEFAULT_MAX_FAILURES = 3;

    /** Checks nothing is missing. */
    public JobFile
    {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(resources, "resources");
        Objects.requireNonNull(workload, "workload");
    }

    /**
     * The GPUs a job buys.
     *
     * @param market         the market symbol, e.g. {@code H200-141G}.
     * @param gpus           how many GPUs, 1 to 1024.
     * @param maxPriceTicks  the highest price per GPU-hour, in ticks of 0.0001.
     * @param gang           whether all GPUs must come from one machine.
     * @param minReliabilityNanos the lowest machine reliability accepted, in billionths (0 = any, 1e9 = 1).
     * @param region         the region the machines must be in, or null for any.
     */
    public record Resources(
        String market, int gpus, long maxPriceTicks, boolean gang, long minReliabilityNanos, String region)
    {
        /** Reliability 1, in the billionths {@link #minReliabilityNanos} counts. */
        public static final long RELIABILITY_ONE = 1_000_000_000L;
    }

    /**
     * The checkpoint directory a workload writes and reads back on its next attempt.
     *
     * @param dir    the directory, relative to the job file's directory unless absolute.
     * @param maxMb  the most it may hold, in MB.
     * @param shared true when the job file named it by absolute path: storage the workload reaches
     *               itself (shared storage), used as it is on every machine.
     */
    public record Checkpoint(Path dir, int maxMb, boolean shared)
    {
        /** A checkpoint the agent keeps on its machine under the job's name. */
        public Checkpoint(final Path dir, final int maxMb)
        {
            this(dir, maxMb, false);
        }
    }

    /**
     * What a launch names as its checkpoint: the absolute path when the job file gave one (storage the
     * workload reaches itself, passed through by an agent that allows it), else the job's name (a
     * directory the agent keeps on its machine); null when the job has no checkpoint.
     */
    public String checkpointOnWire()
    {
        if (checkpoint == null)
        {
            return null;
        }
        return checkpoint.shared() ? checkpoint.dir().toString() : name;
    }
}
