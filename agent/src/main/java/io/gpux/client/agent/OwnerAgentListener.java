package io.gpux.client.agent;

import io.gpux.proto.v1.EndReason;
import io.gpux.proto.v1.Reason;
import java.util.List;

/**
 * What an {@link OwnerAgent} reports; every method has a no-op default.
 *
 * <p>Threading: the account-event reports ({@link #onMachineOnline}, {@link #onMachineOffline},
 * {@link #onLeaseStarted}, {@link #onLeaseEnded}) run on the client's event loop; all the others run
 * on the agent's thread. Do not block in either.
 */
public interface OwnerAgentListener
{
    /** nvidia-smi listed the machine's GPUs. */
    default void onDiscovered(final List<GpuInfo> gpus)
    {
    }

    /** The machine is registered (or found again by its name). */
    default void onRegistered(final long machineId, final String name, final String market, final int gpus)
    {
    }

    /** The exchange refused the registration (unknown market, a key without the OWNER role, a bad name...). */
    default void onRegisterRejected(final Reason reason, final String message)
    {
    }

    default void onMachineOnline(final long machineId)
    {
    }

    default void onMachineOffline(final long machineId)
    {
    }

    /** A new ask is on the book. */
    default void onAskPosted(final long orderId, final int gpus, final long price)
    {
    }

    /** The ask was replaced: a new price and/or more open GPUs. */
    default void onAskReplaced(final long orderId, final int openGpus, final long price)
    {
    }

    /** The exchange refused to post or replace the ask; the agent tries again next interval. */
    default void onAskRejected(final long orderId, final Reason reason, final String message)
    {
    }

    /**
     * The machine is reclaimed: the ask is cancelled with {@code reclaim=true} (its leases got
     * OWNER_RECLAIM notices and end after the market's grace period), and no ask is posted until the
     * trigger goes away.
     *
     * @param orderId the ask cancelled, or 0 if there was none.
     */
    default void onReclaimed(final long orderId)
    {
    }

    /** The reclaim trigger went away: the agent posts its ask again. */
    default void onResumed()
    {
    }

    /** A lease of the machine's GPUs started. */
    default void onLeaseStarted(final long leaseId, final int gpus, final long price)
    {
    }

    default void onLeaseEnded(final long leaseId, final EndReason reason)
    {
    }

    /**
     * nvidia-smi failed: heartbeats go on without telemetry. Called once per run of failures; {@link
     * #onTelemetryRecovered} says when samples come back.
     */
    default void onTelemetryFailed(final NvidiaSmiException error)
    {
    }

    default void onTelemetryRecovered()
    {
    }

    /**
     * A graceful stop waits for the machine's leases to end after their notices (reported when their
     * count changes).
     *
     * @param leases the leases still on the machine.
     * @param leftMs how long the stop waits for them at most.
     */
    default void onStopWaiting(final int leases, final long leftMs)
    {
    }

    /**
     * A graceful stop cannot reach the exchange (once per run of failures); the agent keeps trying until
     * the stop's deadline.
     */
    default void onStopUnreachable(final String problem, final long leftMs)
    {
    }

    /**
     * A graceful stop has finished; the agent's thread ends.
     *
     * @param leasesLeft 0: every lease of the machine ended; otherwise the deadline passed with these
     *                   leases left, which end MACHINE_OFFLINE once the exchange misses the heartbeats.
     */
    default void onStopped(final int leasesLeft)
    {
    }

    /** A request of the agent failed (disconnected, no answer in time, refused); it tries again next interval. */
    default void onError(final String what, final String problem)
    {
    }
}
