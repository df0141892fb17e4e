package io.gpux.engine;

import io.gpux.engine.book.BookSide;
import io.gpux.engine.book.PriceLevel;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.Roles;
import io.gpux.engine.event.Event;
import io.gpux.engine.event.RejectReason;
import io.gpux.engine.funds.Account;
import io.gpux.common.Money;
import io.gpux.engine.machine.Machine;
import io.gpux.engine.market.Market;

import java.util.Arrays;

/**
 * The exchange's own commands: markets, configuration, accounts, deposits, machines, halt and resume,
 * and the BOOK query. On the gateway they need the ADMIN role (13.32); the engine applies them as given.
 */
final class Admin
{
    private static final int MAX_FEE_BPS = 500;
    /** Bounds that keep every time and amount far from overflow (market-rules.md, 13, "Limits on amounts"). */
    static final long MAX_GRACE_MS = 7L * 86_400_000L;
    static final long MAX_PREPAY_MS = 366L * 86_400_000L;
    static final long MAX_GPUS_PER_ORDER = Integer.MAX_VALUE;
    static final long MAX_HEARTBEAT_MS = 30L * 86_400_000L;

    private final MatchingEngine engine;

    Admin(final MatchingEngine engine)
    {
        this.engine = engine;
    }

    void market(final Command cmd)
    {
        if (engine.markets.containsKey(cmd.marketId))
        {
            engine.out.rejected(cmd, RejectReason.DUPLICATE_ID);
            return;
        }
        final long tick = cmd.tick == Command.ABSENT ? Market.DEFAULT_TICK : cmd.tick;
        final long grace = cmd.graceMs == Command.ABSENT ? Market.DEFAULT_GRACE_MS : cmd.graceMs;
        final long fee = cmd.feeBps == Command.ABSENT ? Market.DEFAULT_FEE_BPS : cmd.feeBps;
        final long prepay = cmd.prepayMs == Command.ABSENT ? Market.DEFAULT_PREPAY_MS : cmd.prepayMs;
        final long maxGpus = cmd.maxGpusPerOrder == Command.ABSENT ? Market.DEFAULT_MAX_GPUS_PER_ORDER : cmd.maxGpusPerOrder;
        final long minIncrement = cmd.minIncrement == Command.ABSENT ? tick : cmd.minIncrement;
        final long incrementBps = cmd.preemptIncrementBps == Command.ABSENT ? 0 : cmd.preemptIncrementBps;
        final boolean valid = Market.validSymbol(cmd.name) && tick > 0 && tick <= Money.MAX_PRICE_TICKS &&
            grace >= 0 && grace <= MAX_GRACE_MS && fee >= 0 && fee <= MAX_FEE_BPS &&
            prepay > 0 && prepay <= MAX_PREPAY_MS && maxGpus >= 1 && maxGpus <= MAX_GPUS_PER_ORDER &&
            minIncrement > 0 && minIncrement <= Money.MAX_PRICE_TICKS && minIncrement % tick == 0 &&
            incrementBps >= 0 && incrementBps <= Market.MAX_PREEMPT_INCREMENT_BPS;
        if (!valid)
        {
            engine.out.rejected(cmd, RejectReason.INVALID_PARAMETER);
            return;
        }
        final Market market = new Market(cmd.marketId, cmd.name);
        market.tick = tick;
        market.graceMs = grace;
        market.feeBps = (int)fee;
        market.prepayMs = prepay;
        market.maxGpusPerOrder = (int)maxGpus;
        market.minIncrement = minIncrement;
        market.preemptIncrementBps = (int)incrementBps;
        market.fragmentFirst = cmd.fragmentFirst;
        market.preemption = cmd.preemption != 0;
        engine.markets.put(market.id, market);
    }

    void config(final Command cmd)
    {
        final boolean valid =
            (cmd.heartbeatIntervalMs == Command.ABSENT || cmd.heartbeatIntervalMs > 0 && cmd.heartbeatIntervalMs <= MAX_HEARTBEAT_MS) &&
            (cmd.heartbeatTimeoutMs == Command.ABSENT || cmd.heartbeatTimeoutMs >= 0 && cmd.heartbeatTimeoutMs <= MAX_HEARTBEAT_MS) &&
            (cmd.restartWindowMs == Command.ABSENT || cmd.restartWindowMs >= 0 && cmd.restartWindowMs <= MAX_HEARTBEAT_MS);
        if (!valid)
        {
            engine.out.rejected(cmd, RejectReason.INVALID_PARAMETER);
            return;
        }
        if (cmd.heartbeatIntervalMs != Command.ABSENT)
        {
            engine.heartbeatIntervalMs = cmd.heartbeatIntervalMs;
        }
        final boolean timeoutChanged = cmd.heartbeatTimeoutMs != Command.ABSENT && cmd.heartbeatTimeoutMs != engine.heartbeatTimeoutMs;
        final boolean windowChanged = cmd.restartWindowMs != Command.ABSENT && cmd.restartWindowMs != engine.restartWindowMs;
        if (timeoutChanged)
        {
            engine.heartbeatTimeoutMs = cmd.heartbeatTimeoutMs;
        }
        if (windowChanged)
        {
            engine.restartWindowMs = cmd.restartWindowMs;
        }
        if (timeoutChanged || windowChanged)
        {
            for (final Machine machine : machinesById())
            {
                if (machine.online && (timeoutChanged || engine.machineMonitor.inRestartWindow(machine)))
                {
                    engine.machineMonitor.scheduleTimeout(machine);
                }
            }
        }
    }

    private Machine[] machinesById()
    {
        final Machine[] all = engine.machines.values().toArray(new Machine[0]);
        Arrays.sort(all, (a, b) -> Long.compare(a.id, b.id));
        return all;
    }

    void account(final Command cmd)
    {
        if (engine.accounts.containsKey(cmd.accountId))
        {
            engine.out.rejected(cmd, RejectReason.DUPLICATE_ID);
            return;
        }
        if (cmd.roles == 0 || cmd.name == null || cmd.name.isEmpty())
        {
            engine.out.rejected(cmd, RejectReason.INVALID_PARAMETER);
            return;
        }
        engine.accounts.put(cmd.accountId, new Account(cmd.accountId, cmd.name, cmd.roles, engine.openOrders));
    }

    void deposit(final Command cmd)
    {
        final Account account = engine.accounts.get(cmd.accountId);
        if (account == null)
        {
            engine.out.rejected(cmd, RejectReason.UNKNOWN_ACCOUNT);
            return;
        }
        if (cmd.amount == Command.ABSENT || cmd.amount <= 0 || cmd.amount > Money.MAX_TOTAL_MONEY - engine.moneyInExchange)
        {
            engine.out.rejected(cmd, RejectReason.INVALID_PARAMETER);
            return;
        }
        account.balance += cmd.amount;
        engine.moneyInExchange += cmd.amount;
        engine.out.balance(account.id, account.balance, account.available());
    }

    void machine(final Command cmd)
    {
        final Account owner = engine.accounts.get(cmd.accountId);
        if (owner == null)
        {
            engine.out.rejected(cmd, RejectReason.UNKNOWN_ACCOUNT);
            return;
        }
        if (!Roles.canAsk(owner.roles))
        {
            engine.out.rejected(cmd, RejectReason.NOT_AUTHORIZED);
            return;
        }
        final Market market = engine.markets.get(cmd.marketId);
        if (market == null)
        {
            engine.out.rejected(cmd, RejectReason.UNKNOWN_MARKET);
            return;
        }
        if (engine.machines.containsKey(cmd.machineId))
        {
            engine.out.rejected(cmd, RejectReason.DUPLICATE_ID);
            return;
        }
        if (cmd.gpus < 1)
        {
            engine.out.rejected(cmd, RejectReason.INVALID_QUANTITY);
            return;
        }
        final Machine machine = new Machine(
            cmd.machineId, cmd.name, owner, market, cmd.gpus, cmd.regionId,
            cmd.vramGb == Command.ABSENT ? 0 : cmd.vramGb, cmd.interconnectId, engine.out.now);
        engine.machines.put(machine.id, machine);
        owner.addMachine(machine);
        market.machineAdded(machine.regionId, machine.gpus);
        engine.touch(machine);
        engine.machineMonitor.registered(machine);
    }

    void halt(final Command cmd)
    {
        final Market market = engine.markets.get(cmd.marketId);
        if (market == null)
        {
            engine.out.rejected(cmd, RejectReason.UNKNOWN_MARKET);
            return;
        }
        market.halted = true;
        engine.touchMarkets();
    }

    void resume(final Command cmd)
    {
        final Market market = engine.markets.get(cmd.marketId);
        if (market == null)
        {
            engine.out.rejected(cmd, RejectReason.UNKNOWN_MARKET);
            return;
        }
        if (market.halted)
        {
            market.halted = false;
            engine.touchMarkets();
            engine.matcher.rematchMarket(market);
        }
    }

    void book(final Command cmd)
    {
        final Market market = engine.markets.get(cmd.marketId);
        if (market == null)
        {
            engine.out.rejected(cmd, RejectReason.UNKNOWN_MARKET);
            return;
        }
        final long depth = cmd.depth == Command.ABSENT ? 10 : cmd.depth;
        if (depth < 1)
        {
            engine.out.rejected(cmd, RejectReason.INVALID_PARAMETER);
            return;
        }
        final Event e = engine.out.bookEvent();
        e.marketId = market.id;
        final int bidLevels = (int)Math.min(depth, market.bids.levelCount());
        final int askLevels = (int)Math.min(depth, market.asks.levelCount());
        e.ensureBookCapacity(Math.max(bidLevels, askLevels));
        e.bidLevels = copyLevels(market.bids, bidLevels, e.bidPrices, e.bidGpus);
        e.askLevels = copyLevels(market.asks, askLevels, e.askPrices, e.askGpus);
        engine.out.emit(e);
    }

    private static int copyLevels(final BookSide side, final int n, final long[] prices, final long[] gpus)
    {
        for (int i = 0; i < n; i++)
        {
            final PriceLevel level = side.level(i);
            prices[i] = level.price();
            gpus[i] = level.gpus();
        }
        return n;
    }
}
