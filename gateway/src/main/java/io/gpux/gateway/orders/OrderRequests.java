package io.gpux.gateway.orders;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.command.Roles;
import io.gpux.gateway.codec.HotRequest;
import io.gpux.gateway.codec.SymbolCache;
import io.gpux.gateway.directory.Directory;
import io.gpux.gateway.session.Session;
import io.gpux.proto.v1.GpuTelemetry;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Response;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The gateway's order entry rules: bids, asks, cancels, replaces, mass cancels, releases, and an
 * owner's machines (registration and heartbeats). Each request is checked, resolved to the engine's
 * ids through the {@link Directory} (a new machine gets its id here) and staged as an engine
 * command; a request the gateway refuses itself is answered with its reason. Where the command goes
 * is the {@link Outlet}'s business: the Netty gateway's session publisher, or the embedded gateway.
 *
 * <p>One instance per session, on that session's thread: market symbols resolve through its own
 * {@link SymbolCache}, so an order allocates nothing on its way to the outlet.
 *
 * @param <C> what the outlet needs to answer the request (a connection's context, or nothing).
 */
public final class OrderRequests<C>
{
    /** An account's or a machine's name. */
    public static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    /** Where checked requests go. */
    public interface Outlet<C>
    {
        /** Starts a command of the requesting account; order entry fills in the rest. */
        Command stage(CommandType type);

        /**
         * The staged command, to the engine, tracked as a request of this kind ({@code Session.KIND_*}).
         *
         * @return false if it could not go (the outlet answered the request itself).
         */
        boolean publish(C context, long requestId, byte kind, long assignedId);

        /** A request the gateway refuses itself: it goes no further. */
        void refuse(C context, long requestId, Reason reason, String message);

        /** A request the gateway answers itself without a command (a machine registered again). */
        void answer(C context, long requestId, Response response);

        /** A heartbeat's telemetry, of a machine of the requesting account. */
        void onTelemetry(long machineId, List<GpuTelemetry> telemetry);
    }

    private final Directory directory;
    private final Outlet<C> outlet;
    private final SymbolCache symbols = new SymbolCache();

    public OrderRequests(final Directory directory, final Outlet<C> outlet)
    {
        this.directory = directory;
        this.outlet = outlet;
    }

    /** A frequent request (see {@link HotRequest#handles}) other than a session heartbeat, of {@code accountId}. */
    public void onHot(final C context, final long rid, final long accountId, final HotRequest r)
    {
        switch (r.kind)
        {
            case PLACE_BID -> bid(context, rid, r);
            case PLACE_ASK -> ask(context, rid, r);
            case CANCEL ->
            {
                r.toCancel(outlet.stage(CommandType.CANCEL));
                outlet.publish(context, rid, Session.KIND_COMMAND, 0);
            }
            case REPLACE -> replace(context, rid, r);
            case MASS_CANCEL -> massCancel(context, rid, r);
            case RELEASE ->
            {
                outlet.stage(CommandType.RELEASE).leaseId = r.leaseId;
                outlet.publish(context, rid, Session.KIND_COMMAND, 0);
            }
            case MACHINE_HEARTBEAT -> machineHeartbeat(context, rid, accountId, r);
            default -> throw new IllegalStateException("not a hot request: " + r.kind);
        }
    }

    /** The market a request names, through this session's symbol cache; null if there is none of that symbol. */
    private Directory.MarketEntry market(final HotRequest r)
    {
        final String cached = symbols.get(r.bytes(), r.marketOffset(), r.marketLength());
        if (cached != null)
        {
            return directory.market(cached);
        }
        final String symbol = new String(r.bytes(), r.marketOffset(), r.marketLength(), StandardCharsets.UTF_8);
        final Directory.MarketEntry m = directory.market(symbol);
        if (m != null)
        {
            symbols.put(r.bytes(), r.marketOffset(), r.marketLength(), m.symbol());
        }
        return m;
    }

    private void bid(final C context, final long rid, final HotRequest b)
    {
        final Directory.MarketEntry m = market(b);
        if (m == null)
        {
            outlet.refuse(context, rid, Reason.UNKNOWN_MARKET, b.marketString());
            return;
        }
        if (b.minReliabilityPpm > 1_000_000 || b.maxDurationMs < 0 || b.gpus < 0)
        {
            outlet.refuse(context, rid, Reason.INVALID_REQUEST, "min_reliability_ppm above 1000000, or a negative field");
            return;
        }
        if (!HotRequest.isTimeInForce(b.tif))
        {
            outlet.refuse(context, rid, Reason.INVALID_REQUEST, HotRequest.timeInForceProblem(b.tif));
            return;
        }
        final Command staged = outlet.stage(CommandType.BID);
        staged.marketId = m.id();
        b.toBid(staged);
        outlet.publish(context, rid, Session.KIND_COMMAND, 0);
    }

    private void ask(final C context, final long rid, final HotRequest a)
    {
        if (a.gpus < 0)
        {
            outlet.refuse(context, rid, Reason.INVALID_REQUEST, "gpus out of range");
            return;
        }
        if (!HotRequest.isTimeInForce(a.tif))
        {
            outlet.refuse(context, rid, Reason.INVALID_REQUEST, HotRequest.timeInForceProblem(a.tif));
            return;
        }
        a.toAsk(outlet.stage(CommandType.ASK));
        outlet.publish(context, rid, Session.KIND_COMMAND, 0);
    }

    private void replace(final C context, final long rid, final HotRequest r)
    {
        if (!r.hasPrice && !r.hasGpus)
        {
            outlet.refuse(context, rid, Reason.INVALID_REQUEST, "a replace needs a price or gpus");
            return;
        }
        if (r.hasGpus && r.gpus < 0)
        {
            outlet.refuse(context, rid, Reason.INVALID_REQUEST, "gpus out of range");
            return;
        }
        r.toReplace(outlet.stage(CommandType.REPLACE));
        outlet.publish(context, rid, Session.KIND_COMMAND, 0);
    }

    private void massCancel(final C context, final long rid, final HotRequest r)
    {
        final Command staged = outlet.stage(CommandType.MASS_CANCEL);
        if (r.marketLength() > 0)
        {
            final Directory.MarketEntry m = market(r);
            if (m == null)
            {
                outlet.refuse(context, rid, Reason.UNKNOWN_MARKET, r.marketString());
                return;
            }
            staged.marketId = m.id();
            staged.hasMarket = true;
        }
        outlet.publish(context, rid, Session.KIND_COMMAND, 0);
    }

    private void machineHeartbeat(final C context, final long rid, final long accountId, final HotRequest h)
    {
        final Directory.MachineEntry machine = directory.machine(h.machineId);
        if (machine == null)
        {
            outlet.refuse(context, rid, Reason.UNKNOWN_MACHINE, "machine " + h.machineId);
            return;
        }
        if (machine.ownerId() != accountId)
        {
            outlet.refuse(context, rid, Reason.NOT_OWNER, "machine " + h.machineId + " is not this account's");
            return;
        }
        if (h.telemetry != null)
        {
            outlet.onTelemetry(machine.id(), h.telemetry);
        }
        outlet.stage(CommandType.HEARTBEAT).machineId = machine.id();
        outlet.publish(context, rid, Session.KIND_COMMAND, 0);
    }

    /**
     * Registers a machine of {@code accountId} (named {@code accountName}, with {@code roles}); the same
     * name registered again answers the same machine id. A new machine's id is assigned here and
     * forgotten if its command could not go; the outlet forgets it if the engine rejects it.
     */
    public void registerMachine(
        final C context, final long rid, final long accountId, final String accountName, final int roles,
        final RegisterMachine r)
    {
        if (!Roles.canAsk(roles))
        {
            outlet.refuse(context, rid, Reason.NOT_AUTHORIZED, "registering machines needs the OWNER or MARKET_MAKER role");
            return;
        }
        if (!NAME.matcher(r.getName()).matches())
        {
            outlet.refuse(context, rid, Reason.INVALID_REQUEST, "a machine name is 1 to 64 of A-Z a-z 0-9 . _ -");
            return;
        }
        if (Integer.toUnsignedLong(r.getGpus()) > Integer.MAX_VALUE)
        {
            outlet.refuse(context, rid, Reason.INVALID_REQUEST,
                "gpus " + Integer.toUnsignedString(r.getGpus()) + " out of range (at most " + Integer.MAX_VALUE + ")");
            return;
        }
        final Directory.MarketEntry m = directory.market(r.getMarket());
        if (m == null)
        {
            outlet.refuse(context, rid, Reason.UNKNOWN_MARKET, r.getMarket());
            return;
        }
        final boolean[] created = new boolean[1];
        final Directory.MachineEntry machine = directory.machineFor(accountId, r.getName(), m.id(), created);
        directory.rememberName(r.getRegion(), created[0]);
        directory.rememberName(r.getInterconnect(), created[0]);
        if (!created[0])
        {
            outlet.answer(context, rid, Response.newBuilder().setReason(Reason.REASON_OK).setAssignedId(machine.id())
                .setMessage("already registered").build());
            return;
        }
        final Command staged = outlet.stage(CommandType.MACHINE);
        staged.machineId = machine.id();
        staged.marketId = m.id();
        staged.name = Directory.engineMachineName(accountName, r.getName());
        staged.gpus = r.getGpus();
        staged.regionId = Directory.nameId(r.getRegion());
        staged.vramGb = r.getVramGb() == 0 ? Command.ABSENT : r.getVramGb();
        staged.interconnectId = Directory.nameId(r.getInterconnect());
        if (!outlet.publish(context, rid, Session.KIND_NEW_MACHINE, machine.id()))
        {
            directory.forgetMachine(machine.id());
        }
    }
}
