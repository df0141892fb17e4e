package io.gpux.client.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Two-stage stop for a long-running command: the first stop request (SIGINT from Ctrl-C, SIGTERM, or
 * the command's own timer through {@link #request()}) runs the graceful action, every later one the
 * immediate action.
 *
 * <p>Signals are taken with {@code sun.misc.Signal} (module jdk.unsupported) rather than a shutdown
 * hook: once a hook runs, the JVM is already exiting and ignores a second Ctrl-C, so the owner could
 * neither wait nor change their mind. While installed, INT and TERM no longer end the JVM; {@link
 * #close()} puts the previous handlers back. Where the JVM refuses a handler (run with {@code -Xrs},
 * or the signal is taken), that signal keeps its default; a signal ignored from the start (SIGINT of a
 * command started in the background by a shell without job control) stays ignored.
 * {@link #installed()} says which signals were taken.
 */
final class StopSignals implements AutoCloseable
{
    private static final String[] SIGNALS = {"INT", "TERM"};

    private final Runnable graceful;
    private final Runnable immediate;
    private final AtomicInteger requests = new AtomicInteger();
    private final List<Signal> signals = new ArrayList<>();
    private final List<SignalHandler> previous = new ArrayList<>();

    /**
     * @param graceful  run on the first request (on the signal's thread or the caller's); must not block.
     * @param immediate run on each later request; must not block.
     */
    StopSignals(final Runnable graceful, final Runnable immediate)
    {
        this.graceful = graceful;
        this.immediate = immediate;
    }

    /** Takes SIGINT and SIGTERM; the ones the JVM refuses keep their default. */
    StopSignals install()
    {
        for (final String name : SIGNALS)
        {
            try
            {
                final Signal signal = new Signal(name);
                final SignalHandler before = Signal.handle(signal, s -> request());
                if (before == SignalHandler.SIG_IGN)
                {
                    // ignored when the JVM started: leave it so, as the JVM itself does
                    Signal.handle(signal, SignalHandler.SIG_IGN);
                    continue;
                }
                previous.add(before);
                signals.add(signal);
            }
            catch (final IllegalArgumentException refused)
            {
                // -Xrs, or the signal is used by the JVM: it keeps ending the JVM (shutdown hooks run)
            }
        }
        return this;
    }

    /** The signals taken, e.g. [INT, TERM]. */
    List<String> installed()
    {
        return signals.stream().map(Signal::getName).toList();
    }

    /** A stop request; returns how many there have been (1: the graceful action ran). */
    int request()
    {
        final int n = requests.incrementAndGet();
        if (n == 1)
        {
            graceful.run();
        }
        else
        {
            immediate.run();
        }
        return n;
    }

    /** How many stop requests there have been. */
    int requests()
    {
        return requests.get();
    }

    @Override
    public void close()
    {
        for (int i = 0; i < signals.size(); i++)
        {
            Signal.handle(signals.get(i), previous.get(i));
        }
        signals.clear();
        previous.clear();
    }
}
