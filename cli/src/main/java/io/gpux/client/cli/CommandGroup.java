package io.gpux.client.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** A command that only groups subcommands: run alone, it prints its usage and exits with status 2. */
abstract class CommandGroup implements Callable<Integer>
{
    @Spec
    CommandSpec spec;

    @Override
    public Integer call()
    {
        spec.commandLine().getErr().println(spec.qualifiedName() + ": which one? (a subcommand is missing)");
        spec.commandLine().usage(spec.commandLine().getErr());
        return CliException.USAGE;
    }
}
