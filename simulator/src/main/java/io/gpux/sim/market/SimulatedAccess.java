package io.gpux.sim.market;

import io.gpux.client.ClientListener;
import io.gpux.client.CompositeListener;
import io.gpux.proto.v1.Cancel;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Release;
import io.gpux.proto.v1.Replace;
import java.util.function.LongConsumer;

/**
 * One account's {@link MarketAccess} on a {@link SimulatedExchange}: each request goes, as a client
 * would send it, to the exchange's embedded gateway, which checks it at once; what it causes comes
 * back to this account's listeners when the exchange's loop applies it.
 */
public final class SimulatedAccess implements MarketAccess
{
    private final SimulatedExchange exchange;
    private final long accountId;
    private final String name;
    private final CompositeListener listeners = new CompositeListener();
    private LongConsumer releaseHook = leaseId -> { };
    private long requestIds;
    private long orderIds;

    SimulatedAccess(final SimulatedExchange exchange, final long accountId, final String name)
    {
        this.exchange = exchange;
        this.accountId = accountId;
        this.name = name;
    }

    public long accountId()
    {
        return accountId;
    }

    /** The account's balance in micro-units. */
    public long balance()
    {
        return exchange.engine().account(accountId).balance;
    }

    /** Where the exchange delivers what this account receives. */
    CompositeListener listeners()
    {
        return listeners;
    }

    @Override
    public String account()
    {
        return name;
    }

    @Override
    public long now()
    {
        return exchange.now();
    }

    @Override
    public long nextOrderId()
    {
        return ++orderIds;
    }

    @Override
    public void execute(final Runnable task)
    {
        task.run();
    }

    @Override
    public void schedule(final long delayMs, final Runnable task)
    {
        exchange.schedule(delayMs, task);
    }

    @Override
    public void addListener(final ClientListener listener)
    {
        listeners.add(listener);
    }

    @Override
    public boolean removeListener(final ClientListener listener)
    {
        return listeners.remove(listener);
    }

    private long send(final Envelope.Builder request)
    {
        final long requestId = ++requestIds;
        exchange.enqueue(this, requestId, exchange.gateway().submit(accountId, request.setRequestId(requestId).build()));
        return requestId;
    }

    @Override
    public long placeBid(final PlaceBid bid)
    {
        return send(Envelope.newBuilder().setPlaceBid(bid));
    }

    @Override
    public long placeAsk(final PlaceAsk ask)
    {
        return send(Envelope.newBuilder().setPlaceAsk(ask));
    }

    @Override
    public long cancel(final long orderId, final boolean reclaim)
    {
        return send(Envelope.newBuilder().setCancel(Cancel.newBuilder().setOrderId(orderId).setReclaim(reclaim)));
    }

    @Override
    public long replace(final Replace replace)
    {
        return send(Envelope.newBuilder().setReplace(replace));
    }

    @Override
    public void onRelease(final LongConsumer hook)
    {
        this.releaseHook = hook;
    }

    @Override
    public long release(final long leaseId)
    {
        releaseHook.accept(leaseId);
        return send(Envelope.newBuilder().setRelease(Release.newBuilder().setLeaseId(leaseId)));
    }

    @Override
    public long registerMachine(final RegisterMachine machine)
    {
        return send(Envelope.newBuilder().setRegisterMachine(machine));
    }

    @Override
    public long machineHeartbeat(final MachineHeartbeat heartbeat)
    {
        return send(Envelope.newBuilder().setMachineHeartbeat(heartbeat));
    }

    @Override
    public long subscribe(final String market)
    {
        final long requestId = ++requestIds;
        exchange.enqueue(this, requestId, exchange.gateway().subscribe(market));
        return requestId;
    }

    @Override
    public boolean isConnected()
    {
        return true;
    }

    @Override
    public boolean carriesTelemetry()
    {
        return false;
    }
}
