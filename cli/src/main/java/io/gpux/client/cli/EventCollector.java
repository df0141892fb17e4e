package io.gpux.client.cli;

import io.gpux.client.ClientListener;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.CancelReason;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Response;
import java.util.ArrayList;
import java.util.List;

/**
 * Keeps the account events a session receives, to print those a command caused once its Response has
 * come: the gateway sends every event of a command before the command's Response, and each carries
 * the command's place in the journal ({@code command_seq}), as the Response does.
 */
final class EventCollector implements ClientListener
{
    private final List<AccountEvent> events = new ArrayList<>();

    @Override
    public synchronized void onEvent(final AccountEvent event)
    {
        events.add(event);
    }

    /**
     * The GPUs the order got cancelled with by its time in force (IOC or FOK), or -1 if no such
     * cancellation was received.
     */
    synchronized int cancelledByTimeInForce(final long orderId)
    {
        for (final AccountEvent e : events)
        {
            if (e.hasCancelled() && e.getCancelled().getOrderId() == orderId
                && (e.getCancelled().getReason() == CancelReason.CANCEL_IOC
                || e.getCancelled().getReason() == CancelReason.CANCEL_FOK))
            {
                return e.getCancelled().getRemaining();
            }
        }
        return -1;
    }

    /**
     * The events of the command the Response answers; all events received when the Response carries
     * no command_seq but succeeded (one settled across a reconnect); none for a command the gateway
     * refused itself.
     */
    synchronized List<AccountEvent> eventsOf(final Response response)
    {
        final long commandSeq = response.getCommandSeq();
        final List<AccountEvent> caused = new ArrayList<>();
        if (commandSeq == 0 && response.getReason() != Reason.REASON_OK)
        {
            return caused;
        }
        for (final AccountEvent e : events)
        {
            if (commandSeq == 0 || e.getCommandSeq() == commandSeq)
            {
                caused.add(e);
            }
        }
        return caused;
    }
}
