package io.gpux.client.workload;

/**
 * A job file that cannot be used. The message is one line for the renter, of the form
 * {@code job.yaml line 3: resources.gpus: must be 1 to 1024, got 0}.
 */
public final class JobFileException extends Exception
{
    private static final long serialVersionUID = 1L;

    private final int line;

    /**
     * @param fileName the file's name as the renter wrote it.
     * @param line     the line, from 1, or 0 when the problem has no line (the file cannot be read).
     * @param problem  what is wrong, starting with the field's path.
     */
    public JobFileException(final String fileName, final int line, final String problem)
    {
        super(line > 0 ? fileName + " line " + line + ": " + problem : fileName + ": " + problem);
        this.line = line;
    }

    /** The line the problem is on, from 1; 0 when there is none. */
    public int line()
    {
        return line;
    }
}
