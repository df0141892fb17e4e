package io.gpux.sim.market;

import io.gpux.client.CompositeListener;
import io.gpux.engine.MatchingEngine;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.funds.Account;
import io.gpux.gateway.embedded.EmbeddedGateway;
import io.gpux.gateway.embedded.EmbeddedRequest;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.BookSnapshot;
import io.gpux.proto.v1.BookUpdate;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.Trade;
import io.gpux.sim.agent.Catalogue;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * An exchange in one thread with a simulated clock: the gateway's protocol logic
 * ({@link EmbeddedGateway}) around the matching engine, driven by a discrete-event loop, no network,
 * no journal, no waiting. The same agents as the demo run against its {@link SimulatedAccess}es, and
 * see what a {@code GpuxClient} would show them.
 *
 * <p>The loop: tasks (agent timers, the exchange's ticks) sit in a queue ordered by market time, then
 * by scheduling order; running one may send requests, which the embedded gateway checks at once and
 * which then wait in an input queue, like the gateway's input ring. Each is applied at the current
 * market time, then what it caused goes out in the engine's order (account events to their accounts,
 * trades and book changes to the market's subscribers), then its Response to its sender. What the
 * listeners do in turn is queued and applied after. Everything is deterministic: the same agents with
 * the same seeds give the same run.
 *
 * <p>A TICK every {@link #TICK_MS} fires the engine's timers in a quiet market, as the exchange's
 * ticker does.
 */
public final class SimulatedExchange implements EmbeddedGateway.Output
{
    /** Market time between two ticks. */
    public static final long TICK_MS = 60_000;

    private final EmbeddedGateway gateway = new EmbeddedGateway(this);
    private final PriorityQueue<Task> tasks = new PriorityQueue<>();
    private final ArrayDeque<Pending> input = new ArrayDeque<>();
    private final List<Delivery> outbox = new ArrayList<>();
    private final Long2ObjectHashMap<SimulatedAccess> accounts = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<List<SimulatedAccess>> subscribers = new Long2ObjectHashMap<>();
    private final Command tick = new Command();
    private long now;
    private long taskSeq;
    private long deposits;
    private boolean draining;
    private boolean ticking;

    public SimulatedExchange(final long startMs, final MarketRules rules, final List<String> marketSymbols)
    {
        this.now = startMs;
        for (final String symbol : marketSymbols)
        {
            final Command c = new Command().reset(CommandType.MARKET, now);
            c.graceMs = rules.graceMs();
            c.prepayMs = rules.prepayMs();
            c.feeBps = rules.feeBps();
            c.minIncrement = Catalogue.bySymbol(symbol).minIncrement();
            c.preemptIncrementBps = rules.preemptIncrementBps();
            c.fragmentFirst = rules.fragmentFirst();
            adminCommand(gateway.createMarket(symbol, c));
        }
        final Command config = new Command().reset(CommandType.CONFIG, now);
        config.heartbeatIntervalMs = rules.heartbeatIntervalMs();
        config.heartbeatTimeoutMs = rules.heartbeatTimeoutMs();
        config.restartWindowMs = rules.restartWindowMs();
        adminCommand(gateway.command(config));
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
        input.add(new Pending(null, 0, gateway.command(tick)));
        schedule(TICK_MS, this::onTick);
    }

    /** Creates an account with its roles, deposits {@code deposit} micro-units, and returns its access. */
    public SimulatedAccess createAccount(final String name, final int roles, final long deposit)
    {
        final EmbeddedRequest account = gateway.createAccount(name, roles);
        final SimulatedAccess access = new SimulatedAccess(this, account.assignedId(), name);
        accounts.put(access.accountId(), access);
        adminCommand(account);
        if (deposit > 0)
        {
            final Command d = new Command().reset(CommandType.DEPOSIT, now);
            d.accountId = access.accountId();
            d.amount = deposit;
            adminCommand(gateway.command(d));
            deposits += deposit;
        }
        return access;
    }

    private void adminCommand(final EmbeddedRequest request)
    {
        input.add(new Pending(null, 0, request));
        drain();
    }

    public long now()
    {
        return now;
    }

    public MatchingEngine engine()
    {
        return gateway.engine();
    }

    /** The gateway logic the accounts' requests go through. */
    EmbeddedGateway gateway()
    {
        return gateway;
    }

    /** Every deposit made, in micro-units. */
    public long deposits()
    {
        return deposits;
    }

    /** Commands applied by the engine. */
    public long commandsApplied()
    {
        return engine().commandCount();
    }

    /** True if no balance is negative. */
    public boolean noNegativeBalance()
    {
        for (final Account a : engine().accounts())
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

    void schedule(final long delayMs, final Runnable task)
    {
        tasks.add(new Task(now + Math.max(0, delayMs), taskSeq++, task));
    }

    /** A request of {@code issuer}, as the embedded gateway took it in, waits for its turn. */
    void enqueue(final SimulatedAccess issuer, final long requestId, final EmbeddedRequest request)
    {
        input.add(new Pending(issuer, requestId, request));
    }

    // ------------------------------------------------------------------------------------------
    // Applying requests and delivering what they cause

    private void drain()
    {
        if (draining)
        {
            return;
        }
        draining = true;
        try
        {
            Pending p;
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

    private void apply(final Pending p)
    {
        if (p.request.subscription())
        {
            // like the gateway: the snapshot is taken in the command stream, the updates after it follow it
            final List<SimulatedAccess> subs = subscribers.computeIfAbsent(p.request.assignedId(), k -> new ArrayList<>());
            if (!subs.contains(p.issuer))
            {
                subs.add(p.issuer);
            }
            outbox.add(new Delivery(p.issuer, p.requestId, gateway.snapshot(p.request)));
            return;
        }
        final Response response = gateway.apply(p.request, now);
        if (p.issuer != null)
        {
            outbox.add(new Delivery(p.issuer, p.requestId, response));
        }
    }

    @Override
    public void onAccountEvent(final long accountId, final AccountEvent event)
    {
        final SimulatedAccess to = accounts.get(accountId);
        if (to != null)
        {
            outbox.add(new Delivery(to, 0, event));
        }
    }

    @Override
    public void onTrade(final long marketId, final Trade trade)
    {
        toSubscribers(marketId, trade);
    }

    @Override
    public void onBookUpdate(final long marketId, final BookUpdate update)
    {
        toSubscribers(marketId, update);
    }

    private void toSubscribers(final long marketId, final Object message)
    {
        final List<SimulatedAccess> subs = subscribers.get(marketId);
        if (subs != null)
        {
            for (final SimulatedAccess s : subs)
            {
                outbox.add(new Delivery(s, 0, message));
            }
        }
    }

    private void flush()
    {
        for (int i = 0; i < outbox.size(); i++)
        {
            final Delivery d = outbox.get(i);
            final CompositeListener l = d.to.listeners();
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
            else if (d.message instanceof BookUpdate update)
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

    private record Task(long dueMs, long seq, Runnable task) implements Comparable<Task>
    {
        @Override
        public int compareTo(final Task o)
        {
            final int byTime = Long.compare(dueMs, o.dueMs);
            return byTime != 0 ? byTime : Long.compare(seq, o.seq);
        }
    }

    /** A request waiting for its turn; an administrator's or the ticker's has no issuer. */
    private record Pending(SimulatedAccess issuer, long requestId, EmbeddedRequest request)
    {
    }

    private record Delivery(SimulatedAccess to, long requestId, Object message)
    {
    }
}
