package io.gpux.sim.market;

import io.gpux.client.ClientListener;
import io.gpux.client.GpuxClient;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Accepted;
import io.gpux.proto.v1.Fill;
import io.gpux.proto.v1.LoginAccepted;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Replace;
import io.gpux.proto.v1.Response;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.agrona.collections.Long2LongHashMap;

/**
 * {@link MarketAccess} over a {@link GpuxClient}: requests go through the real gateway; timers run on
 * the client's event loop, their market-time delays divided by the clock's scale.
 *
 * <p>It also measures the exchange from the client's side: the time from submitting an order to its
 * first {@code Fill} when the order filled on entry (the Fill caused by the order's own command),
 * counted only when the session did not change in between (a fill after a reconnect would measure the
 * outage); the commands sent; the answers that the client library settled from events after a
 * reconnect; the logins (more than one: the client reconnected).
 *
 * <p>Confined to the client's event loop thread, like the agent using it.
 */
public final class ClientMarketAccess implements MarketAccess, ClientListener
{
    private static final long NONE = Long.MIN_VALUE;

    private final GpuxClient client;
    private final ScaledClock clock;
    private final LatencyRecorder latency;
    private final LongAdder commandsSent;
    private final Long2LongHashMap submitNanos = new Long2LongHashMap(NONE);
    private final Long2LongHashMap submitGeneration = new Long2LongHashMap(NONE);
    private final Long2LongHashMap acceptedCommandSeq = new Long2LongHashMap(NONE);
    private final Long2LongHashMap requestOrder = new Long2LongHashMap(NONE);
    private volatile int logins;
    private volatile long settledAfterReconnect;
    private volatile long lastLoginWallMs;
    private volatile long maxCommandSeq;
    private long generation;

    public ClientMarketAccess(final GpuxClient client, final ScaledClock clock, final LatencyRecorder latency,
        final LongAdder commandsSent)
    {
        this.client = client;
        this.clock = clock;
        this.latency = latency;
        this.commandsSent = commandsSent;
        client.addListener(this);
    }

    public GpuxClient client()
    {
        return client;
    }

    /** Logins so far: 1 after the first connect, one more per reconnect. */
    public int logins()
    {
        return logins;
    }

    public long lastLoginWallMs()
    {
        return lastLoginWallMs;
    }

    /** The highest command sequence (place in the exchange's command journal) an answer carried. */
    public long maxCommandSeq()
    {
        return maxCommandSeq;
    }

    /** Command answers that the client settled from account events (the Response was lost with a connection). */
    public long settledAfterReconnect()
    {
        return settledAfterReconnect;
    }

    @Override
    public String account()
    {
        final LoginAccepted accepted = client.loginAccepted();
        return accepted == null ? "" : accepted.getAccount();
    }

    @Override
    public long now()
    {
        return clock.now();
    }

    @Override
    public long nextOrderId()
    {
        return client.nextOrderId();
    }

    @Override
    public void execute(final Runnable task)
    {
        client.execute(task);
    }

    @Override
    public void schedule(final long delayMs, final Runnable task)
    {
        client.eventLoop().schedule(task, clock.wallMicros(delayMs), TimeUnit.MICROSECONDS);
    }

    @Override
    public void addListener(final ClientListener listener)
    {
        client.addListener(listener);
    }

    @Override
    public boolean removeListener(final ClientListener listener)
    {
        return client.removeListener(listener);
    }

    @Override
    public long placeBid(final PlaceBid bid)
    {
        final long requestId = client.placeBid(bid);
        submitted(requestId, bid.getOrderId());
        return requestId;
    }

    @Override
    public long placeAsk(final PlaceAsk ask)
    {
        final long requestId = client.placeAsk(ask);
        submitted(requestId, ask.getOrderId());
        return requestId;
    }

    private void submitted(final long requestId, final long orderId)
    {
        commandsSent.increment();
        if (client.eventLoop().inEventLoop())
        {
            submitNanos.put(orderId, System.nanoTime());
            submitGeneration.put(orderId, generation);
            requestOrder.put(requestId, orderId);
        }
    }

    @Override
    public long cancel(final long orderId, final boolean reclaim)
    {
        commandsSent.increment();
        return client.cancel(orderId, reclaim);
    }

    private java.util.function.LongConsumer releaseHook = leaseId -> { };

    @Override
    public void onRelease(final java.util.function.LongConsumer hook)
    {
        this.releaseHook = hook;
    }

    @Override
    public long release(final long leaseId)
    {
        commandsSent.increment();
        releaseHook.accept(leaseId);
        return client.release(leaseId);
    }

    @Override
    public long replace(final Replace replace)
    {
        commandsSent.increment();
        return client.replace(replace);
    }

    @Override
    public long registerMachine(final RegisterMachine machine)
    {
        if (!client.isConnected())
        {
            return -1;
        }
        try
        {
            commandsSent.increment();
            return client.registerMachine(machine);
        }
        catch (final IllegalStateException ex)
        {
            return -1;
        }
    }

    @Override
    public long machineHeartbeat(final MachineHeartbeat heartbeat)
    {
        if (!client.isConnected())
        {
            return -1;
        }
        try
        {
            commandsSent.increment();
            return client.machineHeartbeat(heartbeat);
        }
        catch (final IllegalStateException ex)
        {
            return -1;
        }
    }

    @Override
    public long subscribe(final String market)
    {
        if (!client.isConnected())
        {
            return -1;
        }
        try
        {
            return client.subscribe(market);
        }
        catch (final IllegalStateException ex)
        {
            return -1;
        }
    }

    @Override
    public boolean isConnected()
    {
        return client.isConnected();
    }

    // ------------------------------------------------------------------------------------------
    // The client's callbacks (this listener is added first)

    @Override
    public void onLoginAccepted(final LoginAccepted accepted)
    {
        logins++;
        lastLoginWallMs = System.currentTimeMillis();
    }

    @Override
    public void onDisconnected(final String reason, final boolean reconnecting)
    {
        generation++;
    }

    @Override
    public void onResponse(final long requestId, final Response response)
    {
        if (response.getCommandSeq() > maxCommandSeq)
        {
            maxCommandSeq = response.getCommandSeq();
        }
        if (response.getMessage().startsWith("settled"))
        {
            settledAfterReconnect++;
        }
        final long orderId = requestOrder.remove(requestId);
        if (orderId != NONE)
        {
            submitNanos.remove(orderId);
            submitGeneration.remove(orderId);
            acceptedCommandSeq.remove(orderId);
        }
    }

    @Override
    public void onAccepted(final AccountEvent event, final Accepted accepted)
    {
        if (submitNanos.containsKey(accepted.getOrderId()))
        {
            acceptedCommandSeq.put(accepted.getOrderId(), event.getCommandSeq());
        }
    }

    @Override
    public void onFill(final AccountEvent event, final Fill fill)
    {
        final long orderId = fill.getOrderId();
        final long submitted = submitNanos.remove(orderId);
        if (submitted == NONE)
        {
            return;
        }
        final long gen = submitGeneration.remove(orderId);
        final long acceptedSeq = acceptedCommandSeq.remove(orderId);
        if (gen == generation && acceptedSeq == event.getCommandSeq())
        {
            latency.record(submitted, System.nanoTime());
        }
    }
}
