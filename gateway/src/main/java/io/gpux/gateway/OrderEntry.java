package io.gpux.gateway;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.command.Roles;
import io.gpux.gateway.codec.HotRequest;
import io.gpux.gateway.codec.SymbolCache;
import io.gpux.gateway.directory.Directory;
import io.gpux.gateway.directory.MachineTelemetry;
import io.gpux.gateway.session.Session;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Response;
import io.netty.channel.ChannelHandlerContext;

import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * A session's order entry: bids, asks, cancels, replaces, mass cancels, releases, and an owner's
 * machines (registration and heartbeats). Each request is checked, resolved to the engine's ids and
 * staged for the {@link SessionPublisher}. Market symbols resolve through a per-connection
 * {@link SymbolCache}, so an order allocates nothing on its way to the input ring.
 */
final class OrderEntry
{
    /** An account's or a machine's name. */
    static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    private final Exchange exchange;
    private final Session session;
    private final SessionPublisher publisher;
    private final SymbolCache symbols = new SymbolCache();

    OrderEntry(final Exchange exchange, final Session session, final SessionPublisher publisher)
    {
        this.exchange = exchange;
        this.session = session;
        this.publisher = publisher;
    }

    /** A frequent request (see {@link HotRequest#handles}) other than a heartbeat, from a session allowed to trade. */
    void onHot(final ChannelHandlerContext ctx, final long rid, final HotRequest r)
    {
        switch (r.kind)
        {
            case PLACE_BID -> bid(ctx, rid, r);
            case PLACE_ASK -> ask(ctx, rid, r);
            case CANCEL ->
            {
                r.toCancel(publisher.stage(CommandType.CANCEL));
                publisher.publish(ctx, rid, Session.KIND_COMMAND, 0);
            }
            case REPLACE -> replace(ctx, rid, r);
            case MASS_CANCEL ->
            {
                final Command staged = publisher.stage(CommandType.MASS_CANCEL);
                if (r.marketLength() > 0)
                {
                    final Directory.MarketEntry m = market(r);
                    if (m == null)
                    {
                        publisher.reply(ctx, rid, Reason.UNKNOWN_MARKET, r.marketString());
                        return;
                    }
                    staged.marketId = m.id();
                    staged.hasMarket = true;
                }
                publisher.publish(ctx, rid, Session.KIND_COMMAND, 0);
            }
            case RELEASE ->
            {
                publisher.stage(CommandType.RELEASE).leaseId = r.leaseId;
                publisher.publish(ctx, rid, Session.KIND_COMMAND, 0);
            }
            case MACHINE_HEARTBEAT -> machineHeartbeat(ctx, rid, r);
            default -> throw new IllegalStateException("not a hot request: " + r.kind);
        }
    }

    /** The market a request names, through this connection's symbol cache; null if there is none of that symbol. */
    private Directory.MarketEntry market(final HotRequest r)
    {
        final String cached = symbols.get(r.bytes(), r.marketOffset(), r.marketLength());
        if (cached != null)
        {
            return exchange.directory.market(cached);
        }
        final String symbol = new String(r.bytes(), r.marketOffset(), r.marketLength(), StandardCharsets.UTF_8);
        final Directory.MarketEntry m = exchange.directory.market(symbol);
        if (m != null)
        {
            symbols.put(r.bytes(), r.marketOffset(), r.marketLength(), m.symbol());
        }
        return m;
    }

    private void bid(final ChannelHandlerContext ctx, final long rid, final HotRequest b)
    {
        final Directory.MarketEntry m = market(b);
        if (m == null)
        {
            publisher.reply(ctx, rid, Reason.UNKNOWN_MARKET, b.marketString());
            return;
        }
        if (b.minReliabilityPpm > 1_000_000 || b.maxDurationMs < 0 || b.gpus < 0)
        {
            publisher.reply(ctx, rid, Reason.INVALID_REQUEST, "min_reliability_ppm above 1000000, or a negative field");
            return;
        }
        if (!HotRequest.isTimeInForce(b.tif))
        {
            publisher.reply(ctx, rid, Reason.INVALID_REQUEST, HotRequest.timeInForceProblem(b.tif));
            return;
        }
        final Command staged = publisher.stage(CommandType.BID);
        staged.marketId = m.id();
        b.toBid(staged);
        publisher.publish(ctx, rid, Session.KIND_COMMAND, 0);
    }

    private void ask(final ChannelHandlerContext ctx, final long rid, final HotRequest a)
    {
        if (a.gpus < 0)
        {
            publisher.reply(ctx, rid, Reason.INVALID_REQUEST, "gpus out of range");
            return;
        }
        if (!HotRequest.isTimeInForce(a.tif))
        {
            publisher.reply(ctx, rid, Reason.INVALID_REQUEST, HotRequest.timeInForceProblem(a.tif));
            return;
        }
        a.toAsk(publisher.stage(CommandType.ASK));
        publisher.publish(ctx, rid, Session.KIND_COMMAND, 0);
    }

    private void replace(final ChannelHandlerContext ctx, final long rid, final HotRequest r)
    {
        if (!r.hasPrice && !r.hasGpus)
        {
            publisher.reply(ctx, rid, Reason.INVALID_REQUEST, "a replace needs a price or gpus");
            return;
        }
        if (r.hasGpus && r.gpus < 0)
        {
            publisher.reply(ctx, rid, Reason.INVALID_REQUEST, "gpus out of range");
            return;
        }
        r.toReplace(publisher.stage(CommandType.REPLACE));
        publisher.publish(ctx, rid, Session.KIND_COMMAND, 0);
    }

    private void machineHeartbeat(final ChannelHandlerContext ctx, final long rid, final HotRequest h)
    {
        final Directory.MachineEntry machine = exchange.directory.machine(h.machineId);
        if (machine == null)
        {
            publisher.reply(ctx, rid, Reason.UNKNOWN_MACHINE, "machine " + h.machineId);
            return;
        }
        if (machine.ownerId() != session.accountId)
        {
            publisher.reply(ctx, rid, Reason.NOT_OWNER, "machine " + h.machineId + " is not this account's");
            return;
        }
        if (h.telemetry != null)
        {
            exchange.telemetry.put(machine.id(), new MachineTelemetry(exchange.clock.time(), h.telemetry));
        }
        publisher.stage(CommandType.HEARTBEAT).machineId = machine.id();
        publisher.publish(ctx, rid, Session.KIND_COMMAND, 0);
    }

    /** Registers an owner's machine; the same name registered again answers the same machine id. */
    void registerMachine(final ChannelHandlerContext ctx, final long rid, final RegisterMachine r)
    {
        if (!Roles.canAsk(session.roles))
        {
            publisher.reply(ctx, rid, Reason.NOT_AUTHORIZED, "registering machines needs the OWNER or MARKET_MAKER role");
            return;
        }
        if (!NAME.matcher(r.getName()).matches())
        {
            publisher.reply(ctx, rid, Reason.INVALID_REQUEST, "a machine name is 1 to 64 of A-Z a-z 0-9 . _ -");
            return;
        }
        if (Integer.toUnsignedLong(r.getGpus()) > Integer.MAX_VALUE)
        {
            publisher.reply(ctx, rid, Reason.INVALID_REQUEST,
                "gpus " + Integer.toUnsignedString(r.getGpus()) + " out of range (at most " + Integer.MAX_VALUE + ")");
            return;
        }
        final Directory.MarketEntry m = exchange.directory.market(r.getMarket());
        if (m == null)
        {
            publisher.reply(ctx, rid, Reason.UNKNOWN_MARKET, r.getMarket());
            return;
        }
        final boolean[] created = new boolean[1];
        final Directory.MachineEntry machine = exchange.directory.machineFor(session.accountId, r.getName(), m.id(), created);
        exchange.directory.rememberName(r.getRegion(), created[0]);
        exchange.directory.rememberName(r.getInterconnect(), created[0]);
        if (!created[0])
        {
            ctx.write(Envelope.newBuilder().setRequestId(rid).setResponse(
                Response.newBuilder().setReason(Reason.REASON_OK).setAssignedId(machine.id())
                    .setMessage("already registered")).build(), ctx.voidPromise());
            return;
        }
        final Command staged = publisher.stage(CommandType.MACHINE);
        staged.machineId = machine.id();
        staged.marketId = m.id();
        staged.name = Directory.engineMachineName(session.accountName, r.getName());
        staged.gpus = r.getGpus();
        staged.regionId = Directory.nameId(r.getRegion());
        staged.vramGb = r.getVramGb() == 0 ? Command.ABSENT : r.getVramGb();
        staged.interconnectId = Directory.nameId(r.getInterconnect());
        if (!publisher.publish(ctx, rid, Session.KIND_NEW_MACHINE, machine.id()))
        {
            exchange.directory.forgetMachine(machine.id());
        }
    }
}
