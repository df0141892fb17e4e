package io.gpux.engine.machine;

import io.gpux.common.Money;
import io.gpux.engine.book.Order;
import io.gpux.engine.funds.Account;
import io.gpux.engine.hash.StateHasher;
import io.gpux.engine.lease.Lease;
import io.gpux.engine.market.Market;
import io.gpux.engine.timer.Timer;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.function.LongFunction;

/** A machine of one owner in one market, with its measured reliability. */
public final class Machine
{
    public final long id;
    public final String name;
    public final Account owner;
    public final Market market;
    public final int gpus;
    public final long regionId;
    public final long vramGb;
    public final long interconnectId;
    public final long registeredAt;

    public boolean online;
    public long lastHeartbeat = Long.MIN_VALUE;
    /** Open (unleased) GPUs of its open asks. */
    public int offered;
    /** GPUs held by running leases, and by pending leases that took free GPUs. */
    public int leased;

    public final Reliability reliability = new Reliability();
    /** Reliability as last recomputed: relNum / relDen. */
    public long relNum = 19;
    public long relDen = 20;

    public Order firstAsk;
    public Order lastAsk;
    public Lease firstLease;
    public Lease lastLease;
    /** The owner's machines ({@link Account#firstMachine}). */
    public Machine ownerPrev;
    public Machine ownerNext;

    /** In the engine's list of machines whose offer changed since a reader last drained it. */
    public boolean touched;
    public Machine touchedNext;

    public Timer timeoutTimer;
    public Timer birthdayTimer;
    public Timer dayTimer;

    public Machine(
        final long id, final String name, final Account owner, final Market market, final int gpus,
        final long regionId, final long vramGb, final long interconnectId, final long registeredAt)
    {
        this.id = id;
        this.name = name;
        this.owner = owner;
        this.market = market;
        this.gpus = gpus;
        this.regionId = regionId;
        this.vramGb = vramGb;
        this.interconnectId = interconnectId;
        this.registeredAt = registeredAt;
    }

    /** Its registration, state and reliability, as the engine snapshot holds them (its asks and leases are listed apart). */
    public void write(final DataOutput out) throws IOException
    {
        out.writeLong(id);
        out.writeUTF(name);
        out.writeLong(owner.id);
        out.writeLong(market.id);
        out.writeInt(gpus);
        out.writeLong(regionId);
        out.writeLong(vramGb);
        out.writeLong(interconnectId);
        out.writeLong(registeredAt);
        out.writeBoolean(online);
        out.writeLong(lastHeartbeat);
        out.writeInt(offered);
        out.writeInt(leased);
        out.writeLong(relNum);
        out.writeLong(relDen);
        reliability.write(out);
    }

    /** A machine as {@link #write} wrote it, its owner and market looked up by id; not yet added to either. */
    public static Machine read(final DataInput in, final LongFunction<Account> accounts, final LongFunction<Market> markets)
        throws IOException
    {
        final long id = in.readLong();
        final String name = in.readUTF();
        final Account owner = accounts.apply(in.readLong());
        final Market market = markets.apply(in.readLong());
        final Machine m = new Machine(id, name, owner, market, in.readInt(), in.readLong(), in.readLong(),
            in.readLong(), in.readLong());
        m.online = in.readBoolean();
        m.lastHeartbeat = in.readLong();
        m.offered = in.readInt();
        m.leased = in.readInt();
        m.relNum = in.readLong();
        m.relDen = in.readLong();
        m.reliability.read(in);
        return m;
    }

    /** Feeds what {@link #write} writes to the state hash. */
    public void hash(final StateHasher h)
    {
        h.add(id).str(name).add(owner.id).add(market.id).add(gpus).add(regionId).add(vramGb)
            .add(interconnectId).add(registeredAt).bool(online).add(lastHeartbeat).add(offered)
            .add(leased).add(relNum).add(relDen);
        reliability.hash(h);
    }

    /** GPUs that a new ask may still offer. */
    public int spare()
    {
        return gpus - offered - leased;
    }

    public void addAsk(final Order ask)
    {
        ask.machinePrev = lastAsk;
        ask.machineNext = null;
        if (lastAsk == null)
        {
            firstAsk = ask;
        }
        else
        {
            lastAsk.machineNext = ask;
        }
        lastAsk = ask;
    }

    public void removeAsk(final Order ask)
    {
        if (ask.machinePrev == null)
        {
            firstAsk = ask.machineNext;
        }
        else
        {
            ask.machinePrev.machineNext = ask.machineNext;
        }
        if (ask.machineNext == null)
        {
            lastAsk = ask.machinePrev;
        }
        else
        {
            ask.machineNext.machinePrev = ask.machinePrev;
        }
        ask.machinePrev = null;
        ask.machineNext = null;
    }

    /** Leases are added in creation (= id) order. */
    public void addLease(final Lease lease)
    {
        lease.machinePrev = lastLease;
        lease.machineNext = null;
        if (lastLease == null)
        {
            firstLease = lease;
        }
        else
        {
            lastLease.machineNext = lease;
        }
        lastLease = lease;
    }

    public void removeLease(final Lease lease)
    {
        if (lease.machinePrev == null)
        {
            firstLease = lease.machineNext;
        }
        else
        {
            lease.machinePrev.machineNext = lease.machineNext;
        }
        if (lease.machineNext == null)
        {
            lastLease = lease.machinePrev;
        }
        else
        {
            lease.machineNext.machinePrev = lease.machinePrev;
        }
        lease.machinePrev = null;
        lease.machineNext = null;
    }

    /** True when the machine's reliability as last recomputed is at least ppb / 1e9, exactly. */
    public boolean reliabilityAtLeast(final long ppb)
    {
        return io.gpux.common.Money.productAtLeast(relNum, 1_000_000_000L, ppb, relDen);
    }
}
