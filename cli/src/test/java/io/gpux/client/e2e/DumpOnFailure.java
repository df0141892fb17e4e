package io.gpux.client.e2e;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Prints what was registered (a child process's output, an in-process exchange's log) when a test
 * fails, so that a CI failure shows the server's side too. Register it with {@code @RegisterExtension}.
 */
final class DumpOnFailure implements TestWatcher
{
    private record Source(String name, Supplier<String> text)
    {
    }

    private final List<Source> sources = new ArrayList<>();

    synchronized void register(final String name, final Supplier<String> text)
    {
        sources.add(new Source(name, text));
    }

    @Override
    public void testFailed(final ExtensionContext context, final Throwable cause)
    {
        dump(context);
    }

    @Override
    public void testAborted(final ExtensionContext context, final Throwable cause)
    {
        dump(context);
    }

    @Override
    public void testSuccessful(final ExtensionContext context)
    {
        clear();
    }

    @Override
    public void testDisabled(final ExtensionContext context, final Optional<String> reason)
    {
        clear();
    }

    private synchronized void clear()
    {
        sources.clear();
    }

    private synchronized void dump(final ExtensionContext context)
    {
        for (final Source source : sources)
        {
            String text;
            try
            {
                text = source.text().get();
            }
            catch (final RuntimeException ex)
            {
                text = "(unreadable: " + ex + ")";
            }
            System.err.println("===== " + context.getDisplayName() + " failed: " + source.name() + " =====");
            System.err.println(text);
            System.err.println("===== end of " + source.name() + " =====");
        }
        sources.clear();
    }
}
