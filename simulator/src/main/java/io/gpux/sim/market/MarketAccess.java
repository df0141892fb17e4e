package io.gpux.sim.market;

import io.gpux.client.ClientListener;
import io.gpux.client.OrderSender;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Replace;

/**
 * What an agent sees of the exchange: one account's order entry, machines, market data and events,
 * and a clock and timers in <b>market time</b>. Two implementations run the same agents:
 * {@link ClientMarketAccess} over a {@link io.gpux.client.GpuxClient} and the real gateway (the demo),
 * and {@link SimulatedExchange}'s accounts ({@link SimulatedAccess}), straight over the matching engine with a simulated clock.
 *
 * <p>Answers and events come to the listeners as a {@code GpuxClient} delivers them
 * ({@link ClientListener}: responses, account events in order, book snapshots and updates, trades),
 * always on the agent's own thread; {@link #execute} and {@link #schedule} run tasks there.
 * The request methods return the request id of their answer; order entry is accepted at any time
 * (while disconnected it waits), the other requests need a session and return -1 without one.
 */
public interface MarketAccess extends OrderSender
{
    /** The account's name. */
    String account();

    /** Market time now, epoch milliseconds (the exchange's clock, which may run faster than the wall clock). */
    long now();

    /** Runs the task on the agent's thread after {@code delayMs} of market time. */
    @Override
    void schedule(long delayMs, Runnable task);

    void addListener(ClientListener listener);

    /** {@code hook} hears every lease id this account asks to release, as it asks (on the agent's thread). */
    void onRelease(java.util.function.LongConsumer hook);

    boolean removeListener(ClientListener listener);

    long placeAsk(PlaceAsk ask);

    /** Cancels an order; {@code reclaim} (owners) also gives notice to the ask's leases. */
    long cancel(long orderId, boolean reclaim);

    @Override
    default long cancel(final long orderId)
    {
        return cancel(orderId, false);
    }

    long replace(Replace replace);

    /** Registers a machine; its id comes in the Response's {@code assigned_id}. -1 without a session. */
    long registerMachine(RegisterMachine machine);

    /** A machine heartbeat, with GPU telemetry if {@link #carriesTelemetry()}. -1 without a session. */
    long machineHeartbeat(MachineHeartbeat heartbeat);

    /** Whether heartbeats' telemetry goes anywhere (the gateway keeps it; the simulated exchange has no use for it). */
    default boolean carriesTelemetry()
    {
        return true;
    }

    /** Book snapshot then updates, and trades, of a market. -1 without a session. */
    long subscribe(String market);

    boolean isConnected();
}
