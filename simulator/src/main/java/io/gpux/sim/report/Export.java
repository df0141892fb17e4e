package io.gpux.sim.report;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/**
 * The records behind the report's figures, as CSV: {@code jobs.csv} (one row a job, a market-maker's
 * batch demand included), {@code leases.csv} (one row a lease side: the owner's and the renter's) and
 * {@code machines.csv} (one row a machine, with its online, listed, broken and reclaimed intervals as
 * {@code from/to} pairs of market milliseconds separated by {@code ;}, an open end written -1). The
 * window is in {@code machines.csv}'s header comment and in report.json. Every figure of the report's
 * efficiency, utilization, VWAP, lost-work and notice-check sections can be recomputed from these
 * files (simulator/README.md says how).
 */
public final class Export
{
    public static final String[] JOB_HEADER = {"jobId", "renter", "market", "gpus", "gang", "value", "arrivalMs", "workMs",
        "firstLeaseMs", "endMs", "outcome", "doneGpuMs", "lostGpuMs", "deadGpuMs", "savedGpuMs", "restartGpuMs", "restartMs"};
    public static final String[] LEASE_HEADER = {"leaseId", "side", "market", "machineId", "gpus", "priceTicks", "startMs",
        "endMs", "noticeMs", "releaseMs", "noticeReason", "endReason", "jobId", "value", "usefulGpuMs", "lostGpuMs", "deadGpuMs",
        "savedGpuMs", "restartGpuMs"};
    public static final String[] MACHINE_HEADER = {"machineId", "name", "owner", "market", "gpus", "region", "cost", "online",
        "listed", "broken", "reclaimed"};

    private Export()
    {
    }

    private static CSVPrinter printer(final Path file, final String[] header) throws IOException
    {
        final Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        return new CSVPrinter(w, CSVFormat.DEFAULT.builder().setHeader(header).get());
    }

    public static void write(final Analysis a, final Path dir) throws IOException
    {
        try (CSVPrinter p = printer(dir.resolve("jobs.csv"), JOB_HEADER))
        {
            for (final JobRecord j : a.jobList)
            {
                p.printRecord(j.id, j.renter, j.market, j.gpus, j.gang, num(j.value), j.arrivalMs, j.workMs, j.firstLeaseMs,
                    j.endMs, j.outcome, j.doneGpuMs, j.lostGpuMs, j.deadGpuMs, j.savedGpuMs,
                    j.restartGpuMs, j.restartMs);
            }
        }
        try (CSVPrinter p = printer(dir.resolve("leases.csv"), LEASE_HEADER))
        {
            for (final LeaseRecord l : a.ownerLeaseList)
            {
                lease(p, l);
            }
            for (final LeaseRecord l : a.renterLeaseList)
            {
                lease(p, l);
            }
        }
        try (CSVPrinter p = printer(dir.resolve("machines.csv"), MACHINE_HEADER))
        {
            for (final MachineRecord m : a.machineList)
            {
                p.printRecord(m.machineId, m.name, m.owner, m.market, m.gpus, m.region, num(m.cost), intervals(m.online),
                    intervals(m.listed), intervals(m.failed), intervals(m.reclaimed));
            }
        }
    }

    private static void lease(final CSVPrinter p, final LeaseRecord l) throws IOException
    {
        p.printRecord(l.leaseId, l.renterSide ? "renter" : "owner", l.market, l.machineId, l.gpus, l.price, l.startMs, l.endMs,
            l.noticeMs, l.releaseMs, l.noticeReason == null ? "" : l.noticeReason, l.endReason == null ? "" : l.endReason,
            l.jobId, num(l.value), l.usefulGpuMs, l.lostGpuMs, l.deadGpuMs, l.savedGpuMs, l.restartGpuMs);
    }

    private static String num(final double v)
    {
        return String.format(Locale.ROOT, "%.6f", v);
    }

    /** {@code from-to;from-to}: an open interval's end is -1. */
    public static String intervals(final Intervals i)
    {
        final StringBuilder s = new StringBuilder();
        for (int k = 0; k < i.count(); k++)
        {
            s.append(k == 0 ? "" : ";").append(i.start(k)).append('/').append(i.end(k) == Long.MAX_VALUE ? -1 : i.end(k));
        }
        return s.toString();
    }
}
