package io.gpux.tools;

import io.gpux.core.pipeline.Recovery;

import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import picocli.CommandLine;

/**
 * The command-line tools' failures in words: one line that says what is wrong (a file, a directory, a
 * journal), for the user who ran the command, and a stack trace only when asked for.
 */
public final class Failures
{
    private Failures()
    {
    }

    /** What went wrong, in one line, without the exception's class unless nothing better is known. */
    public static String reason(final Throwable failure)
    {
        Throwable ex = failure;
        while ((ex instanceof UncheckedIOException || ex instanceof CommandLine.ExecutionException) && ex.getCause() != null)
        {
            ex = ex.getCause();
        }
        if (ex instanceof NoSuchFileException f)
        {
            return f.getFile() + " does not exist";
        }
        if (ex instanceof AccessDeniedException f)
        {
            return f.getFile() + ": permission denied";
        }
        if (ex instanceof NotDirectoryException f)
        {
            return f.getFile() + " is not a directory";
        }
        if (ex instanceof FileAlreadyExistsException f)
        {
            return f.getFile() + (f.getReason() != null ? ": " + f.getReason() : " already exists");
        }
        if (ex instanceof FileSystemException f)
        {
            return f.getFile() + ": " + (f.getReason() != null ? f.getReason() : "cannot be used");
        }
        if (ex instanceof Recovery.RecoveryException || ex instanceof java.io.IOException)
        {
            return oneLine(ex.getMessage() != null ? ex.getMessage() : ex.getClass().getSimpleName());
        }
        return "internal error: " + oneLine(String.valueOf(ex)) + " (--verbose prints the trace)";
    }

    /**
     * Prints {@code NAME: REASON} on one line, then the trace when verbose; for a picocli execution
     * exception handler.
     */
    public static void print(final PrintWriter err, final String name, final String reason, final Throwable ex,
        final boolean verbose)
    {
        err.println(name + ": " + reason);
        if (verbose)
        {
            ex.printStackTrace(err);
        }
        err.flush();
    }

    private static String oneLine(final String text)
    {
        final int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(0, newline);
    }
}
