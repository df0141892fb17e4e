package io.gpux.sim.market;

import io.gpux.client.ClientListener;
import io.gpux.client.CompositeListener;
import io.gpux.engine.MatchingEngine;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.command.TimeInForce;
import io.gpux.engine.event.Event;
import io.gpux.engine.event.EventType;
import io.gpux.engine.event.RejectReason;
import io.gpux.engine.funds.Account;
import io.gpux.gateway.directory.Directory;
import io.gpux.gateway.egress.EventRouter;
import io.gpux.gateway.egress.ProtoMapping;
import io.gpux.gateway.marketdata.MarketData;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.BookSnapshot;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Replace;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.Trade;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * An exchange in one thread with a simulated clock: the matching engine driven directly by a
 * discrete-event loop, no network, no journal, no waiting. The same agents as the demo run against
 * its {@link MarketAccess}es, and see what a {@code GpuxClient} would show them.
 *
 * <p>The loop: tasks (agent timers, the exchange's ticks) sit in a queue ordered by market time, then
 * by scheduling order; running one may issue commands, which wait in an input queue, like the
 * gateway's input ring. Each command is applied at the current market time, then its events go out,
 * in the engine's order, as the gateway would route them (private events to their accounts with each
 * account's gap-free numbering, by the rules of {@link EventRouter}; trades and book changes to the
 * market's subscribers), then the command's Response to its sender. What the listeners do in turn is
 * queued and applied after. Everything is deterministic: the same agents with the same seeds give
 * the same run.
 *
 * <p>Gateway behaviour reproduced: ids from a gateway {@link Directory}, the request checks that
 * matter to the agents (unknown market, machine not the account's), machine registration by name,
 * book snapshots and updates from the gateway's own {@link MarketData}. A TICK every
 * {@link #TICK_MS} fires the engine's timers in a quiet market, as the exchange's ticker does.
 */
public final class SimulatedExchange
{
    /** Market time between two ticks. */
    public static final long TICK_MS = 60_000;

    private final MatchingEngine engine;
    private final Directory directory = new Directory();
    private final MarketData marketData;
    private final PriorityQueue<Task> tasks = new PriorityQueue<>();
    private final ArrayDeque<PendingCommand> input = new ArrayDeque<>();
    private final List<Delivery> outbox = new ArrayList<>();
    private final Long2ObjectHashMap<SimulatedAccess> accounts = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<List<SimulatedAccess>> subscribers = new Long2ObjectHashMap<>();
    private final long[] recipients = new long[2];
    private final Command tick = new Command();
    private long now;
    private long taskSeq;
    private long commandSeq;
    private long deposits;
    private PendingCommand current;
    private RejectReason currentReject;
    private boolean draining;
    private boolean ticking;

    public SimulatedExchange(final long startMs, final MarketRules rules, final List<String> marketSymbols)
    {
        this.now = startMs;
        this.engine = new MatchingEngine(this::onEngineEvent);
        this.marketData = new MarketData(this::onBookUpdate);
        for (final String symbol : marketSymbols)
        {
            final Directory.MarketEntry m = directory.newMarket(symbol);
            final Command c = new Command().reset(CommandType.MARKET, now);
            c.marketId = m.id();
            c.name = symbol;
            c.graceMs = rules.graceMs();
            c.prepayMs = rules.prepayMs();
            c.feeBps = rules.feeBps();
            c.minIncrement = io.gpux.sim.agent.Catalogue.bySymbol(symbol).minIncrement();
            c.preemptIncrementBps = rules.preemptIncrementBps();
            c.fragmentFirst = rules.fragmentFirst();
            adminCommand(c);
        }
        final Command config = new Command().reset(CommandType.CONFIG, now);
        config.heartbeatIntervalMs = rules.heartbeatIntervalMs();
        config.heartbeatTimeoutMs = rules.heartbeatTimeoutMs();
        config.restartWindowMs = rules.restartWindowMs();
        adminCommand(config);
    }

    /** Starts the exchange's ticker (a TICK every {@link #TICK_MS}). */
    public void startTicker()
    {
        if (!ticking)
        {
            ticking = true;
            schedule(TICK_MS, this::onTick);
        }
    }

    private void onTick()
    {
        tick.reset(CommandType.TICK, now);
        input.add(new PendingCommand(null, 0, copy(tick), (byte)0, 0));
        schedule(TICK_MS, this::onTick);
    }

    /** Creates an account with its roles, deposits {@code deposit} micro-units, and returns its access. */
    public SimulatedAccess createAccount(final String name, final int roles, final long deposit)
    {
        final Directory.AccountEntry a = directory.newAccount(name, roles);
        if (a == null)
        {
            throw new IllegalArgumentException("account " + name + " exists");
        }
        final SimulatedAccess access = new SimulatedAccess(a.id(), name);
        accounts.put(a.id(), access);
        final Command c = new Command().reset(CommandType.ACCOUNT, now);
        c.accountId = a.id();
        c.name = name;
        c.roles = roles;
        adminCommand(c);
        if (deposit > 0)
        {
            final Command d = new Command().reset(CommandType.DEPOSIT, now);
            d.accountId = a.id();
            d.amount = deposit;
            adminCommand(d);
            deposits += deposit;
        }
        return access;
    }

    private void adminCommand(final Command c)
    {
        input.add(new PendingCommand(null, 0, c, (byte)0, 0));
        drain();
    }

    public long now()
    {
        return now;
    }

    public MatchingEngine engine()
    {
        return engine;
    }

    /** Every deposit made, in micro-units. */
    public long deposits()
    {
        return deposits;
    }

    /** Commands applied by the engine. */
    public long commandsApplied()
    {
        return engine.commandCount();
    }

    /** True if no balance is negative. */
    public boolean noNegativeBalance()
    {
        for (final Account a : engine.accounts())
        {
            if (a.balance < 0)
            {
                return false;
            }
        }
        return true;
    }

    /** Runs the tasks due up to {@code endMs} (and the commands they cause), then sets the clock to {@code endMs}. */
    public void runUntil(final long endMs)
    {
        drain();
        Task t;
        while ((t = tasks.peek()) != null && t.dueMs <= endMs)
        {
            tasks.poll();
            now = Math.max(now, t.dueMs);
            t.task.run();
            drain();
        }
        now = Math.max(now, endMs);
    }

    private void schedule(final long delayMs, final Runnable task)
    {
        tasks.add(new Task(now + Math.max(0, delayMs), taskSeq++, task));
    }

    // ------------------------------------------------------------------------------------------
    // Applying commands and routing what they cause

    private void drain()
    {
        if (draining)
        {
            return;
        }
        draining = true;
        try
        {
            PendingCommand p;
            while ((p = input.poll()) != null)
            {
                apply(p);
                flush();
            }
        }
        finally
        {
            draining = false;
        }
    }

    private void apply(final PendingCommand p)
    {
        if (p.immediate != null)
        {
            outbox.add(new Delivery(p.issuer, p.requestId, p.immediate));
            return;
        }
        if (p.kind == KIND_SUBSCRIBE)
        {
            // like the gateway: the snapshot is taken in the command stream, the updates after it follow it
            final List<SimulatedAccess> subs = subscribers.computeIfAbsent(p.assignedId, k -> new ArrayList<>());
            if (!subs.contains(p.issuer))
            {
                subs.add(p.issuer);
            }
            final Envelope snapshot = marketData.snapshot(engine, p.assignedId);
            outbox.add(new Delivery(p.issuer, p.requestId, snapshot.getBookSnapshot()));
            return;
        }
        final Command c = p.command;
        c.timeMs = now;
        c.sequence = ++commandSeq;
        current = p;
        currentReject = null;
        engine.apply(c);
        current = null;
        marketData.onBatchApplied(engine);
        if (p.issuer != null)
        {
            final Response.Builder r = Response.newBuilder()
                .setReason(ProtoMapping.reason(currentReject))
                .setCommandSeq(c.sequence);
            if (p.kind == KIND_NEW_MACHINE)
            {
                if (currentReject == null)
                {
                    r.setAssignedId(p.assignedId);
                }
                else
                {
                    directory.forgetMachine(p.assignedId);
                }
            }
            outbox.add(new Delivery(p.issuer, p.requestId, r.build()));
        }
    }

    private void onEngineEvent(final Event e)
    {
        if (e.type == EventType.TRADE)
        {
            final List<SimulatedAccess> subs = subscribers.get(e.marketId);
            if (subs != null)
            {
                final Trade trade = Trade.newBuilder().setMarket(directory.marketSymbol(e.marketId)).setGpus(e.gpus)
                    .setPrice(e.price).setTimeMs(e.timeMs).setEngineSeq(e.sequence).build();
                for (final SimulatedAccess s : subs)
                {
                    outbox.add(new Delivery(s, 0, trade));
                }
            }
            return;
        }
        if (e.type == EventType.BOOK)
        {
            return;
        }
        if (e.type == EventType.REJECTED && current != null && current.issuer != null && e.accountId == current.issuer.accountId)
        {
            currentReject = e.rejectReason;
        }
        final int n = EventRouter.recipients(e, recipients);
        for (int i = 0; i < n; i++)
        {
            final SimulatedAccess to = accounts.get(recipients[i]);
            if (to != null)
            {
                final AccountEvent event = ProtoMapping.accountEvent(e, recipients[i], ++to.lastSeq, directory);
                outbox.add(new Delivery(to, 0, event));
            }
        }
    }

    private void onBookUpdate(final long marketId, final Envelope update)
    {
        final List<SimulatedAccess> subs = subscribers.get(marketId);
        if (subs != null)
        {
            for (final SimulatedAccess s : subs)
            {
                outbox.add(new Delivery(s, 0, update.getBookUpdate()));
            }
        }
    }

    private void flush()
    {
        for (int i = 0; i < outbox.size(); i++)
        {
            final Delivery d = outbox.get(i);
            final CompositeListener l = d.to.listeners;
            if (d.message instanceof AccountEvent event)
            {
                l.onEvent(event);
            }
            else if (d.message instanceof Response response)
            {
                l.onResponse(d.requestId, response);
            }
            else if (d.message instanceof Trade trade)
            {
                l.onTrade(trade);
            }
            else if (d.message instanceof io.gpux.proto.v1.BookUpdate update)
            {
                l.onBookUpdate(update);
            }
            else if (d.message instanceof BookSnapshot snapshot)
            {
                l.onBookSnapshot(snapshot);
            }
        }
        outbox.clear();
    }

    private static Command copy(final Command c)
    {
        final Command copy = new Command();
        copy.copyFrom(c);
        return copy;
    }

    private static final byte KIND_COMMAND = 0;
    private static final byte KIND_NEW_MACHINE = 1;
    private static final byte KIND_SUBSCRIBE = 2;

    private record Task(long dueMs, long seq, Runnable task) implements Comparable<Task>
    {
        @Override
        public int compareTo(final Task o)
        {
            final int byTime = Long.compare(dueMs, o.dueMs);
            return byTime != 0 ? byTime : Long.compare(seq, o.seq);
        }
    }

    /** A command waiting for the engine, or (immediate != null) an answer the gateway gives without it. */
    private static final class PendingCommand
    {
        final SimulatedAccess issuer;
        final long requestId;
        final Command command;
        final byte kind;
        final long assignedId;
        final Object immediate;

        PendingCommand(final SimulatedAccess issuer, final long requestId, final Command command, final byte kind,
            final long assignedId)
        {
            this.issuer = issuer;
            this.requestId = requestId;
            this.command = command;
            this.kind = kind;
            this.assignedId = assignedId;
            this.immediate = null;
        }

        PendingCommand(final SimulatedAccess issuer, final long requestId, final Object immediate)
        {
            this.issuer = issuer;
            this.requestId = requestId;
            this.command = null;
            this.kind = KIND_COMMAND;
            this.assignedId = 0;
            this.immediate = immediate;
        }
    }

    private record Delivery(SimulatedAccess to, long requestId, Object message)
    {
    }

    // ------------------------------------------------------------------------------------------

    /** One account's {@link MarketAccess} on the simulated exchange. */
    public final class SimulatedAccess implements MarketAccess
    {
        final long accountId;
        final String name;
        final CompositeListener listeners = new CompositeListener();
        long lastSeq;
        private long requestIds;
        private long orderIds;
        private long commandsSent;

        SimulatedAccess(final long accountId, final String name)
        {
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
            return engine.account(accountId).balance;
        }

        /** Requests this account sent. */
        public long commandsSent()
        {
            return commandsSent;
        }

        @Override
        public String account()
        {
            return name;
        }

        @Override
        public long now()
        {
            return now;
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
            SimulatedExchange.this.schedule(delayMs, task);
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

        private Command stage(final CommandType type)
        {
            final Command c = new Command().reset(type, now);
            c.accountId = accountId;
            return c;
        }

        private long enqueue(final Command c)
        {
            return enqueue(c, KIND_COMMAND, 0);
        }

        private long enqueue(final Command c, final byte kind, final long assignedId)
        {
            final long requestId = ++requestIds;
            commandsSent++;
            input.add(new PendingCommand(this, requestId, c, kind, assignedId));
            return requestId;
        }

        private long answer(final Reason reason, final String message)
        {
            final long requestId = ++requestIds;
            commandsSent++;
            input.add(new PendingCommand(this, requestId, Response.newBuilder().setReason(reason).setMessage(message).build()));
            return requestId;
        }

        @Override
        public long placeBid(final PlaceBid b)
        {
            final Directory.MarketEntry m = directory.market(b.getMarket());
            if (m == null)
            {
                return answer(Reason.UNKNOWN_MARKET, b.getMarket());
            }
            final Command c = stage(CommandType.BID);
            c.orderId = b.getOrderId();
            c.marketId = m.id();
            c.gpus = b.getGpus();
            c.price = b.getPrice();
            c.tif = tif(b.getTifValue());
            c.postOnly = b.getPostOnly();
            c.noPreempt = b.getNoPreempt();
            c.gang = b.getGang();
            c.minReliabilityPpb = b.getMinReliabilityPpm() == 0 ? Command.ABSENT : b.getMinReliabilityPpm() * 1000;
            c.regionId = Directory.nameId(b.getRegion());
            c.maxDurationMs = b.getMaxDurationMs() == 0 ? Command.ABSENT : b.getMaxDurationMs();
            return enqueue(c);
        }

        @Override
        public long placeAsk(final PlaceAsk a)
        {
            final Command c = stage(CommandType.ASK);
            c.orderId = a.getOrderId();
            c.machineId = a.getMachineId();
            c.gpus = a.getGpus();
            c.price = a.getPrice();
            c.tif = tif(a.getTifValue());
            c.postOnly = a.getPostOnly();
            return enqueue(c);
        }

        @Override
        public long cancel(final long orderId, final boolean reclaim)
        {
            final Command c = stage(CommandType.CANCEL);
            c.orderId = orderId;
            c.reclaim = reclaim;
            return enqueue(c);
        }

        @Override
        public long replace(final Replace r)
        {
            final Command c = stage(CommandType.REPLACE);
            c.orderId = r.getOrderId();
            if (r.hasPrice())
            {
                c.price = r.getPrice();
            }
            if (r.hasGpus())
            {
                c.gpus = r.getGpus();
            }
            return enqueue(c);
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
            releaseHook.accept(leaseId);
            final Command c = stage(CommandType.RELEASE);
            c.leaseId = leaseId;
            return enqueue(c);
        }

        @Override
        public long registerMachine(final RegisterMachine r)
        {
            final Directory.MarketEntry m = directory.market(r.getMarket());
            if (m == null)
            {
                return answer(Reason.UNKNOWN_MARKET, r.getMarket());
            }
            final boolean[] created = new boolean[1];
            final Directory.MachineEntry machine = directory.machineFor(accountId, r.getName(), m.id(), created);
            if (!created[0])
            {
                final long requestId = ++requestIds;
                input.add(new PendingCommand(this, requestId, Response.newBuilder().setReason(Reason.REASON_OK)
                    .setAssignedId(machine.id()).setMessage("already registered").build()));
                return requestId;
            }
            final Command c = stage(CommandType.MACHINE);
            c.machineId = machine.id();
            c.marketId = m.id();
            c.name = Directory.engineMachineName(name, r.getName());
            c.gpus = r.getGpus();
            c.regionId = Directory.nameId(r.getRegion());
            c.vramGb = r.getVramGb() == 0 ? Command.ABSENT : r.getVramGb();
            c.interconnectId = Directory.nameId(r.getInterconnect());
            return enqueue(c, KIND_NEW_MACHINE, machine.id());
        }

        @Override
        public long machineHeartbeat(final MachineHeartbeat heartbeat)
        {
            final long machineId = heartbeat.getMachineId();
            final Directory.MachineEntry machine = directory.machine(machineId);
            if (machine == null)
            {
                return answer(Reason.UNKNOWN_MACHINE, "machine " + machineId);
            }
            if (machine.ownerId() != accountId)
            {
                return answer(Reason.NOT_OWNER, "machine " + machineId);
            }
            final Command c = stage(CommandType.HEARTBEAT);
            c.machineId = machineId;
            return enqueue(c);
        }

        @Override
        public long subscribe(final String market)
        {
            final Directory.MarketEntry m = directory.market(market);
            if (m == null)
            {
                return answer(Reason.UNKNOWN_MARKET, market);
            }
            final long requestId = ++requestIds;
            input.add(new PendingCommand(this, requestId, null, KIND_SUBSCRIBE, m.id()));
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

    private static TimeInForce tif(final int value)
    {
        return switch (value)
        {
            case 1 -> TimeInForce.IOC;
            case 2 -> TimeInForce.FOK;
            default -> TimeInForce.GTC;
        };
    }

}
