package io.gpux.client.agent;

/**
 * nvidia-smi could not be run or printed something that cannot be trusted: the tool is missing,
 * exited with a failure status or past its timeout, or its CSV output is malformed.
 * <p>
 * Checked on purpose: the owner agent must keep running (and tell the exchange the machine is
 * unhealthy) when a GPU query fails, so every caller has to decide what a failed query means.
 */
public final class NvidiaSmiException extends Exception
{
    private final int lineNumber;

    /**
     * A problem with the tool itself, not with one line of its output.
     *
     * @param message what went wrong.
     */
    public NvidiaSmiException(final String message)
    {
        this(message, null);
    }

    /**
     * A problem with the tool itself, caused by another exception.
     *
     * @param message what went wrong.
     * @param cause   the underlying failure, or null.
     */
    public NvidiaSmiException(final String message, final Throwable cause)
    {
        super(message, cause);
        this.lineNumber = 0;
    }

    /**
     * A problem with one line of the tool's output; the message reads {@code line N: problem}.
     *
     * @param lineNumber the 1-based line of the output.
     * @param problem    what is wrong with the line.
     */
    public NvidiaSmiException(final int lineNumber, final String problem)
    {
        super("line " + lineNumber + ": " + problem);
        this.lineNumber = lineNumber;
    }

    /**
     * The 1-based line of the output the problem is on.
     *
     * @return the line number, or 0 when the problem is not about a single line.
     */
    public int lineNumber()
    {
        return lineNumber;
    }
}
