package io.gpux.client.agent;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a command-line tool to completion within a deadline and returns its standard output.
 * <p>
 * Both output pipes are drained by their own daemon thread while the caller waits for the exit:
 * a tool that fills a pipe nobody reads blocks forever, and a read on the caller's thread could
 * not be abandoned when the deadline passes. On timeout the tool and everything it started are
 * killed, so no grandchild keeps the pipes open. Output is bounded: a tool printing without end
 * cannot exhaust the agent's memory.
 */
final class ProcessRunner
{
    /** Kept of standard error, for the message when the tool fails. */
    private static final int MAX_ERROR_BYTES = 4 * 1024;
    /** Time for the drainers to see the end of the pipes once the tool has exited. */
    private static final long DRAIN_GRACE_NS = TimeUnit.SECONDS.toNanos(1);

    private ProcessRunner()
    {
    }

    /**
     * Runs the command and returns its standard output.
     *
     * @param command        the executable and its arguments.
     * @param timeoutNs      how long the tool may run.
     * @param maxOutputBytes the most standard output accepted.
     * @return the standard output, decoded as UTF-8.
     * @throws NvidiaSmiException if the tool cannot be started, times out, exits with a non-zero
     *                            status, prints too much, or the wait is interrupted.
     */
    static String run(final List<String> command, final long timeoutNs, final int maxOutputBytes)
        throws NvidiaSmiException
    {
        final String tool = command.get(0);
        final long deadlineNs = System.nanoTime() + timeoutNs;
        final Process process;
        try
        {
            process = new ProcessBuilder(command).start();
            process.getOutputStream().close();
        }
        catch (final IOException ex)
        {
            throw new NvidiaSmiException("cannot run " + tool + " (is the NVIDIA driver installed and the " +
                "executable path right?): " + ex.getMessage(), ex);
        }

        final Drainer stdout = Drainer.start(process.getInputStream(), maxOutputBytes, tool + "-stdout");
        final Drainer stderr = Drainer.start(process.getErrorStream(), MAX_ERROR_BYTES, tool + "-stderr");
        try
        {
            if (!process.waitFor(timeoutNs, TimeUnit.NANOSECONDS))
            {
                kill(process);
                throw new NvidiaSmiException(tool + " did not finish within " +
                    TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms and was killed");
            }
            final long drainNs = Math.max(deadlineNs - System.nanoTime(), DRAIN_GRACE_NS);
            if (!stdout.await(drainNs) || !stderr.await(DRAIN_GRACE_NS))
            {
                kill(process);
                throw new NvidiaSmiException(tool + " exited but a process it started kept its output open");
            }
        }
        catch (final InterruptedException ex)
        {
            kill(process);
            Thread.currentThread().interrupt();
            throw new NvidiaSmiException("interrupted while waiting for " + tool, ex);
        }

        final int status = process.exitValue();
        if (status != 0)
        {
            final String detail = firstNonBlankLine(stderr.text(), stdout.text());
            throw new NvidiaSmiException(tool + " exited with status " + status + (detail.isEmpty() ? "" : ": " + detail));
        }
        if (stdout.failure() != null)
        {
            throw new NvidiaSmiException("reading the output of " + tool + " failed", stdout.failure());
        }
        if (stdout.truncated())
        {
            throw new NvidiaSmiException(tool + " printed more than " + maxOutputBytes + " bytes");
        }
        return stdout.text();
    }

    private static void kill(final Process process)
    {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    /** nvidia-smi reports most failures on standard output, so fall back to it. */
    private static String firstNonBlankLine(final String... texts)
    {
        for (final String text : texts)
        {
            for (final String line : text.split("\r?\n"))
            {
                if (!line.isBlank())
                {
                    return line.trim();
                }
            }
        }
        return "";
    }

    /** Reads a stream to its end, keeping at most a bounded prefix. */
    private static final class Drainer implements Runnable
    {
        private final InputStream in;
        private final int limit;
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        private final Thread thread;
        private boolean truncated;
        private IOException failure;

        private Drainer(final InputStream in, final int limit, final String name)
        {
            this.in = in;
            this.limit = limit;
            this.thread = new Thread(this, name);
            this.thread.setDaemon(true);
        }

        static Drainer start(final InputStream in, final int limit, final String name)
        {
            final Drainer drainer = new Drainer(in, limit, name);
            drainer.thread.start();
            return drainer;
        }

        @Override
        public void run()
        {
            final byte[] buffer = new byte[8192];
            try (InputStream input = in)
            {
                int read;
                while ((read = input.read(buffer)) >= 0)
                {
                    // Keep reading past the limit: a tool blocked on a full pipe would never exit.
                    final int keep = Math.min(read, limit - kept.size());
                    kept.write(buffer, 0, keep);
                    truncated |= keep < read;
                }
            }
            catch (final IOException ex)
            {
                failure = ex;
            }
        }

        /** Waits for the end of the stream; the fields are safe to read once this returns true. */
        boolean await(final long timeoutNs) throws InterruptedException
        {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNs)));
            return !thread.isAlive();
        }

        boolean truncated()
        {
            return truncated;
        }

        IOException failure()
        {
            return failure;
        }

        String text()
        {
            return kept.toString(StandardCharsets.UTF_8);
        }
    }
}
