package io.gpux.sim;

import picocli.CommandLine;

/**
 * The simulator's commands ({@code gpux demo}, {@code gpux sim}) say why they failed in one line, {@code NAME:
 * REASON} on standard error with exit status 1, never with a stack trace: a demo whose exchange did not come up
 * in time says so, and that is all its user needs.
 */
final class OneLineFailures
{
    private OneLineFailures()
    {
    }

    /** The command's command line, with its failures printed as one line under {@code name}. */
    static CommandLine commandLine(final Object command, final String name)
    {
        return new CommandLine(command).setExecutionExceptionHandler((ex, cmd, parsed) ->
        {
            cmd.getErr().println(name + ": " + reason(ex));
            cmd.getErr().flush();
            return 1;
        });
    }

    /** The first message along the causes, its first line; the exception's class if none has one. */
    static String reason(final Throwable failure)
    {
        for (Throwable t = failure; t != null; t = t.getCause())
        {
            final String message = t.getMessage();
            if (message != null && !message.isBlank())
            {
                final int newline = message.indexOf('\n');
                return newline < 0 ? message : message.substring(0, newline);
            }
        }
        return failure.getClass().getSimpleName();
    }
}
