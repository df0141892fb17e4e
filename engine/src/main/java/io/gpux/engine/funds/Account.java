package io.gpux.engine.funds;

import io.gpux.engine.book.Order;
import io.gpux.engine.book.OrderIndex;
import io.gpux.engine.hash.StateHasher;
import io.gpux.engine.lease.Lease;
import io.gpux.engine.machine.Machine;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * An account: roles, balance, holds, and what it has in the exchange: its open orders, its live leases as
 * renter and as owner, and its machines, each an intrusive list, so that reading an account costs what the
 * account has, not what the exchange has. The lease and machine lists are derived from the engine's maps
 * (rebuilt when a snapshot is loaded) and take no part in the state hash.
 */
public final class Account
{
    public final long id;
    public final String name;
    public final int roles;
    /** Micro-units; never negative. */
    public long balance;
    /** Sum of every hold: resting bids and leases. */
    public long held;
    /** Open orders by client order id, both sides, every market (a read-only view of the engine's index). */
    public final OpenOrders openOrders = new OpenOrders(this);
    /** Open cancel-on-disconnect sessions, as the COD_SESSION commands counted them. */
    public int codSessions;
    /** The number of its last private event (its events are numbered 1, 2, ... as the engine emits them); 0: none yet. */
    public long lastSeq;
    /** The engine sequence of its last private event, where a resend starts walking back; 0: none yet. */
    public long lastEventSequence;
    public Order firstOpen;
    public Order lastOpen;
    /** Its live (pending or running) leases as renter, in lease id order, linked by {@link Lease#renterNext}. */
    public Lease firstRented;
    private Lease lastRented;
    /** Live leases of its machines, in lease id order, linked by {@link Lease#ownerNext}. */
    public Lease firstOwned;
    private Lease lastOwned;
    /** Its machines, in machine id order, linked by {@link Machine#ownerNext}. */
    public Machine firstMachine;
    private Machine lastMachine;
    private int rentedCount;
    private int ownedCount;
    private int machineCount;

    /** The engine's open orders by (account, client order id), shared by all its accounts. */
    private final OrderIndex orderIndex;
    private int openCount;

    /** An account of its own, not sharing an engine's index of open orders. */
    public Account(final long id, final String name, final int roles)
    {
        this(id, name, roles, new OrderIndex());
    }

    public Account(final long id, final String name, final int roles, final OrderIndex orderIndex)
    {
        this.id = id;
        this.name = name;
        this.roles = roles;
        this.orderIndex = orderIndex;
    }

    /**
     * Its identity and funds, as the engine snapshot holds them first; its sessions and event numbers
     * follow in later sections of the snapshot, its orders, leases and machines with theirs.
     */
    public void write(final DataOutput out) throws IOException
    {
        out.writeLong(id);
        out.writeUTF(name);
        out.writeInt(roles);
        out.writeLong(balance);
        out.writeLong(held);
    }

    /** An account as {@link #write} wrote it, sharing the engine's index of open orders. */
    public static Account read(final DataInput in, final OrderIndex orderIndex) throws IOException
    {
        final Account a = new Account(in.readLong(), in.readUTF(), in.readInt(), orderIndex);
        a.balance = in.readLong();
        a.held = in.readLong();
        return a;
    }

    /** Feeds what {@link #write} writes to the state hash. */
    public void hash(final StateHasher h)
    {
        h.add(id).str(name).add(roles).add(balance).add(held);
    }

    public long available()
    {
        return balance - held;
    }

    /** @return the open order with this client order id, or null. */
    public Order openOrder(final long clientOrderId)
    {
        return orderIndex.get(id, clientOrderId);
    }

    public int openOrderCount()
    {
        return openCount;
    }

    public void addOpen(final Order order)
    {
        orderIndex.add(order);
        openCount++;
        order.accountPrev = lastOpen;
        order.accountNext = null;
        if (lastOpen == null)
        {
            firstOpen = order;
        }
        else
        {
            lastOpen.accountNext = order;
        }
        lastOpen = order;
    }

    public void removeOpen(final Order order)
    {
        orderIndex.remove(order);
        openCount--;
        if (order.accountPrev == null)
        {
            firstOpen = order.accountNext;
        }
        else
        {
            order.accountPrev.accountNext = order.accountNext;
        }
        if (order.accountNext == null)
        {
            lastOpen = order.accountPrev;
        }
        else
        {
            order.accountNext.accountPrev = order.accountPrev;
        }
        order.accountPrev = null;
        order.accountNext = null;
    }

    public int rentedLeaseCount()
    {
        return rentedCount;
    }

    public int ownedLeaseCount()
    {
        return ownedCount;
    }

    public int machineCount()
    {
        return machineCount;
    }

    /** Leases are added in creation (= id) order. */
    public void addRented(final Lease lease)
    {
        lease.renterPrev = lastRented;
        lease.renterNext = null;
        if (lastRented == null)
        {
            firstRented = lease;
        }
        else
        {
            lastRented.renterNext = lease;
        }
        lastRented = lease;
        rentedCount++;
    }

    public void removeRented(final Lease lease)
    {
        if (lease.renterPrev == null)
        {
            firstRented = lease.renterNext;
        }
        else
        {
            lease.renterPrev.renterNext = lease.renterNext;
        }
        if (lease.renterNext == null)
        {
            lastRented = lease.renterPrev;
        }
        else
        {
            lease.renterNext.renterPrev = lease.renterPrev;
        }
        lease.renterPrev = null;
        lease.renterNext = null;
        rentedCount--;
    }

    /** Leases are added in creation (= id) order. */
    public void addOwned(final Lease lease)
    {
        lease.ownerPrev = lastOwned;
        lease.ownerNext = null;
        if (lastOwned == null)
        {
            firstOwned = lease;
        }
        else
        {
            lastOwned.ownerNext = lease;
        }
        lastOwned = lease;
        ownedCount++;
    }

    public void removeOwned(final Lease lease)
    {
        if (lease.ownerPrev == null)
        {
            firstOwned = lease.ownerNext;
        }
        else
        {
            lease.ownerPrev.ownerNext = lease.ownerNext;
        }
        if (lease.ownerNext == null)
        {
            lastOwned = lease.ownerPrev;
        }
        else
        {
            lease.ownerNext.ownerPrev = lease.ownerPrev;
        }
        lease.ownerPrev = null;
        lease.ownerNext = null;
        ownedCount--;
    }

    /**
     * Adds a machine in id order (machines are never removed). Ids mostly grow, so the place is found
     * from the end of the list, usually at once.
     */
    public void addMachine(final Machine machine)
    {
        Machine before = lastMachine;
        while (before != null && before.id > machine.id)
        {
            before = before.ownerPrev;
        }
        final Machine after = before == null ? firstMachine : before.ownerNext;
        machine.ownerPrev = before;
        machine.ownerNext = after;
        if (before == null)
        {
            firstMachine = machine;
        }
        else
        {
            before.ownerNext = machine;
        }
        if (after == null)
        {
            lastMachine = machine;
        }
        else
        {
            after.ownerPrev = machine;
        }
        machineCount++;
    }
}
