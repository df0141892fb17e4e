package io.gpux.gateway;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.core.pipeline.ExchangePipeline;

import java.util.ArrayDeque;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The journaled commands of cancel-on-disconnect sessions opening and closing, published in the order
 * they came: while the input ring is full they wait, and are retried every 10 ms. Event loop only.
 */
final class SessionCommands
{
    private static final long RETRY_MS = 10;

    private final ExchangePipeline pipeline;
    private final ScheduledExecutorService eventLoop;
    private final BooleanSupplier stopping;
    /** Commands waiting for room in the input ring, oldest first. */
    private final ArrayDeque<Command> waiting = new ArrayDeque<>();
    private final Runnable drain = this::drain;

    /**
     * @param eventLoop runs the retries (the event loop that calls this).
     * @param stopping  true once the exchange closes: what was not journaled then is dropped.
     */
    SessionCommands(final ExchangePipeline pipeline, final ScheduledExecutorService eventLoop, final BooleanSupplier stopping)
    {
        this.pipeline = pipeline;
        this.eventLoop = eventLoop;
        this.stopping = stopping;
    }

    /** A session with cancel-on-disconnect logged in: journaled, so that a restart knows to cancel its orders. */
    void opened(final long accountId)
    {
        final Command c = new Command().reset(CommandType.COD_SESSION, 0);
        c.accountId = accountId;
        publish(c);
    }

    /**
     * A session with cancel-on-disconnect closed: every order of its account is cancelled (unless
     * {@code cancel} is false: a login refused before it went live), then the session ends.
     */
    void closed(final long accountId, final boolean cancel)
    {
        if (cancel)
        {
            final Command massCancel = new Command().reset(CommandType.MASS_CANCEL, 0);
            massCancel.accountId = accountId;
            publish(massCancel);
        }
        final Command closed = new Command().reset(CommandType.COD_SESSION, 0);
        closed.accountId = accountId;
        closed.sessionClosed = true;
        publish(closed);
    }

    private void publish(final Command c)
    {
        waiting.add(c);
        if (waiting.size() == 1)
        {
            drain();
        }
    }

    private void drain()
    {
        while (!waiting.isEmpty())
        {
            if (pipeline.tryPublish(waiting.peek()))
            {
                waiting.poll();
            }
            else if (stopping.getAsBoolean() || pipeline.failed())
            {
                // a stop: what was not journaled, the next start's RESTART makes up for
                waiting.clear();
                return;
            }
            else
            {
                eventLoop.schedule(drain, RETRY_MS, TimeUnit.MILLISECONDS);
                return;
            }
        }
    }
}
