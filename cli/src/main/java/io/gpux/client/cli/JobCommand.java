package io.gpux.client.cli;

import io.gpux.client.workload.JobFile;
import io.gpux.client.workload.JobFileException;
import io.gpux.client.workload.JobFileParser;
import io.gpux.client.workload.WorkloadSpec;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code gpux job}: the renter's job files (docs/workloads.md). */
@Command(name = "job", mixinStandardHelpOptions = true,
    description = "The renter's job file: what to buy and what to run on it (docs/workloads.md).",
    subcommands = JobCommand.CheckCommand.class)
public final class JobCommand extends CommandGroup
{
    /** {@code ./gpux job ...}. */
    public static void main(final String[] args)
    {
        GpuxCli.main("job", args);
    }

    /** {@code gpux job check FILE}: reads a job file as the exchange's launcher would, and says what it asks for. */
    @Command(name = "check", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Checks a job file and prints what it asks for; contacts no exchange.",
            "Exit status: 0 the file is good, 2 it is not (the line and field are printed)."})
    static final class CheckCommand implements Callable<Integer>
    {
        @Spec
        CommandSpec spec;

        @Parameters(paramLabel = "FILE", description = "the job file (YAML)")
        Path file;

        @Option(names = "--json", description = "one JSON object instead of text")
        boolean json;

        @Override
        public Integer call()
        {
            final PrintWriter out = spec.commandLine().getOut();
            final JobFile job;
            try
            {
                job = read(file);
            }
            catch (final CliException ex)
            {
                spec.commandLine().getErr().println(spec.qualifiedName() + ": " + ex.getMessage());
                return CliException.USAGE;
            }
            final JobFile.Resources r = job.resources();
            final WorkloadSpec w = job.workload();
            if (json)
            {
                final Json line = new Json().put("type", "job").put("name", job.name()).put("market", r.market())
                    .put("gpus", r.gpus()).put("max_price", Format.price(r.maxPriceTicks())).put("gang", r.gang())
                    .put("runtime", w.runtime().fileName())
                    .put("max_failures", job.maxFailures());
                if (w.image() != null)
                {
                    line.put("image", w.image());
                }
                if (w.command() != null)
                {
                    line.put("command", w.command());
                }
                if (job.checkpoint() != null)
                {
                    line.put("checkpoint_dir", job.checkpoint().dir().toString()).put("checkpoint_max_mb", job.checkpoint().maxMb());
                }
                out.println(line);
            }
            else
            {
                out.println(job.name() + ": " + r.gpus() + " GPUs of " + r.market() + " at up to " + Format.price(r.maxPriceTicks())
                    + (r.gang() ? ", on one machine" : "") + (r.region() == null ? "" : ", in " + r.region()));
                out.println("runs: " + w.runtime().fileName() + " "
                    + (w.image() == null ? "" : w.image() + (w.command() == null ? "" : " ")) + (w.command() == null ? "" : w.command())
                    + (w.args().isEmpty() ? "" : " " + String.join(" ", w.args())));
                out.println("checkpoint: " + (job.checkpoint() == null ? "none"
                    : job.checkpoint().dir() + " (up to " + job.checkpoint().maxMb() + " MB)")
                    + ", up to " + job.maxFailures() + " failed attempts");
            }
            out.flush();
            return 0;
        }
    }

    /** Reads a job file; a bad one is a usage error with the parser's one line. */
    static JobFile read(final Path file) throws CliException
    {
        try
        {
            return new JobFileParser().parse(file);
        }
        catch (final JobFileException ex)
        {
            throw CliException.usage(ex.getMessage());
        }
    }
}
