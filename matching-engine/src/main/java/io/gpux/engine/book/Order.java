package io.gpux.engine.book;

import io.gpux.engine.command.TimeInForce;
import io.gpux.engine.funds.Account;
import io.gpux.engine.machine.Machine;
import io.gpux.engine.market.Market;

/**
 * An open order, pooled and reused. {@link #uid} is unique for the engine's life, so that a reference
 * kept elsewhere (a lease's GPU source) can tell whether it still points at the same order.
 */
public final class Order
{
    public long uid;
    public boolean open;
    public boolean bid;
    public Account account;
    public Market market;
    /** The machine of an ask; null for a bid. */
    public Machine machine;
    public long clientOrderId;
    public long price;
    /** Unfilled GPUs of a bid; unleased GPUs of an ask. */
    public int openGpus;
    public TimeInForce tif;
    public boolean postOnly;
    public boolean gang;
    /** A bid that never preempts (it still fills from open asks and rests). */
    public boolean noPreempt;
    public long minReliabilityPpb;
    public long regionId;
    public long maxDurationMs;
    /** Time priority: smaller is older. */
    public long priority;
    /** Order of acceptance, for mass cancel. */
    public long acceptSeq;
    /** Funds held by a bid for its unfilled GPUs. */
    public long hold;

    /** Level membership (FIFO by priority); level is null while the order is out of the book. */
    PriceLevel level;
    Order levelPrev;
    Order levelNext;

    /** The account's open orders in acceptance order. */
    public Order accountPrev;
    public Order accountNext;

    /** A machine's open asks in acceptance order. */
    public Order machinePrev;
    public Order machineNext;

    public boolean inBook()
    {
        return level != null;
    }

    public Order nextInLevel()
    {
        return levelNext;
    }

    void clear()
    {
        open = false;
        account = null;
        market = null;
        machine = null;
        level = null;
        levelPrev = null;
        levelNext = null;
        accountPrev = null;
        accountNext = null;
        machinePrev = null;
        machineNext = null;
        hold = 0;
    }
}
