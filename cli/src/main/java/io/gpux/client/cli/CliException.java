package io.gpux.client.cli;

/**
 * Ends a command with a message for the user (no stack trace) and an exit status:
 * {@link #USAGE} for bad input, {@link #CONNECTION} when the exchange cannot be reached or refuses the
 * login, {@link #REJECTED} when the exchange refused what was asked.
 */
final class CliException extends Exception
{
    /** The exchange refused the command or query. */
    static final int REJECTED = 1;
    /** Bad usage: an option, a value, missing credentials. */
    static final int USAGE = 2;
    /** The gateway cannot be reached, refused the login, or did not answer. */
    static final int CONNECTION = 3;

    /** An IOC or FOK bid was accepted but filled nothing. */
    static final int NOTHING_FILLED = 4;

    /** {@code gpux agent}: nvidia-smi is missing, fails, or lists no GPU. */
    static final int NO_GPU = 5;

    private final int status;

    CliException(final int status, final String message)
    {
        super(message, null, false, false);
        this.status = status;
    }

    static CliException usage(final String message)
    {
        return new CliException(USAGE, message);
    }

    static CliException connection(final String message)
    {
        return new CliException(CONNECTION, message);
    }

    int status()
    {
        return status;
    }
}
