package io.gpux.engine;

import io.gpux.engine.book.Order;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.Roles;
import io.gpux.engine.command.TimeInForce;
import io.gpux.engine.event.CancelReason;
import io.gpux.engine.event.NoticeReason;
import io.gpux.engine.event.RejectReason;
import io.gpux.engine.funds.Account;
import io.gpux.common.Money;
import io.gpux.engine.lease.Lease;
import io.gpux.engine.machine.Machine;
import io.gpux.engine.market.Market;

/**
 * Order entry: ask, bid, cancel, replace, mass cancel. Checks run in the order of rulebook 13.3; a
 * rejected command changes nothing.
 */
final class OrderEntry
{
    private static final long PPB_ONE = 1_000_000_000L;

    private final MatchingEngine engine;
    /** What the last {@link #checkBid} / {@link #checkAsk} looked up (valid once it passed the lookups). */
    Account checkedAccount;
    Market checkedMarket;
    Machine checkedMachine;

    OrderEntry(final MatchingEngine engine)
    {
        this.engine = engine;
    }

    void bid(final Command cmd)
    {
        final RejectReason reason = checkBid(cmd);
        if (reason != null)
        {
            engine.out.rejected(cmd, reason);
            return;
        }
        final Account account = checkedAccount;
        final Market market = checkedMarket;
        final Order bid = fillBid(engine.orders.acquire(), cmd, account, market);
        final long hold = Funds.bidHold(market, bid.openGpus, bid.price, bid.maxDurationMs);
        if (hold > account.available())
        {
            engine.orders.release(bid);
            engine.out.rejected(cmd, RejectReason.INSUFFICIENT_FUNDS);
            return;
        }
        if (bid.postOnly && engine.matcher.bidWouldMatch(bid, bid.price, bid.openGpus))
        {
            engine.orders.release(bid);
            engine.out.rejected(cmd, RejectReason.POST_ONLY_WOULD_MATCH);
            return;
        }
        bid.priority = engine.nextPriority();
        bid.acceptSeq = bid.priority;
        bid.open = true;
        bid.hold = hold;
        account.held += hold;
        account.addOpen(bid);
        engine.out.accepted(bid);

        if (bid.tif == TimeInForce.FOK && !bidCanFillAll(bid, bid.price, bid.openGpus))
        {
            engine.out.cancelled(bid, CancelReason.FOK, bid.openGpus);
            close(bid);
            return;
        }
        matchAndRest(bid);
    }

    /** A bid order's fields from a BID command (not yet accepted: no priority, no hold). */
    static Order fillBid(final Order bid, final Command cmd, final Account account, final Market market)
    {
        bid.bid = true;
        bid.account = account;
        bid.market = market;
        bid.machine = null;
        bid.clientOrderId = cmd.orderId;
        bid.price = cmd.price;
        bid.openGpus = cmd.gpus;
        bid.tif = cmd.tif;
        bid.postOnly = cmd.postOnly;
        bid.gang = cmd.gang;
        bid.noPreempt = cmd.noPreempt;
        bid.minReliabilityPpb = cmd.minReliabilityPpb == Command.ABSENT ? -1 : cmd.minReliabilityPpb;
        bid.regionId = cmd.regionId;
        bid.maxDurationMs = cmd.maxDurationMs == Command.ABSENT ? 0 : cmd.maxDurationMs;
        bid.hold = 0;
        return bid;
    }

    /** The longest maxDurationMs: ten years (market-rules.md, 13, "Limits on amounts"). */
    static final long MAX_DURATION_MS = 3_653L * 86_400_000L;

    /**
     * Checks a BID command; when it passes, {@link #checkedAccount} and {@link #checkedMarket} are its
     * account and market.
     */
    RejectReason checkBid(final Command cmd)
    {
        final Account account = engine.accounts.get(cmd.accountId);
        if (account == null)
        {
            return RejectReason.UNKNOWN_ACCOUNT;
        }
        if (!Roles.canBid(account.roles))
        {
            return RejectReason.NOT_AUTHORIZED;
        }
        final Market market = engine.markets.get(cmd.marketId);
        if (market == null)
        {
            return RejectReason.UNKNOWN_MARKET;
        }
        checkedAccount = account;
        checkedMarket = market;
        if (market.halted)
        {
            return RejectReason.MARKET_HALTED;
        }
        if (engine.openOrders.get(cmd.accountId, cmd.orderId) != null)
        {
            return RejectReason.DUPLICATE_ORDER_ID;
        }
        if (!validPrice(market, cmd.price))
        {
            return RejectReason.INVALID_PRICE;
        }
        if (!validQuantity(market, cmd.gpus))
        {
            return RejectReason.INVALID_QUANTITY;
        }
        if (cmd.minReliabilityPpb != Command.ABSENT && (cmd.minReliabilityPpb < 0 || cmd.minReliabilityPpb > PPB_ONE))
        {
            return RejectReason.INVALID_PARAMETER;
        }
        if (cmd.maxDurationMs != Command.ABSENT && (cmd.maxDurationMs <= 0 || cmd.maxDurationMs > MAX_DURATION_MS))
        {
            return RejectReason.INVALID_PARAMETER;
        }
        return null;
    }

    /** Whether a bid's remainder may preempt running leases: its market allows it and the bid is not postOnly or noPreempt. */
    static boolean mayPreempt(final Order bid)
    {
        return bid.market.preemption && !bid.postOnly && !bid.noPreempt;
    }

    private static boolean validPrice(final Market market, final long price)
    {
        final long tick = market.tick;
        return price > 0 && price <= Money.MAX_PRICE_TICKS && (tick == 1 || price % tick == 0);
    }

    private static boolean validQuantity(final Market market, final int gpus)
    {
        return gpus >= 1 && gpus <= market.maxGpusPerOrder;
    }

    boolean bidCanFillAll(final Order bid, final long price, final int gpus)
    {
        final int plain = engine.matcher.plainAvailable(bid, price, gpus, gpus);
        if (plain >= gpus)
        {
            return true;
        }
        if (!mayPreempt(bid))
        {
            return false;
        }
        if (bid.gang)
        {
            return engine.preemptor.gangPreemptionPossible(bid, price, gpus);
        }
        return plain + engine.preemptor.preemptible(bid, price, gpus - plain) >= gpus;
    }

    /** Plain matching, then preemption, then the remainder rests (GTC) or is cancelled (IOC). */
    private void matchAndRest(final Order bid)
    {
        engine.matcher.matchBid(bid);
        if (bid.openGpus > 0 && mayPreempt(bid))
        {
            if (bid.gang)
            {
                engine.preemptor.preemptGang(bid);
            }
            else
            {
                engine.preemptor.preempt(bid);
            }
        }
        if (bid.openGpus == 0)
        {
            close(bid);
        }
        else if (bid.tif == TimeInForce.GTC)
        {
            if (!bid.inBook())
            {
                bid.market.bids.insertByPriority(bid);
            }
        }
        else
        {
            engine.out.cancelled(bid, CancelReason.IOC, bid.openGpus);
            close(bid);
        }
    }

    void ask(final Command cmd)
    {
        final RejectReason reason = checkAsk(cmd);
        if (reason != null)
        {
            engine.out.rejected(cmd, reason);
            return;
        }
        final Account account = checkedAccount;
        final Machine machine = checkedMachine;
        final Order ask = engine.orders.acquire();
        ask.bid = false;
        ask.account = account;
        ask.market = machine.market;
        ask.machine = machine;
        ask.clientOrderId = cmd.orderId;
        ask.price = cmd.price;
        ask.openGpus = cmd.gpus;
        ask.tif = cmd.tif;
        ask.postOnly = cmd.postOnly;
        ask.noPreempt = false;
        ask.gang = false;
        ask.minReliabilityPpb = -1;
        ask.regionId = Command.NONE;
        ask.maxDurationMs = 0;
        ask.hold = 0;
        if (ask.postOnly && engine.matcher.askFillable(ask, ask.price, ask.openGpus, 1) > 0)
        {
            engine.orders.release(ask);
            engine.out.rejected(cmd, RejectReason.POST_ONLY_WOULD_MATCH);
            return;
        }
        ask.priority = engine.nextPriority();
        ask.acceptSeq = ask.priority;
        ask.open = true;
        account.addOpen(ask);
        machine.addAsk(ask);
        machine.offered += ask.openGpus;
        engine.touch(machine);
        engine.out.accepted(ask);

        if (ask.tif == TimeInForce.FOK && engine.matcher.askFillable(ask, ask.price, ask.openGpus, ask.openGpus) < ask.openGpus)
        {
            engine.out.cancelled(ask, CancelReason.FOK, ask.openGpus);
            close(ask);
            return;
        }
        engine.matcher.matchAsk(ask);
        restAsk(ask);
    }

    private void restAsk(final Order ask)
    {
        if (ask.tif != TimeInForce.GTC)
        {
            if (ask.openGpus > 0)
            {
                engine.out.cancelled(ask, CancelReason.IOC, ask.openGpus);
            }
            close(ask);
        }
        else if (ask.openGpus > 0 && ask.machine.online && !ask.inBook())
        {
            ask.market.asks.insertByPriority(ask);
        }
    }

    /** Checks an ASK command; when it passes, {@link #checkedAccount} and {@link #checkedMachine} are its. */
    private RejectReason checkAsk(final Command cmd)
    {
        final Account account = engine.accounts.get(cmd.accountId);
        if (account == null)
        {
            return RejectReason.UNKNOWN_ACCOUNT;
        }
        if (!Roles.canAsk(account.roles))
        {
            return RejectReason.NOT_AUTHORIZED;
        }
        final Machine machine = engine.machines.get(cmd.machineId);
        if (machine == null)
        {
            return RejectReason.UNKNOWN_MACHINE;
        }
        checkedAccount = account;
        checkedMachine = machine;
        if (machine.owner != account)
        {
            return RejectReason.NOT_OWNER;
        }
        final Market market = machine.market;
        if (market.halted)
        {
            return RejectReason.MARKET_HALTED;
        }
        if (engine.openOrders.get(cmd.accountId, cmd.orderId) != null)
        {
            return RejectReason.DUPLICATE_ORDER_ID;
        }
        if (!validPrice(market, cmd.price))
        {
            return RejectReason.INVALID_PRICE;
        }
        if (!validQuantity(market, cmd.gpus))
        {
            return RejectReason.INVALID_QUANTITY;
        }
        if (cmd.gpus > machine.spare())
        {
            return RejectReason.INSUFFICIENT_CAPACITY;
        }
        return null;
    }

    /** A CANCEL or REPLACE that names no open order: its account is unknown, or the order (13.3's order of checks). */
    private void rejectUnknownOrder(final Command cmd)
    {
        engine.out.rejected(cmd, engine.accounts.get(cmd.accountId) == null ? RejectReason.UNKNOWN_ACCOUNT : RejectReason.UNKNOWN_ORDER);
    }

    void cancel(final Command cmd)
    {
        final Order order = engine.openOrders.get(cmd.accountId, cmd.orderId);
        if (order == null)
        {
            rejectUnknownOrder(cmd);
            return;
        }
        if (!order.bid && cmd.reclaim)
        {
            reclaim(order);
            return;
        }
        engine.out.cancelled(order, CancelReason.USER, order.openGpus);
        close(order);
    }

    /** Cancels an ask and gives every lease of its GPUs, running or waiting, a notice (6.7, 13.22). */
    private void reclaim(final Order ask)
    {
        final Machine machine = ask.machine;
        final long uid = ask.uid;
        final long effective = engine.out.now + ask.market.graceMs;
        engine.out.cancelled(ask, CancelReason.OWNER_RECLAIM, ask.openGpus);
        close(ask);
        Lease lease = machine.firstLease;
        while (lease != null)
        {
            final Lease next = lease.machineNext;
            if (lease.notice == null && leasedFrom(lease, uid))
            {
                engine.leaseLifecycle.notice(lease, NoticeReason.OWNER_RECLAIM, effective);
            }
            lease = next;
        }
    }

    private static boolean leasedFrom(final Lease lease, final long askUid)
    {
        for (int i = 0; i < lease.sourceCount; i++)
        {
            if (lease.sourceAskUid[i] == askUid)
            {
                return true;
            }
        }
        return false;
    }

    void massCancel(final Command cmd)
    {
        final Account account = engine.accounts.get(cmd.accountId);
        if (account == null)
        {
            engine.out.rejected(cmd, RejectReason.UNKNOWN_ACCOUNT);
            return;
        }
        if (cmd.hasMarket && engine.markets.get(cmd.marketId) == null)
        {
            engine.out.rejected(cmd, RejectReason.UNKNOWN_MARKET);
            return;
        }
        Order order = account.firstOpen;
        while (order != null)
        {
            final Order next = order.accountNext;
            if (!cmd.hasMarket || order.market.id == cmd.marketId)
            {
                engine.out.cancelled(order, CancelReason.MASS_CANCEL, order.openGpus);
                close(order);
            }
            order = next;
        }
    }

    void replace(final Command cmd)
    {
        final Order order = engine.openOrders.get(cmd.accountId, cmd.orderId);
        if (order == null)
        {
            rejectUnknownOrder(cmd);
            return;
        }
        final Account account = order.account;
        final Market market = order.market;
        if (market.halted)
        {
            engine.out.rejected(cmd, RejectReason.MARKET_HALTED);
            return;
        }
        final long price = cmd.price == Command.ABSENT ? order.price : cmd.price;
        final int gpus = cmd.gpus == Command.ABSENT_INT ? order.openGpus : cmd.gpus;
        if (!validPrice(market, price))
        {
            engine.out.rejected(cmd, RejectReason.INVALID_PRICE);
            return;
        }
        if (cmd.gpus != Command.ABSENT_INT && !validQuantity(market, gpus))
        {
            engine.out.rejected(cmd, RejectReason.INVALID_QUANTITY);
            return;
        }
        long newHold = 0;
        if (order.bid)
        {
            newHold = Funds.bidHold(market, gpus, price, order.maxDurationMs);
            if (newHold - order.hold > account.available())
            {
                engine.out.rejected(cmd, RejectReason.INSUFFICIENT_FUNDS);
                return;
            }
        }
        else if (gpus > order.openGpus && gpus - order.openGpus > order.machine.spare())
        {
            engine.out.rejected(cmd, RejectReason.INSUFFICIENT_CAPACITY);
            return;
        }
        if (order.postOnly && wouldMatch(order, price, gpus))
        {
            engine.out.rejected(cmd, RejectReason.POST_ONLY_WOULD_MATCH);
            return;
        }

        final boolean keepsPriority = price == order.price && gpus <= order.openGpus;
        if (keepsPriority && order.inBook() && gpus > 0 &&
            (!order.bid || !order.gang && !mayPreempt(order)))
        {
            // same place in the queue, no more GPUs, no preemption to try and no smaller gang to fit:
            // nothing can match now that could not before (the book is not crossed), so it stays put
            (order.bid ? market.bids : market.asks).openGpusChanged(order, gpus - order.openGpus);
            resize(order, gpus, newHold);
            engine.out.accepted(order);
            return;
        }
        requeue(order, price, gpus, newHold, keepsPriority);
    }

    /** A replaced order out of the book and back in, at a new place unless it keeps its priority, and matched. */
    private void requeue(final Order order, final long price, final int gpus, final long newHold, final boolean keepsPriority)
    {
        final Market market = order.market;
        final boolean wasInBook = order.inBook();
        if (wasInBook)
        {
            (order.bid ? market.bids : market.asks).remove(order);
        }
        resize(order, gpus, newHold);
        order.price = price;
        if (!keepsPriority)
        {
            order.priority = engine.nextPriority();
        }
        engine.out.accepted(order);
        if (order.bid)
        {
            matchAndRest(order);
        }
        else
        {
            // an ask is in the book only while its machine is online
            if (order.openGpus > 0 && (wasInBook || order.machine.online))
            {
                market.asks.insertByPriority(order);
            }
            engine.matcher.matchAsk(order);
        }
    }

    /** Sets a replaced order's open GPUs: a bid's hold becomes {@code newHold}, an ask's machine offers the difference. */
    private void resize(final Order order, final int gpus, final long newHold)
    {
        if (order.bid)
        {
            order.account.held += newHold - order.hold;
            order.hold = newHold;
        }
        else
        {
            order.machine.offered += gpus - order.openGpus;
            engine.touch(order.machine);
        }
        order.openGpus = gpus;
    }

    private boolean wouldMatch(final Order order, final long price, final int gpus)
    {
        if (order.bid)
        {
            return engine.matcher.bidWouldMatch(order, price, gpus);
        }
        return engine.matcher.askFillable(order, price, gpus, 1) > 0;
    }

    /** Closes an order: out of the book, the account and its machine; a bid's hold is freed. */
    void close(final Order order)
    {
        if (order.inBook())
        {
            (order.bid ? order.market.bids : order.market.asks).remove(order);
        }
        if (order.bid)
        {
            engine.funds.freeBidHold(order);
        }
        else
        {
            order.machine.offered -= order.openGpus;
            order.machine.removeAsk(order);
            engine.touch(order.machine);
        }
        order.account.removeOpen(order);
        engine.orders.release(order);
    }
}
