package io.gpux.client;

import io.gpux.proto.v1.PlaceBid;

/**
 * The part of a {@link GpuxClient} that order-managing components such as {@link SpotRequest} use:
 * small enough to fake in a unit test.
 *
 * <p>The request methods return the request id that the answer ({@code onResponse}) will carry.
 */
public interface OrderSender
{
    /** A fresh order id, never handed out before by this sender. */
    long nextOrderId();

    long placeBid(PlaceBid bid);

    long cancel(long orderId);

    long release(long leaseId);

    /** Runs the task on the thread that delivers the events (now, if already on it). */
    void execute(Runnable task);

    /** Runs the task on the event thread after a delay. */
    void schedule(long delayMs, Runnable task);
}
