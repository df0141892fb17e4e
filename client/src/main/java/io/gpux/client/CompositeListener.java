package io.gpux.client;

import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.BookSnapshot;
import io.gpux.proto.v1.BookUpdate;
import io.gpux.proto.v1.History;
import io.gpux.proto.v1.LoginAccepted;
import io.gpux.proto.v1.Markets;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.QuoteResult;
import io.gpux.proto.v1.ResendComplete;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.SessionError;
import io.gpux.proto.v1.Trade;
import io.gpux.proto.v1.WorkloadLaunch;
import io.gpux.proto.v1.WorkloadLog;
import io.gpux.proto.v1.WorkloadLogRequest;
import io.gpux.proto.v1.WorkloadStatus;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * Forwards every callback to several listeners, in the order they were added; this is how a
 * {@link GpuxClient} feeds its application listener, {@link SpotRequest}s and any other component.
 *
 * <p>Listeners may be added and removed from any thread, including from inside a callback (the
 * change applies from the next callback on); dispatch iterates a copy-on-write array, so it does not
 * allocate.
 *
 * <p>Account events: {@link #onEvent} forwards each event to each listener as the full
 * {@link ClientListener#dispatchEvent} (its {@code onEvent}, then its typed callback), so each
 * listener sees one event completely before the next listener does. The typed event methods of a
 * composite therefore do nothing: hand it the event through {@code onEvent} or {@code dispatchEvent}.
 */
public final class CompositeListener implements ClientListener
{
    private static final ClientListener[] NONE = new ClientListener[0];

    private final Consumer<Throwable> errorHandler;
    private volatile ClientListener[] listeners = NONE;

    /** A composite that lets what a listener throws propagate (the remaining listeners miss the call). */
    public CompositeListener()
    {
        this(null);
    }

    /**
     * A composite that hands what a listener throws to the error handler and carries on with the
     * next listener, so one failing component cannot starve the others (nor break the client).
     */
    public CompositeListener(final Consumer<Throwable> errorHandler)
    {
        this.errorHandler = errorHandler;
    }

    /** Adds a listener at the end; adding one that is already there adds it again. */
    public synchronized CompositeListener add(final ClientListener listener)
    {
        if (listener == null)
        {
            throw new NullPointerException("listener");
        }
        final ClientListener[] grown = Arrays.copyOf(listeners, listeners.length + 1);
        grown[grown.length - 1] = listener;
        listeners = grown;
        return this;
    }

    /** Removes the first occurrence of the listener; true if it was there. */
    public synchronized boolean remove(final ClientListener listener)
    {
        final ClientListener[] current = listeners;
        for (int i = 0; i < current.length; i++)
        {
            if (current[i] == listener)
            {
                final ClientListener[] shrunk = new ClientListener[current.length - 1];
                System.arraycopy(current, 0, shrunk, 0, i);
                System.arraycopy(current, i + 1, shrunk, i, current.length - i - 1);
                listeners = shrunk;
                return true;
            }
        }
        return false;
    }

    @Override
    public void onWorkloadLaunch(final WorkloadLaunch launch)
    {
        forEach(l -> l.onWorkloadLaunch(launch));
    }

    @Override
    public void onWorkloadStatus(final WorkloadStatus status)
    {
        forEach(l -> l.onWorkloadStatus(status));
    }

    @Override
    public void onWorkloadLogRequest(final long requestId, final WorkloadLogRequest request)
    {
        forEach(l -> l.onWorkloadLogRequest(requestId, request));
    }

    @Override
    public void onWorkloadLog(final long requestId, final WorkloadLog log)
    {
        forEach(l -> l.onWorkloadLog(requestId, log));
    }

    /** For the rare callbacks, where a lambda per call costs nothing that matters. */
    private void forEach(final Consumer<ClientListener> call)
    {
        for (final ClientListener l : listeners)
        {
            try
            {
                call.accept(l);
            }
            catch (final RuntimeException ex)
            {
                failed(ex);
            }
        }
    }

    private void failed(final RuntimeException ex)
    {
        if (errorHandler == null)
        {
            throw ex;
        }
        errorHandler.accept(ex);
    }

    public int size()
    {
        return listeners.length;
    }

    @Override
    public void onConnected()
    {
        for (final ClientListener l : listeners)
        {
            try
            {
                l.onConnected();
            }
            catch (final RuntimeException ex)
            {
                failed(ex);
            }
        }
    }

    @Override
    public void onLoginAccepted(final LoginAccepted accepted)
    {
        for (final ClientListener l : listeners)
        {
            try
            {
                l.onLoginAccepted(accepted);
            }
            catch (final RuntimeException ex)
            {
                failed(ex);
            }
        }
    }

    @Override
    public void onResendComplete(final ResendComplete complete)
    {
        for (final ClientListener l : listeners)
        {
            try
            {
                l.onResendComplete(complete);
            }
            catch (final RuntimeException ex)
            {
                failed(ex);
            }
        }
    }

    @Override
    public void onDisconnected(final String reason, final boolean reconnecting)
    {
        for (final ClientListener l : listeners)
        {
            try
            {
                l.onDisconnected(reason, reconnecting);
            }
            catch (final RuntimeException ex)
            {
                failed(ex);
            }
        }
    }

    @Override
    public void onSessionError(final SessionError error)
    {
        for (final ClientListener l : listeners)
        {
            try
            {
                l.onSessionError(error);
            }
            catch (final RuntimeException ex)
            {
                failed(ex);
            }
        }
    }

    @Override
    public void onResponse(final long requestId, final Response response)
    {
        for (final ClientListener l : listeners)
        {
            try
            {
                l.onResponse(requestId, response);
            }
            catch (final RuntimeException ex)
            {
                failed(ex);
            }
        }
    }

    @Override
    public void onQuote(final long requestId, final QuoteResult quote)
    {
        for (final ClientListener l : listeners)
        {
            try
            {
                l.onQuote(requestId, quote);
            }
            catch (final RuntimeException ex)
            {
                failed(ex);
            }
        }
    }

    @Override
    public void onPortfolio(final long requestId, final Portfolio portfolio)
    {
        for (final ClientListener l : listeners)
        {
            try
            {
                l.onPortfolio(requestId, portfolio);
            }
            catch (final RuntimeException ex)
            {
                failed(ex);
            }
        }
    }

    @Override
    public void onHistory(final long requestId, final History history)
    {
        for (final ClientListener l : listeners)
        {
            try
            {
                l.onHistory(requestId, history);
            }
            catch (final RuntimeException ex)
            {
                failed(ex);
            }
        }
    }

    @Override
    public void onMarkets(final long requestId, final Markets markets)
    {
        for (final ClientListener l : listeners)
        {
            try
            {
                l.onMarkets(requestId, markets);
            }
            catch (final RuntimeException ex)
            {
                failed(ex);
            }
        }
    }

    @Override
    public void onBookSnapshot(final BookSnapshot snapshot)
    {
        for (final ClientListener l : listeners)
        {
            try
            {
                l.onBookSnapshot(snapshot);
            }
            catch (final RuntimeException ex)
            {
                failed(ex);
            }
        }
    }

    @Override
    public void onBookUpdate(final BookUpdate update)
    {
        for (final ClientListener l : listeners)
        {
            try
            {
                l.onBookUpdate(update);
            }
            catch (final RuntimeException ex)
            {
                failed(ex);
            }
        }
    }

    @Override
    public void onTrade(final Trade trade)
    {
        for (final ClientListener l : listeners)
        {
            try
            {
                l.onTrade(trade);
            }
            catch (final RuntimeException ex)
            {
                failed(ex);
            }
        }
    }

    @Override
    public void onEvent(final AccountEvent event)
    {
        for (final ClientListener l : listeners)
        {
            try
            {
                ClientListener.dispatchEvent(l, event);
            }
            catch (final RuntimeException ex)
            {
                failed(ex);
            }
        }
    }
}
