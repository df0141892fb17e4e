package io.gpux.client;

import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Accepted;
import io.gpux.proto.v1.Balance;
import io.gpux.proto.v1.BookSnapshot;
import io.gpux.proto.v1.BookUpdate;
import io.gpux.proto.v1.Cancelled;
import io.gpux.proto.v1.Fill;
import io.gpux.proto.v1.History;
import io.gpux.proto.v1.LeaseEnded;
import io.gpux.proto.v1.LeaseStarted;
import io.gpux.proto.v1.LoginAccepted;
import io.gpux.proto.v1.MachineOffline;
import io.gpux.proto.v1.MachineOnline;
import io.gpux.proto.v1.Markets;
import io.gpux.proto.v1.NoticeReason;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.QuoteResult;
import io.gpux.proto.v1.Rejected;
import io.gpux.proto.v1.ResendComplete;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.SessionError;
import io.gpux.proto.v1.Settled;
import io.gpux.proto.v1.Trade;
import io.gpux.proto.v1.WorkloadLaunch;
import io.gpux.proto.v1.WorkloadLog;
import io.gpux.proto.v1.WorkloadLogRequest;
import io.gpux.proto.v1.WorkloadStatus;

/**
 * What a {@link GpuxClient} tells its listeners. Every method has a no-op default, so a listener
 * overrides only what it needs.
 *
 * <p><b>Threading</b>: every callback runs on the client's event loop thread, the thread that also
 * reads and writes the socket (shared with other clients when an {@code EventLoopGroup} is shared).
 * Do not block in a callback; calling the client's non-blocking request methods from a callback is
 * fine (they are written out with the batch), its blocking ones ({@code connect}, {@code call}) are
 * refused there.
 *
 * <p><b>Account events</b>: for each {@link AccountEvent} the client calls {@link #onEvent} first,
 * then the one typed method for its kind ({@link #onFill}, {@link #onPreemptNotice}, ...). Events
 * arrive once each, in {@code seq} order, across reconnects.
 *
 * <p>Protobuf messages handed to a callback are immutable and may be kept.
 */
public interface ClientListener
{
    /** The TCP connection is up and the Login was sent. */
    default void onConnected()
    {
    }

    /** The gateway accepted the Login; requests may flow. */
    default void onLoginAccepted(final LoginAccepted accepted)
    {
    }

    /** Every event after the Login's {@code last_seq} has been resent; what follows is live. */
    default void onResendComplete(final ResendComplete complete)
    {
    }

    /**
     * The connection ended (or a connection attempt failed).
     *
     * @param reason      why, for humans.
     * @param reconnecting true when the client will try again after its backoff; false when it was
     *                     closed or gave up (for example the key was refused).
     */
    default void onDisconnected(final String reason, final boolean reconnecting)
    {
    }

    /** The gateway's last word before it closes the connection. */
    default void onSessionError(final SessionError error)
    {
    }

    /** The answer to a command (or to a subscription), with the request id it was sent under. */
    default void onResponse(final long requestId, final Response response)
    {
    }

    default void onQuote(final long requestId, final QuoteResult quote)
    {
    }

    default void onPortfolio(final long requestId, final Portfolio portfolio)
    {
    }

    default void onMarkets(final long requestId, final Markets markets)
    {
    }

    /** The candles a {@link GpuxClient#history(io.gpux.proto.v1.HistoryRequest)} request asked for. */
    default void onHistory(final long requestId, final History history)
    {
    }

    default void onBookSnapshot(final BookSnapshot snapshot)
    {
    }

    default void onBookUpdate(final BookUpdate update)
    {
    }

    default void onTrade(final Trade trade)
    {
    }

    /** Every private event of the account, before its typed callback. */
    default void onEvent(final AccountEvent event)
    {
    }

    default void onAccepted(final AccountEvent event, final Accepted accepted)
    {
    }

    default void onRejected(final AccountEvent event, final Rejected rejected)
    {
    }

    default void onCancelled(final AccountEvent event, final Cancelled cancelled)
    {
    }

    default void onFill(final AccountEvent event, final Fill fill)
    {
    }

    default void onLeaseStarted(final AccountEvent event, final LeaseStarted started)
    {
    }

    /**
     * A lease of this account (as renter or as owner) will end at {@code effectiveAtMs}: the time to
     * checkpoint.
     */
    default void onPreemptNotice(final long leaseId, final long effectiveAtMs, final NoticeReason reason)
    {
    }

    default void onLeaseEnded(final AccountEvent event, final LeaseEnded ended)
    {
    }

    default void onSettled(final AccountEvent event, final Settled settled)
    {
    }

    default void onBalance(final AccountEvent event, final Balance balance)
    {
    }

    default void onMachineOnline(final AccountEvent event, final MachineOnline online)
    {
    }

    default void onMachineOffline(final AccountEvent event, final MachineOffline offline)
    {
    }

    /** A workload to run on a lease of one of this account's machines (for the machine's agent). */
    default void onWorkloadLaunch(final WorkloadLaunch launch)
    {
    }

    /** The state of the workload on a lease this account rents. */
    default void onWorkloadStatus(final WorkloadStatus status)
    {
    }

    /**
     * A renter asks for the log of a workload on this account's machine: the agent running it answers
     * with {@link GpuxClient#answerLogRequest} and this request id.
     */
    default void onWorkloadLogRequest(final long requestId, final WorkloadLogRequest request)
    {
    }

    /** The answer to this account's {@link GpuxClient#logTail} request. */
    default void onWorkloadLog(final long requestId, final WorkloadLog log)
    {
    }

    /** Calls {@link #onEvent} and then the typed callback of the event's kind. */
    static void dispatchEvent(final ClientListener listener, final AccountEvent event)
    {
        listener.onEvent(event);
        switch (event.getKindCase())
        {
            case ACCEPTED -> listener.onAccepted(event, event.getAccepted());
            case REJECTED -> listener.onRejected(event, event.getRejected());
            case CANCELLED -> listener.onCancelled(event, event.getCancelled());
            case FILL -> listener.onFill(event, event.getFill());
            case LEASE_STARTED -> listener.onLeaseStarted(event, event.getLeaseStarted());
            case PREEMPT_NOTICE -> listener.onPreemptNotice(
                event.getPreemptNotice().getLeaseId(),
                event.getPreemptNotice().getEffectiveMs(),
                event.getPreemptNotice().getReason());
            case LEASE_ENDED -> listener.onLeaseEnded(event, event.getLeaseEnded());
            case SETTLED -> listener.onSettled(event, event.getSettled());
            case BALANCE -> listener.onBalance(event, event.getBalance());
            case MACHINE_ONLINE -> listener.onMachineOnline(event, event.getMachineOnline());
            case MACHINE_OFFLINE -> listener.onMachineOffline(event, event.getMachineOffline());
            default ->
            {
                // a kind newer than this client: onEvent has seen it
            }
        }
    }
}
