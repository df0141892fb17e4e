package io.gpux.client.agent;

import io.gpux.client.GpuxClient;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.MarketInfo;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Response;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;

/**
 * The owner agent's machine as the exchange knows it: its GPUs (discovered with nvidia-smi until that
 * works once), its market, and its registration, made once and again after every new session or when
 * the exchange says it lost the machine (the same name answers the same machine id). Registering
 * also reads the market's tick and grace and, when undercutting, subscribes to its book. The agent's
 * thread only, but the getters.
 */
final class MachineRegistration
{
    private final OwnerAgentContext ctx;
    private final GpuxClient client;
    private final OwnerAgentListener listener;
    private final MachineLedger ledger;
    private final AskKeeper asks;
    private final MachineHeartbeats heartbeats;
    private final boolean subscribe;

    private volatile List<GpuInfo> gpus;
    private volatile String market;
    private volatile long machineId;
    private volatile boolean registerAgain;
    private long graceMs;
    private boolean subscribed;

    MachineRegistration(final OwnerAgentContext ctx, final MachineLedger ledger, final AskKeeper asks,
        final MachineHeartbeats heartbeats, final boolean subscribe)
    {
        this.ctx = ctx;
        this.client = ctx.client();
        this.listener = ctx.listener();
        this.ledger = ledger;
        this.asks = asks;
        this.heartbeats = heartbeats;
        this.subscribe = subscribe;
    }

    /** The GPUs discovered, null until discovery worked. */
    List<GpuInfo> gpus()
    {
        return gpus;
    }

    /** The machine's market, null until discovery worked. */
    String market()
    {
        return market;
    }

    /** The machine's id, 0 until registered. */
    long machineId()
    {
        return machineId;
    }

    /** The market's grace for a notice, as its MarketInfo said at the registration. */
    long graceMs()
    {
        return graceMs;
    }

    /** True until registered, and again after {@link #registerAgain()}. */
    boolean needed()
    {
        return machineId == 0 || registerAgain;
    }

    /** A new session, or the exchange lost the machine: register again before anything else. Any thread. */
    void registerAgain()
    {
        registerAgain = true;
    }

    /** Finds the GPUs and the market; a failure is reported and counted, and tried again next interval. */
    boolean discover()
    {
        try
        {
            final List<GpuInfo> found = ctx.nvidiaSmi().discover();
            market = ctx.market() != null ? ctx.market() : found.get(0).marketSymbol();
            gpus = List.copyOf(found);
            listener.onDiscovered(gpus);
            return true;
        }
        catch (final NvidiaSmiException ex)
        {
            heartbeats.discoveryFailed(ex);
            return false;
        }
    }

    /** Registers the discovered machine; false if the exchange refused (reported). */
    boolean register(final Duration timeout) throws IOException, InterruptedException, TimeoutException
    {
        registerAgain = false;
        final List<GpuInfo> found = gpus;
        final Response r = client.call(Envelope.newBuilder().setRegisterMachine(RegisterMachine.newBuilder()
            .setName(ctx.machineName()).setMarket(market).setGpus(found.size())
            .setVramGb((int)Math.min(Integer.MAX_VALUE, found.get(0).vramGb()))
            .setRegion(ctx.region()).setInterconnect(ctx.interconnect())), timeout);
        if (r.getReason() != Reason.REASON_OK)
        {
            listener.onRegisterRejected(r.getReason(), r.getMessage());
            return false;
        }
        final boolean changed = machineId != r.getAssignedId();
        machineId = r.getAssignedId();
        ledger.machine(machineId, found.size(), market);
        if (changed)
        {
            listener.onRegistered(machineId, ctx.machineName(), market, found.size());
        }
        for (final MarketInfo m : client.markets(timeout).getMarketsList())
        {
            if (m.getSymbol().equals(market))
            {
                asks.tick(m.getTick());
                graceMs = Math.max(0, m.getGraceMs());
            }
        }
        if (subscribe && !subscribed)
        {
            client.subscribe(market);
            subscribed = true;
        }
        return true;
    }

    /** Ends the market-data subscription, if any (the agent closes). */
    void unsubscribe()
    {
        if (subscribed)
        {
            try
            {
                client.unsubscribe(market);
            }
            catch (final IllegalStateException ignored)
            {
                // disconnected or closed: nothing to unsubscribe from
            }
        }
    }
}
