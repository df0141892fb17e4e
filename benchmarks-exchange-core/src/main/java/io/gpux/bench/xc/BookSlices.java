package io.gpux.bench.xc;

import java.io.IOException;
import java.util.function.IntToLongFunction;

/**
 * exchange-core's order book as a plain function, for a harness that loads this module in a class loader of its own
 * and alternates it with gpux's book in one JVM ({@code io.gpux.bench.PairedBooks}): {@link #applyAsLong} replays
 * the next n flow commands of the endless stream (as {@link ExchangeCoreBookBenchmark} does, the same
 * {@link BookReplayer}); {@link #run} checks the work done so far (every command succeeded, the flow's trades each
 * pass). Only JDK interfaces cross the class-loader boundary.
 */
public final class BookSlices implements IntToLongFunction, Runnable
{
    private final BookReplayer replayer;

    private BookSlices(final BookReplayer replayer)
    {
        this.replayer = replayer;
    }

    /** Loads the flow, verifies three passes on a fresh book, and returns a book ready to replay it. */
    public static BookSlices of(final String flow, final String flowDir, final String impl) throws IOException
    {
        final OrderFlow f = OrderFlow.load(flow, flowDir);
        BookReplayer.verify(f, impl);
        return new BookSlices(new BookReplayer(f, impl));
    }

    @Override
    public long applyAsLong(final int flowCommands)
    {
        return replayer.run(flowCommands);
    }

    @Override
    public void run()
    {
        replayer.check();
    }
}
