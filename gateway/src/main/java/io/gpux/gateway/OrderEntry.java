package io.gpux.gateway;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.gateway.codec.HotRequest;
import io.gpux.gateway.directory.MachineTelemetry;
import io.gpux.gateway.orders.OrderRequests;
import io.gpux.gateway.session.Session;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.GpuTelemetry;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Response;
import io.netty.channel.ChannelHandlerContext;

import java.util.List;

/**
 * A session's order entry: bids, asks, cancels, replaces, mass cancels, releases, and an owner's
 * machines (registration and heartbeats), checked and resolved by the gateway's {@link OrderRequests}
 * and staged for the {@link SessionPublisher}; a refusal is written to the connection. Event loop
 * only; an order allocates nothing on its way to the input ring.
 */
final class OrderEntry implements OrderRequests.Outlet<ChannelHandlerContext>
{
    private final Exchange exchange;
    private final Session session;
    private final SessionPublisher publisher;
    private final OrderRequests<ChannelHandlerContext> requests;

    OrderEntry(final Exchange exchange, final Session session, final SessionPublisher publisher)
    {
        this.exchange = exchange;
        this.session = session;
        this.publisher = publisher;
        this.requests = new OrderRequests<>(exchange.directory, this);
    }

    /** A frequent request (see {@link HotRequest#handles}) other than a heartbeat, from a session allowed to trade. */
    void onHot(final ChannelHandlerContext ctx, final long rid, final HotRequest r)
    {
        requests.onHot(ctx, rid, session.accountId, r);
    }

    /** Registers an owner's machine; the same name registered again answers the same machine id. */
    void registerMachine(final ChannelHandlerContext ctx, final long rid, final RegisterMachine r)
    {
        requests.registerMachine(ctx, rid, session.accountId, session.accountName, session.roles, r);
    }

    @Override
    public Command stage(final CommandType type)
    {
        return publisher.stage(type);
    }

    @Override
    public boolean publish(final ChannelHandlerContext ctx, final long requestId, final byte kind, final long assignedId)
    {
        return publisher.publish(ctx, requestId, kind, assignedId);
    }

    @Override
    public void refuse(final ChannelHandlerContext ctx, final long requestId, final Reason reason, final String message)
    {
        publisher.reply(ctx, requestId, reason, message);
    }

    @Override
    public void answer(final ChannelHandlerContext ctx, final long requestId, final Response response)
    {
        ctx.write(Envelope.newBuilder().setRequestId(requestId).setResponse(response).build(), ctx.voidPromise());
    }

    @Override
    public void onTelemetry(final long machineId, final List<GpuTelemetry> telemetry)
    {
        exchange.telemetry.put(machineId, new MachineTelemetry(exchange.clock.time(), telemetry));
    }
}
