package io.gpux.engine;

import io.gpux.engine.book.Order;
import io.gpux.engine.funds.Account;
import io.gpux.engine.lease.Lease;
import io.gpux.engine.machine.Machine;
import io.gpux.engine.market.Market;
import io.gpux.engine.timer.Timer;
import org.agrona.collections.Long2ObjectHashMap;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The whole engine state as bytes, and back: everything the state hash covers, including time
 * priorities, order uids and timer creation sequences, so that a restored engine emits exactly the
 * events the original would have. Books and the preemptible-lease index are rebuilt from the orders
 * and leases.
 */
public final class EngineSnapshot
{
    private static final int MAGIC = 0x47505853; // "GPXS"
    /**
     * 6: the accounts' event numbers (last number, last event's sequence) at the end. 5: each market's preemption
     * increment and fragment-first placement, each order's noPreempt. 4: the restart window at the end.
     * 3: after the keys, the last restart's time and the accounts' open cancel-on-disconnect sessions. 2: API
     * keys after the timers. Versions 1 (no keys) to 5 are still read; they restore the defaults of what they
     * lack, as replaying their journals from the start would.
     */
    private static final int VERSION = 6;
    private static final int VERSION_WITHOUT_EVENT_NUMBERS = 5;
    private static final int VERSION_WITHOUT_LEVERS = 4;
    private static final int VERSION_WITHOUT_RESTART_WINDOW = 3;
    private static final int VERSION_WITHOUT_SESSIONS = 2;
    private static final int VERSION_WITHOUT_KEYS = 1;

    private EngineSnapshot()
    {
    }

    public static void write(final MatchingEngine e, final DataOutput out) throws IOException
    {
        out.writeInt(MAGIC);
        out.writeInt(VERSION);
        writeCounters(e, out);
        final Market[] markets = e.markets.byId(Market[]::new);
        out.writeInt(markets.length);
        for (final Market m : markets)
        {
            m.write(out);
        }
        final Account[] accounts = e.accounts.byId(Account[]::new);
        out.writeInt(accounts.length);
        for (final Account a : accounts)
        {
            a.write(out);
        }
        final Machine[] machines = e.machines.byId(Machine[]::new);
        out.writeInt(machines.length);
        for (final Machine m : machines)
        {
            m.write(out);
        }
        writeOrders(accounts, machines, out);
        final Lease[] leases = IdMap.byId(e.leases, Lease[]::new);
        out.writeInt(leases.length);
        for (final Lease l : leases)
        {
            l.write(out);
        }
        writeTimers(e, out);
        writeApiKeys(e, out);
        out.writeLong(e.restartedAtMs);
        writeSessions(accounts, out);
        out.writeLong(e.restartWindowMs);
        writeEventNumbers(accounts, out);
    }

    private static void writeCounters(final MatchingEngine e, final DataOutput out) throws IOException
    {
        out.writeLong(e.heartbeatIntervalMs);
        out.writeLong(e.heartbeatTimeoutMs);
        out.writeLong(e.prioritySeq);
        out.writeLong(e.nextLeaseId);
        out.writeLong(e.exchangeFees);
        out.writeLong(e.lastCommandTime);
        out.writeLong(e.commandCount);
        out.writeLong(e.out.sequence());
        out.writeLong(e.orders.nextUid());
        out.writeLong(e.timers.nextSeq());
    }

    /** Each account's open orders in its order, then each machine's asks in its order, by uid. */
    private static void writeOrders(final Account[] accounts, final Machine[] machines, final DataOutput out)
        throws IOException
    {
        for (final Account a : accounts)
        {
            int n = 0;
            for (Order o = a.firstOpen; o != null; o = o.accountNext)
            {
                n++;
            }
            out.writeInt(n);
            for (Order o = a.firstOpen; o != null; o = o.accountNext)
            {
                o.write(out);
            }
        }
        for (final Machine m : machines)
        {
            int n = 0;
            for (Order o = m.firstAsk; o != null; o = o.machineNext)
            {
                n++;
            }
            out.writeInt(n);
            for (Order o = m.firstAsk; o != null; o = o.machineNext)
            {
                out.writeLong(o.uid);
            }
        }
    }

    private static void writeTimers(final MatchingEngine e, final DataOutput out) throws IOException
    {
        final Timer[] timers = e.timers.sorted();
        out.writeInt(timers.length);
        for (final Timer t : timers)
        {
            out.writeLong(t.dueMs);
            out.writeLong(t.seq);
            out.writeByte(t.kind);
            out.writeLong(t.target instanceof Lease l ? l.id : ((Machine)t.target).id);
        }
    }

    private static void writeApiKeys(final MatchingEngine e, final DataOutput out) throws IOException
    {
        final long[] keyIds = e.apiKeys.sortedKeyIds();
        out.writeInt(keyIds.length);
        for (final long keyId : keyIds)
        {
            out.writeLong(keyId);
            out.writeLong(e.apiKeys.stored(keyId));
        }
    }

    /** The accounts with open cancel-on-disconnect sessions, and how many. */
    private static void writeSessions(final Account[] accounts, final DataOutput out) throws IOException
    {
        int withSessions = 0;
        for (final Account a : accounts)
        {
            withSessions += a.codSessions > 0 ? 1 : 0;
        }
        out.writeInt(withSessions);
        for (final Account a : accounts)
        {
            if (a.codSessions > 0)
            {
                out.writeLong(a.id);
                out.writeInt(a.codSessions);
            }
        }
    }

    /** The accounts that have had a private event, with their event numbers. */
    private static void writeEventNumbers(final Account[] accounts, final DataOutput out) throws IOException
    {
        int numbered = 0;
        for (final Account a : accounts)
        {
            numbered += a.lastSeq > 0 ? 1 : 0;
        }
        out.writeInt(numbered);
        for (final Account a : accounts)
        {
            if (a.lastSeq > 0)
            {
                out.writeLong(a.id);
                out.writeLong(a.lastSeq);
                out.writeLong(a.lastEventSequence);
            }
        }
    }

    /** Restores state written by {@link #write} into a new engine (which must not have applied anything). */
    public static void read(final MatchingEngine e, final DataInput in) throws IOException
    {
        if (in.readInt() != MAGIC)
        {
            throw new IOException("not a gpux engine snapshot");
        }
        final int version = in.readInt();
        if (version < VERSION_WITHOUT_KEYS || version > VERSION)
        {
            throw new IOException("unsupported snapshot version " + version);
        }
        if (e.commandCount != 0 || !e.markets.isEmpty())
        {
            throw new IllegalStateException("restore needs a fresh engine");
        }
        e.heartbeatIntervalMs = in.readLong();
        e.heartbeatTimeoutMs = in.readLong();
        e.prioritySeq = in.readLong();
        e.nextLeaseId = in.readLong();
        e.exchangeFees = in.readLong();
        e.lastCommandTime = in.readLong();
        e.commandCount = in.readLong();
        e.out.sequence(in.readLong());
        final long nextOrderUid = in.readLong();
        final long timerSeq = in.readLong();

        final int marketCount = in.readInt();
        for (int i = 0; i < marketCount; i++)
        {
            final Market m = Market.read(in, version > VERSION_WITHOUT_LEVERS);
            e.markets.put(m.id, m);
        }
        final List<Account> accounts = readAccounts(e, in);
        final List<Machine> machines = readMachines(e, in);
        final Long2ObjectHashMap<Order> byUid = readOrders(e, accounts, machines, in, version);
        readLeases(e, byUid, in);
        readTimers(e, in);
        e.timers.nextSeq(timerSeq);
        e.orders.nextUid(nextOrderUid);
        e.moneyInExchange = e.totalMoney();

        final int keyCount = version == VERSION_WITHOUT_KEYS ? 0 : in.readInt();
        for (int i = 0; i < keyCount; i++)
        {
            e.apiKeys.restore(in.readLong(), in.readLong());
        }
        if (version >= VERSION_WITHOUT_RESTART_WINDOW)
        {
            e.restartedAtMs = in.readLong();
            final int withSessions = in.readInt();
            for (int i = 0; i < withSessions; i++)
            {
                e.accounts.get(in.readLong()).codSessions = in.readInt();
            }
        }
        if (version > VERSION_WITHOUT_RESTART_WINDOW)
        {
            e.restartWindowMs = in.readLong();
        }
        if (version > VERSION_WITHOUT_EVENT_NUMBERS)
        {
            final int numbered = in.readInt();
            for (int i = 0; i < numbered; i++)
            {
                final Account a = e.accounts.get(in.readLong());
                a.lastSeq = in.readLong();
                a.lastEventSequence = in.readLong();
            }
        }
    }

    private static List<Account> readAccounts(final MatchingEngine e, final DataInput in) throws IOException
    {
        final int accountCount = in.readInt();
        final List<Account> accounts = new ArrayList<>(accountCount);
        for (int i = 0; i < accountCount; i++)
        {
            final Account a = Account.read(in, e.openOrders);
            e.accounts.put(a.id, a);
            accounts.add(a);
        }
        return accounts;
    }

    private static List<Machine> readMachines(final MatchingEngine e, final DataInput in) throws IOException
    {
        final int machineCount = in.readInt();
        final List<Machine> machines = new ArrayList<>(machineCount);
        for (int i = 0; i < machineCount; i++)
        {
            final Machine m = Machine.read(in, e.accounts::get, e.markets::get);
            e.machines.put(m.id, m);
            m.owner.addMachine(m);
            m.market.machineAdded(m.regionId, m.gpus);
            machines.add(m);
        }
        return machines;
    }

    /** Reads the open orders into their accounts, machines and books; returns them by uid. */
    private static Long2ObjectHashMap<Order> readOrders(final MatchingEngine e, final List<Account> accounts,
        final List<Machine> machines, final DataInput in, final int version) throws IOException
    {
        final Long2ObjectHashMap<Order> byUid = new Long2ObjectHashMap<>();
        final List<Order> inBook = new ArrayList<>();
        for (final Account a : accounts)
        {
            final int n = in.readInt();
            for (int i = 0; i < n; i++)
            {
                final Order o = e.orders.acquire();
                if (o.read(in, version > VERSION_WITHOUT_LEVERS, a, e.markets::get, e.machines::get))
                {
                    inBook.add(o);
                }
                a.addOpen(o);
                byUid.put(o.uid, o);
            }
        }
        for (final Machine m : machines)
        {
            final int n = in.readInt();
            for (int i = 0; i < n; i++)
            {
                m.addAsk(byUid.get(in.readLong()));
            }
        }
        inBook.sort(Comparator.comparingLong(o -> o.priority));
        for (final Order o : inBook)
        {
            (o.bid ? o.market.bids : o.market.asks).append(o);
        }
        return byUid;
    }

    private static void readLeases(final MatchingEngine e, final Long2ObjectHashMap<Order> byUid, final DataInput in)
        throws IOException
    {
        final int leaseCount = in.readInt();
        final Lease.Restored[] leases = new Lease.Restored[leaseCount];
        for (int i = 0; i < leaseCount; i++)
        {
            final Lease.Restored r = Lease.read(in, e.accounts::get, e.machines::get, byUid::get);
            final Lease l = r.lease();
            leases[i] = r;
            e.leases.put(l.id, l);
            l.machine.addLease(l);
            l.renter.addRented(l);
            l.owner.addOwned(l);
        }
        for (final Lease.Restored r : leases)
        {
            r.link(e.leases::get);
            if (r.preemptible())
            {
                r.lease().market.preemptible.add(r.lease());
            }
        }
    }

    private static void readTimers(final MatchingEngine e, final DataInput in) throws IOException
    {
        final int timerCount = in.readInt();
        for (int i = 0; i < timerCount; i++)
        {
            final long due = in.readLong();
            final long seq = in.readLong();
            final int kind = in.readByte();
            final long targetId = in.readLong();
            switch (kind)
            {
                case Timer.LEASE_NOTICE, Timer.LEASE_EXPIRY, Timer.LEASE_PERIOD ->
                {
                    final Lease l = e.leases.get(targetId);
                    final Timer t = e.timers.restore(due, seq, kind, l);
                    if (kind == Timer.LEASE_NOTICE)
                    {
                        l.noticeTimer = t;
                    }
                    else if (kind == Timer.LEASE_EXPIRY)
                    {
                        l.expiryTimer = t;
                    }
                    else
                    {
                        l.periodTimer = t;
                    }
                }
                default ->
                {
                    final Machine m = e.machines.get(targetId);
                    final Timer t = e.timers.restore(due, seq, kind, m);
                    if (kind == Timer.MACHINE_TIMEOUT)
                    {
                        m.timeoutTimer = t;
                    }
                    else if (kind == Timer.MACHINE_BIRTHDAY)
                    {
                        m.birthdayTimer = t;
                    }
                    else
                    {
                        m.dayTimer = t;
                    }
                }
            }
        }
    }
}
