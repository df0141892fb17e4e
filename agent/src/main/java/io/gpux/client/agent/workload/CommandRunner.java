package io.gpux.client.agent.workload;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs a short command-line tool (docker, kill) to its end within a deadline; output bounded. */
final class CommandRunner
{
    private static final int MAX_OUTPUT_BYTES = 1 << 20;

    /** What the tool did. */
    record Result(int exitCode, String stdout, String stderr)
    {
        /** The first non-blank line of standard error, else of standard output, for a message. */
        String firstErrorLine()
        {
            for (final String text : new String[]{ stderr, stdout })
            {
                for (final String line : text.split("\n"))
                {
                    if (!line.isBlank())
                    {
                        return line.trim();
                    }
                }
            }
            return "exit status " + exitCode;
        }
    }

    private CommandRunner()
    {
    }

    static Result run(final List<String> command, final long timeoutMs) throws WorkloadException
    {
        final Process process;
        try
        {
            process = new ProcessBuilder(command).start();
            process.getOutputStream().close();
        }
        catch (final IOException ex)
        {
            throw new WorkloadException("cannot run " + command.get(0) + ": " + ex.getMessage());
        }
        final CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> drain(process.getInputStream()));
        final CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> drain(process.getErrorStream()));
        try
        {
            if (!process.waitFor(timeoutMs, TimeUnit.MILLISECONDS))
            {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                throw new WorkloadException(command.get(0) + " " + command.get(1) + " did not finish within "
                    + timeoutMs + " ms");
            }
            return new Result(process.exitValue(), out.get(timeoutMs, TimeUnit.MILLISECONDS),
                err.get(timeoutMs, TimeUnit.MILLISECONDS));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new WorkloadException("interrupted while running " + command.get(0));
        }
        catch (final Exception ex)
        {
            throw new WorkloadException("cannot read the output of " + command.get(0) + ": " + ex.getMessage());
        }
    }

    private static String drain(final InputStream in)
    {
        try (in)
        {
            final ByteArrayOutputStream kept = new ByteArrayOutputStream();
            final byte[] buffer = new byte[8192];
            for (int n; (n = in.read(buffer)) >= 0; )
            {
                kept.write(buffer, 0, Math.min(n, Math.max(0, MAX_OUTPUT_BYTES - kept.size())));
            }
            return kept.toString(StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
