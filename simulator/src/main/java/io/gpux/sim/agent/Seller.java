package io.gpux.sim.agent;

import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Accepted;
import io.gpux.proto.v1.Cancelled;
import io.gpux.proto.v1.CommandKind;
import io.gpux.proto.v1.Fill;
import io.gpux.proto.v1.GpuTelemetry;
import io.gpux.proto.v1.LeaseEnded;
import io.gpux.proto.v1.LeaseStarted;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.MachineOffline;
import io.gpux.proto.v1.MachineOnline;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Rejected;
import io.gpux.proto.v1.Replace;
import io.gpux.proto.v1.Response;
import io.gpux.sim.report.LeaseRecord;
import io.gpux.sim.report.LiveCounters;
import io.gpux.sim.report.MachineRecord;
import io.gpux.sim.report.TradeRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * An agent that sells GPU time from machines: registers them, heartbeats each one (with a failure
 * process: a broken machine stops heartbeating until it is repaired, and the exchange takes it
 * offline), keeps one GTC ask per machine for its GPUs, and records what it sells. Subclasses decide
 * prices ({@link Owner}, {@link MarketMaker}).
 */
public abstract class Seller extends Agent
{
    private static final long YEAR_MS = 365L * AgentParameters.DAY;

    protected final List<FleetMachine> fleet = new ArrayList<>();
    private final Long2ObjectHashMap<FleetMachine> byRegistration = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<FleetMachine> byMachineId = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<FleetMachine> byAsk = new Long2ObjectHashMap<>();
    /** Telemetry's own random stream: what it draws never shifts the agent's decisions. */
    private final SplittableRandom telemetryRng;
    private boolean halted;

    protected Seller(final String name, final String kind, final long seed, final AgentParameters params, final LiveCounters live)
    {
        super(name, kind, seed, params, live);
        this.telemetryRng = new SplittableRandom(seed ^ 0x7E1E3E7A1L);
    }

    /** Adds a machine to the fleet (before the start). */
    protected final FleetMachine addMachine(final GpuClass c, final int gpus, final String region, final double cost)
    {
        final MachineRecord record = new MachineRecord(name + "-m" + (fleet.size() + 1), name, c.symbol(), gpus, region, cost);
        final FleetMachine m = new FleetMachine(record, c);
        fleet.add(m);
        records.machines.add(record);
        return m;
    }

    /** The price a machine first asks, ticks. */
    protected abstract long initialAskPrice(FleetMachine m);

    @Override
    protected void onStart()
    {
        for (final FleetMachine m : fleet)
        {
            register(m);
        }
    }

    private void register(final FleetMachine m)
    {
        if (halted || stopped)
        {
            return;
        }
        final long requestId = access.registerMachine(RegisterMachine.newBuilder()
            .setName(m.record.name).setMarket(m.record.market).setGpus(m.record.gpus).setRegion(m.record.region)
            .setVramGb(m.gpuClass.vramGb()).setInterconnect(m.gpuClass.consumer() || m.gpus() < 4 ? "pcie" : "nvlink").build());
        if (requestId < 0)
        {
            access.schedule(AgentParameters.MINUTE, () -> register(m));
            return;
        }
        byRegistration.put(requestId, m);
    }

    /**
     * A registration in flight when the connection dropped is never answered (a client answers only order entry
     * across a reconnect): each is sent again, or retried once connected. Registration goes by the machine's name,
     * so one that went through before the drop is answered "already registered" with its id.
     */
    @Override
    public void onDisconnected(final String reason, final boolean reconnecting)
    {
        if (byRegistration.isEmpty() || !reconnecting)
        {
            return;
        }
        final List<FleetMachine> unanswered = new ArrayList<>(byRegistration.values());
        byRegistration.clear();
        for (final FleetMachine m : unanswered)
        {
            register(m);
        }
    }

    @Override
    public void onResponse(final long requestId, final Response response)
    {
        final FleetMachine m = byRegistration.remove(requestId);
        if (m == null)
        {
            return;
        }
        if (response.getReason() != Reason.REASON_OK)
        {
            access.schedule(AgentParameters.MINUTE, () -> register(m));
            return;
        }
        m.machineId = response.getAssignedId();
        m.record.machineId = m.machineId;
        byMachineId.put(m.machineId, m);
        heartbeat(m);
        scheduleFailure(m);
        postAsk(m, initialAskPrice(m));
        onMachineReady(m);
    }

    /** A machine is registered and its ask placed. */
    protected void onMachineReady(final FleetMachine m)
    {
    }

    // ------------------------------------------------------------------------------------------
    // Heartbeats and failures

    private void heartbeat(final FleetMachine m)
    {
        if (halted)
        {
            return;
        }
        if (!m.failed)
        {
            access.machineHeartbeat(heartbeatOf(m));
        }
        final long interval = params.rules().heartbeatIntervalMs();
        access.schedule((long)(interval * Draw.uniform(rng, 0.9, 1.0)), () -> heartbeat(m));
    }

    /** A heartbeat with what nvidia-smi would show: leased GPUs busy, the others idle. */
    private MachineHeartbeat heartbeatOf(final FleetMachine m)
    {
        final MachineHeartbeat.Builder h = MachineHeartbeat.newBuilder().setMachineId(m.machineId);
        if (!access.carriesTelemetry())
        {
            return h.build();
        }
        final long memoryMib = m.gpuClass.vramGb() * 1024L;
        final long limitMw = m.gpuClass.powerWatts() * 1000L;
        for (int i = 0; i < m.gpus(); i++)
        {
            final boolean busy = i < m.leasedGpus;
            final int util = busy ? 85 + telemetryRng.nextInt(15) : telemetryRng.nextInt(3);
            h.addGpus(GpuTelemetry.newBuilder()
                .setUuid(m.record.name + "-gpu" + i)
                .setUtilizationPct(util)
                .setMemoryUtilizationPct(busy ? 40 + telemetryRng.nextInt(50) : 0)
                .setMemoryUsedMib(busy ? memoryMib * (60 + telemetryRng.nextInt(35)) / 100 : 300)
                .setMemoryTotalMib(memoryMib)
                .setTemperatureC(busy ? 62 + telemetryRng.nextInt(18) : 30 + telemetryRng.nextInt(8))
                .setPowerDrawMw(busy ? limitMw * (55 + telemetryRng.nextInt(40)) / 100 : limitMw / 12)
                .setPowerLimitMw(limitMw));
        }
        return h.build();
    }

    private void scheduleFailure(final FleetMachine m)
    {
        final double perYear = m.gpus() * m.gpuClass.afr() * params.failureAccel();
        if (perYear <= 0)
        {
            return;
        }
        final long delay = (long)Draw.exponential(rng, YEAR_MS / perYear);
        access.schedule(delay, () -> fail(m));
    }

    private void fail(final FleetMachine m)
    {
        if (halted || stopped)
        {
            return;
        }
        m.failed = true;
        m.record.failed.open(access.now());
        params.fleet().broke(m.machineId, access.now());
        live.failures.increment();
        final long repair = (long)Draw.clamp(Draw.logNormal(rng, 3 * AgentParameters.HOUR, 0.6),
            30 * AgentParameters.MINUTE, AgentParameters.DAY);
        access.schedule(repair, () -> repair(m));
    }

    private void repair(final FleetMachine m)
    {
        m.failed = false;
        m.record.failed.close(access.now());
        params.fleet().repaired(m.machineId);
        if (halted)
        {
            return;
        }
        access.machineHeartbeat(heartbeatOf(m));
        scheduleFailure(m);
    }

    // ------------------------------------------------------------------------------------------
    // Asks

    protected final void postAsk(final FleetMachine m, final long price)
    {
        if (stopped || m.machineId == 0)
        {
            return;
        }
        final long orderId = access.nextOrderId();
        byAsk.put(orderId, m);
        m.askOrderId = orderId;
        m.askPrice = Math.max(price, m.costTicks);
        access.placeAsk(PlaceAsk.newBuilder().setOrderId(orderId).setMachineId(m.machineId).setGpus(m.gpus())
            .setPrice(m.askPrice).build());
    }

    /** A new price for the machine's open ask. */
    protected final void reprice(final FleetMachine m, final long price)
    {
        final long p = Math.max(price, m.costTicks);
        if (!m.askOpen || stopped || p == m.askPrice)
        {
            return;
        }
        m.askPrice = p;
        access.replace(Replace.newBuilder().setOrderId(m.askOrderId).setPrice(p).build());
    }

    /** Withdraws the machine's ask; with {@code reclaim}, its leases get a notice. */
    protected final void withdraw(final FleetMachine m, final boolean reclaim)
    {
        if (m.askOrderId != 0)
        {
            // also an ask not acknowledged yet: the cancel follows it on the same connection
            access.cancel(m.askOrderId, reclaim);
        }
    }

    @Override
    protected void onStop()
    {
        for (final FleetMachine m : fleet)
        {
            withdraw(m, false);
        }
    }

    @Override
    protected void onHalt()
    {
        halted = true;
    }

    @Override
    protected boolean isOwnAsk(final long orderId)
    {
        return byAsk.containsKey(orderId);
    }

    @Override
    protected long machineOfAsk(final long orderId)
    {
        final FleetMachine m = byAsk.get(orderId);
        return m == null ? 0 : m.machineId;
    }

    protected final FleetMachine machine(final long machineId)
    {
        return byMachineId.get(machineId);
    }

    @Override
    public void onAccepted(final AccountEvent event, final Accepted accepted)
    {
        final FleetMachine m = byAsk.get(accepted.getOrderId());
        if (m != null && m.askOrderId == accepted.getOrderId() && !m.askOpen)
        {
            m.askOpen = true;
            m.record.listed.open(event.getTimeMs());
            if (m.freeGpus() > 0)
            {
                m.idleSinceMs = access.now();
            }
        }
    }

    @Override
    public void onRejected(final AccountEvent event, final Rejected rejected)
    {
        super.onRejected(event, rejected);
        final FleetMachine m = byAsk.get(rejected.getOrderId());
        if (m != null && m.askOrderId == rejected.getOrderId() && !m.askOpen
            && (rejected.getCommand() == CommandKind.CMD_ASK || rejected.getCommand() == CommandKind.COMMAND_KIND_UNSPECIFIED))
        {
            m.askOrderId = 0;
            onAskRefused(m, rejected.getReason());
        }
    }

    /** A machine's ask was refused (e.g. its GPUs are still leased): try again later. */
    protected void onAskRefused(final FleetMachine m, final Reason reason)
    {
        access.schedule(30 * AgentParameters.MINUTE, () ->
        {
            if (m.askOrderId == 0 && !m.reclaimed)
            {
                postAsk(m, m.askPrice);
            }
        });
    }

    @Override
    public void onCancelled(final AccountEvent event, final Cancelled cancelled)
    {
        final FleetMachine m = byAsk.get(cancelled.getOrderId());
        if (m != null && m.askOrderId == cancelled.getOrderId())
        {
            m.askOpen = false;
            m.askOrderId = 0;
            m.idleSinceMs = -1;
            m.record.listed.close(event.getTimeMs());
        }
    }

    @Override
    public void onMachineOnline(final AccountEvent event, final MachineOnline online)
    {
        final FleetMachine m = byMachineId.get(online.getMachineId());
        if (m != null)
        {
            m.record.online.open(event.getTimeMs());
        }
    }

    @Override
    public void onMachineOffline(final AccountEvent event, final MachineOffline offline)
    {
        final FleetMachine m = byMachineId.get(offline.getMachineId());
        if (m != null)
        {
            m.record.online.close(event.getTimeMs());
            if (!m.failed)
            {
                m.record.offlineWithoutFailure++;
            }
        }
    }

    @Override
    protected void onSale(final AccountEvent event, final Fill fill)
    {
        final FleetMachine m = byAsk.get(fill.getOrderId());
        records.sales.add(new TradeRecord(event.getTimeMs(), m == null ? "" : m.record.market, fill.getGpus(), fill.getPrice()));
        live.trades.increment();
    }

    @Override
    public void onLeaseStarted(final AccountEvent event, final LeaseStarted started)
    {
        super.onLeaseStarted(event, started);
        if (!started.getRenter())
        {
            final FleetMachine m = byMachineId.get(started.getMachineId());
            if (m != null)
            {
                m.accountLeased(access.now());
                m.leasedGpus += started.getGpus();
                if (m.freeGpus() == 0)
                {
                    m.idleSinceMs = -1;
                }
            }
        }
    }

    @Override
    public void onLeaseEnded(final AccountEvent event, final LeaseEnded ended)
    {
        super.onLeaseEnded(event, ended);
        final LeaseRecord lease = records.ownerLeases.get(ended.getLeaseId());
        if (lease != null && lease.started())
        {
            final FleetMachine m = byMachineId.get(lease.machineId);
            if (m != null)
            {
                m.accountLeased(access.now());
                m.leasedGpus -= lease.gpus;
                if (m.askOpen && m.idleSinceMs < 0 && m.freeGpus() > 0)
                {
                    m.idleSinceMs = access.now();
                }
            }
        }
    }
}
