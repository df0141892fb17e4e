package io.gpux.client.cli;

import io.gpux.client.ClientListener;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.BookSnapshot;
import io.gpux.proto.v1.BookUpdate;
import io.gpux.proto.v1.LoginAccepted;
import io.gpux.proto.v1.ResendComplete;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.Trade;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Hands what the client's event loop receives to the command's own thread, in order, so that printing
 * never blocks the loop: the streaming commands ({@code watch}, {@code book --follow}) take from
 * {@link #next}.
 */
final class StreamListener implements ClientListener
{
    /** The connection ended; {@code reconnecting} says whether the client tries again. */
    record Disconnected(String reason, boolean reconnecting)
    {
    }

    /** A Response (for streams: the refusal of a subscription). */
    record Answer(long requestId, Response response)
    {
    }

    /** A login after a reconnect. */
    record Reconnected(LoginAccepted accepted)
    {
    }

    private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private final boolean accountEvents;
    private final String market;
    private boolean loggedInOnce;

    /**
     * @param accountEvents whether to pass account events on.
     * @param market        the market whose book and trades to pass on; null: none.
     */
    StreamListener(final boolean accountEvents, final String market)
    {
        this.accountEvents = accountEvents;
        this.market = market;
    }

    /** The next message, or null if none came within the timeout. */
    Object next(final long timeoutMs) throws InterruptedException
    {
        return queue.poll(timeoutMs, TimeUnit.MILLISECONDS);
    }

    /** The next message, waiting as long as it takes. */
    Object next() throws InterruptedException
    {
        return queue.take();
    }

    @Override
    public void onLoginAccepted(final LoginAccepted accepted)
    {
        if (loggedInOnce)
        {
            queue.add(new Reconnected(accepted));
        }
        loggedInOnce = true;
    }

    @Override
    public void onDisconnected(final String reason, final boolean reconnecting)
    {
        queue.add(new Disconnected(reason, reconnecting));
    }

    @Override
    public void onResendComplete(final ResendComplete complete)
    {
        if (accountEvents)
        {
            queue.add(complete);
        }
    }

    @Override
    public void onResponse(final long requestId, final Response response)
    {
        queue.add(new Answer(requestId, response));
    }

    @Override
    public void onEvent(final AccountEvent event)
    {
        if (accountEvents)
        {
            queue.add(event);
        }
    }

    @Override
    public void onBookSnapshot(final BookSnapshot snapshot)
    {
        if (snapshot.getMarket().equalsIgnoreCase(market))
        {
            queue.add(snapshot);
        }
    }

    @Override
    public void onBookUpdate(final BookUpdate update)
    {
        if (update.getMarket().equalsIgnoreCase(market))
        {
            queue.add(update);
        }
    }

    @Override
    public void onTrade(final Trade trade)
    {
        if (trade.getMarket().equalsIgnoreCase(market))
        {
            queue.add(trade);
        }
    }
}
