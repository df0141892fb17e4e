package io.gpux.client;

import com.google.protobuf.Message;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Response;
import io.netty.channel.EventLoop;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The outbound side of one {@link GpuxClient}, on any thread: checks a request against the client's
 * state and limits, gives it its request id, hands it to the {@link ClientConductor} on the event loop
 * (at once when called there), and for a blocking caller waits for its answer.
 */
final class ClientRequests
{
    private final ClientContext ctx;
    private final EventLoop loop;
    private final ClientConductor conductor;
    private final RequestCorrelator correlator;

    ClientRequests(final ClientContext ctx, final EventLoop loop, final ClientConductor conductor,
        final RequestCorrelator correlator)
    {
        this.ctx = ctx;
        this.loop = loop;
        this.conductor = conductor;
        this.correlator = correlator;
    }

    /** Sends a request; {@code waiter} (or null) is completed with its answer. Returns the request id. */
    long send(final Envelope.Builder request, final RequestCorrelator.Waiter waiter)
    {
        final boolean orderEntry = PendingCommands.isOrderEntry(request.getBodyCase());
        if (conductor.state() == ClientConductor.State.CLOSED)
        {
            throw new IllegalStateException("the client is closed");
        }
        if (!orderEntry && !conductor.isSessionReady())
        {
            throw new IllegalStateException("not connected");
        }
        final long requestId = correlator.nextRequestId();
        final Envelope envelope = checkSize(request.setRequestId(requestId).build(), "request");
        if (orderEntry && !correlator.reserveOrderEntry())
        {
            throw new IllegalStateException("too many unanswered order-entry commands (" + ctx.maxPendingCommands() + ")");
        }
        if (waiter != null)
        {
            correlator.addWaiter(requestId, waiter);
        }
        sendOnLoop(envelope);
        return requestId;
    }

    /** Sends a request and waits for its answer of the given type (see {@link GpuxClient#request}). */
    <T extends Message> T request(final Envelope.Builder request, final Class<T> answerType, final Duration timeout)
        throws IOException, InterruptedException, TimeoutException
    {
        refuseOnLoop("a blocking request");
        final RequestCorrelator.Waiter waiter = new RequestCorrelator.Waiter(PendingCommands.isOrderEntry(request.getBodyCase()));
        final long requestId = send(request, waiter);
        final Object answer;
        try
        {
            answer = waiter.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final ExecutionException ex)
        {
            throw asIOException(ex.getCause());
        }
        catch (final TimeoutException ex)
        {
            correlator.removeWaiter(requestId);
            throw new TimeoutException("no answer to request " + requestId + " within " + timeout.toMillis() + " ms");
        }
        if (answerType.isInstance(answer))
        {
            return answerType.cast(answer);
        }
        if (answer instanceof Response refusal)
        {
            throw new RequestFailedException(refusal);
        }
        throw new IOException("request " + requestId + " was answered by a " + answer.getClass().getSimpleName());
    }

    /** Sends a message that answers the exchange under the exchange's request id; nothing answers it. */
    void answer(final Envelope.Builder answer, final long requestId)
    {
        if (!conductor.isSessionReady())
        {
            throw new IllegalStateException("not connected");
        }
        sendOnLoop(checkSize(answer.setRequestId(requestId).build(), "log"));
    }

    /** Throws on the client's event loop thread, where waiting would block the loop itself. */
    void refuseOnLoop(final String what)
    {
        if (loop.inEventLoop())
        {
            throw new IllegalStateException(what + " would block the client's own event loop thread");
        }
    }

    static IOException asIOException(final Throwable cause)
    {
        return cause instanceof IOException io ? io : new IOException(cause);
    }

    private Envelope checkSize(final Envelope envelope, final String what)
    {
        if (envelope.getSerializedSize() > ctx.maxFrameBytes())
        {
            throw new IllegalArgumentException("a " + envelope.getSerializedSize() + "-byte " + what + " exceeds the "
                + ctx.maxFrameBytes() + "-byte frame limit");
        }
        return envelope;
    }

    private void sendOnLoop(final Envelope envelope)
    {
        if (loop.inEventLoop())
        {
            conductor.send(envelope);
        }
        else
        {
            loop.execute(() -> conductor.send(envelope));
        }
    }
}
