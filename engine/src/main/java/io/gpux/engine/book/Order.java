package io.gpux.engine.book;

import io.gpux.engine.command.TimeInForce;
import io.gpux.engine.funds.Account;
import io.gpux.engine.hash.StateHasher;
import io.gpux.engine.machine.Machine;
import io.gpux.engine.market.Market;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.function.LongFunction;

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

    /** The open order as the engine snapshot holds it, in its account's section: its account is implied. */
    public void write(final DataOutput out) throws IOException
    {
        out.writeLong(uid);
        out.writeBoolean(bid);
        out.writeLong(market.id);
        out.writeLong(machine == null ? 0 : machine.id);
        out.writeLong(clientOrderId);
        out.writeLong(price);
        out.writeInt(openGpus);
        out.writeByte(tif.ordinal());
        out.writeBoolean(postOnly);
        out.writeBoolean(gang);
        out.writeBoolean(noPreempt);
        out.writeLong(minReliabilityPpb);
        out.writeLong(regionId);
        out.writeLong(maxDurationMs);
        out.writeLong(priority);
        out.writeLong(acceptSeq);
        out.writeLong(hold);
        out.writeBoolean(inBook());
    }

    /**
     * Fills this (pooled, cleared) order with one that {@link #write} wrote, open and of {@code owner}, its
     * market and machine looked up by id; links it nowhere.
     *
     * @param levers whether it holds noPreempt (snapshots before it restore false).
     * @return whether it rested in the book.
     */
    public boolean read(final DataInput in, final boolean levers, final Account owner, final LongFunction<Market> markets,
        final LongFunction<Machine> machines) throws IOException
    {
        uid = in.readLong();
        open = true;
        bid = in.readBoolean();
        account = owner;
        market = markets.apply(in.readLong());
        final long machineId = in.readLong();
        machine = machineId == 0 ? null : machines.apply(machineId);
        clientOrderId = in.readLong();
        price = in.readLong();
        openGpus = in.readInt();
        tif = TimeInForce.of(in.readByte());
        postOnly = in.readBoolean();
        gang = in.readBoolean();
        noPreempt = levers && in.readBoolean();
        minReliabilityPpb = in.readLong();
        regionId = in.readLong();
        maxDurationMs = in.readLong();
        priority = in.readLong();
        acceptSeq = in.readLong();
        hold = in.readLong();
        return in.readBoolean();
    }

    /** Feeds what {@link #write} writes to the state hash, but for the book membership (the walk of the books has it). */
    public void hash(final StateHasher h)
    {
        h.add(uid).bool(bid).add(market.id).add(machine == null ? 0 : machine.id).add(clientOrderId)
            .add(price).add(openGpus).add(tif.ordinal()).bool(postOnly).bool(gang).bool(noPreempt)
            .add(minReliabilityPpb).add(regionId).add(maxDurationMs).add(priority).add(acceptSeq).add(hold);
    }

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
