package io.gpux.engine;

import io.gpux.engine.book.Order;
import io.gpux.engine.command.TimeInForce;
import io.gpux.engine.event.NoticeReason;
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
import java.util.Arrays;
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

        final Market[] markets = sorted(e.markets.values().toArray(new Market[0]), m -> m.id);
        out.writeInt(markets.length);
        for (final Market m : markets)
        {
            out.writeLong(m.id);
            out.writeUTF(m.name);
            out.writeLong(m.tick);
            out.writeBoolean(m.preemption);
            out.writeLong(m.graceMs);
            out.writeLong(m.minIncrement);
            out.writeInt(m.preemptIncrementBps);
            out.writeBoolean(m.fragmentFirst);
            out.writeInt(m.feeBps);
            out.writeLong(m.prepayMs);
            out.writeInt(m.maxGpusPerOrder);
            out.writeBoolean(m.halted);
        }

        final Account[] accounts = sorted(e.accounts.values().toArray(new Account[0]), a -> a.id);
        out.writeInt(accounts.length);
        for (final Account a : accounts)
        {
            out.writeLong(a.id);
            out.writeUTF(a.name);
            out.writeInt(a.roles);
            out.writeLong(a.balance);
            out.writeLong(a.held);
        }

        final Machine[] machines = sorted(e.machines.values().toArray(new Machine[0]), m -> m.id);
        out.writeInt(machines.length);
        for (final Machine m : machines)
        {
            out.writeLong(m.id);
            out.writeUTF(m.name);
            out.writeLong(m.owner.id);
            out.writeLong(m.market.id);
            out.writeInt(m.gpus);
            out.writeLong(m.regionId);
            out.writeLong(m.vramGb);
            out.writeLong(m.interconnectId);
            out.writeLong(m.registeredAt);
            out.writeBoolean(m.online);
            out.writeLong(m.lastHeartbeat);
            out.writeInt(m.offered);
            out.writeInt(m.leased);
            out.writeLong(m.relNum);
            out.writeLong(m.relDen);
            m.reliability.write(out);
        }

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
                out.writeLong(o.uid);
                out.writeBoolean(o.bid);
                out.writeLong(o.market.id);
                out.writeLong(o.machine == null ? 0 : o.machine.id);
                out.writeLong(o.clientOrderId);
                out.writeLong(o.price);
                out.writeInt(o.openGpus);
                out.writeByte(o.tif.ordinal());
                out.writeBoolean(o.postOnly);
                out.writeBoolean(o.gang);
                out.writeBoolean(o.noPreempt);
                out.writeLong(o.minReliabilityPpb);
                out.writeLong(o.regionId);
                out.writeLong(o.maxDurationMs);
                out.writeLong(o.priority);
                out.writeLong(o.acceptSeq);
                out.writeLong(o.hold);
                out.writeBoolean(o.inBook());
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

        final Lease[] leases = sorted(e.leases.values().toArray(new Lease[0]), l -> l.id);
        out.writeInt(leases.length);
        for (final Lease l : leases)
        {
            out.writeLong(l.id);
            out.writeInt(l.state);
            out.writeLong(l.renter.id);
            out.writeLong(l.machine.id);
            out.writeInt(l.gpus);
            out.writeLong(l.price);
            out.writeLong(l.startMs);
            out.writeLong(l.maxDurationMs);
            out.writeLong(l.settledMs);
            out.writeLong(l.totalCost);
            out.writeLong(l.totalFee);
            out.writeLong(l.hold);
            out.writeInt(l.notice == null ? -1 : l.notice.ordinal());
            out.writeLong(l.effectiveMs);
            out.writeLong(l.successor == null ? 0 : l.successor.id);
            out.writeInt(l.successorGpus);
            out.writeInt(l.waitingSources);
            out.writeBoolean(l.preemptible());
            out.writeInt(l.sourceCount);
            for (int i = 0; i < l.sourceCount; i++)
            {
                final Order ask = l.sourceAsk[i];
                final boolean live = ask != null && ask.uid == l.sourceAskUid[i] && ask.open;
                out.writeLong(l.sourceAskUid[i]);
                out.writeBoolean(live);
                out.writeLong(l.sourceAskOrderId[i]);
                out.writeInt(l.sourceGpus[i]);
                out.writeLong(l.sourceVictim[i] == null ? 0 : l.sourceVictim[i].id);
            }
        }

        final Timer[] timers = e.timers.sorted();
        out.writeInt(timers.length);
        for (final Timer t : timers)
        {
            out.writeLong(t.dueMs);
            out.writeLong(t.seq);
            out.writeByte(t.kind);
            out.writeLong(t.target instanceof Lease l ? l.id : ((Machine)t.target).id);
        }

        final long[] keyIds = e.apiKeys.sortedKeyIds();
        out.writeInt(keyIds.length);
        for (final long keyId : keyIds)
        {
            out.writeLong(keyId);
            out.writeLong(e.apiKeys.stored(keyId));
        }

        out.writeLong(e.restartedAtMs);
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
        out.writeLong(e.restartWindowMs);
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
            final Market m = new Market(in.readLong(), in.readUTF());
            m.tick = in.readLong();
            m.preemption = in.readBoolean();
            m.graceMs = in.readLong();
            m.minIncrement = in.readLong();
            if (version > VERSION_WITHOUT_LEVERS)
            {
                m.preemptIncrementBps = in.readInt();
                m.fragmentFirst = in.readBoolean();
            }
            m.feeBps = in.readInt();
            m.prepayMs = in.readLong();
            m.maxGpusPerOrder = in.readInt();
            m.halted = in.readBoolean();
            e.markets.put(m.id, m);
        }
        final int accountCount = in.readInt();
        final List<Account> accounts = new ArrayList<>(accountCount);
        for (int i = 0; i < accountCount; i++)
        {
            final Account a = new Account(in.readLong(), in.readUTF(), in.readInt(), e.openOrders);
            a.balance = in.readLong();
            a.held = in.readLong();
            e.accounts.put(a.id, a);
            accounts.add(a);
        }
        final int machineCount = in.readInt();
        final List<Machine> machines = new ArrayList<>(machineCount);
        for (int i = 0; i < machineCount; i++)
        {
            final long id = in.readLong();
            final String name = in.readUTF();
            final Account owner = e.accounts.get(in.readLong());
            final Market market = e.markets.get(in.readLong());
            final Machine m = new Machine(id, name, owner, market, in.readInt(), in.readLong(), in.readLong(),
                in.readLong(), in.readLong());
            m.online = in.readBoolean();
            m.lastHeartbeat = in.readLong();
            m.offered = in.readInt();
            m.leased = in.readInt();
            m.relNum = in.readLong();
            m.relDen = in.readLong();
            m.reliability.read(in);
            e.machines.put(m.id, m);
            owner.addMachine(m);
            market.machineAdded(m.regionId, m.gpus);
            machines.add(m);
        }

        final Long2ObjectHashMap<Order> byUid = new Long2ObjectHashMap<>();
        final List<Order> inBook = new ArrayList<>();
        for (final Account a : accounts)
        {
            final int n = in.readInt();
            for (int i = 0; i < n; i++)
            {
                final Order o = e.orders.acquire();
                o.uid = in.readLong();
                o.open = true;
                o.bid = in.readBoolean();
                o.account = a;
                o.market = e.markets.get(in.readLong());
                final long machineId = in.readLong();
                o.machine = machineId == 0 ? null : e.machines.get(machineId);
                o.clientOrderId = in.readLong();
                o.price = in.readLong();
                o.openGpus = in.readInt();
                o.tif = TimeInForce.of(in.readByte());
                o.postOnly = in.readBoolean();
                o.gang = in.readBoolean();
                o.noPreempt = version > VERSION_WITHOUT_LEVERS && in.readBoolean();
                o.minReliabilityPpb = in.readLong();
                o.regionId = in.readLong();
                o.maxDurationMs = in.readLong();
                o.priority = in.readLong();
                o.acceptSeq = in.readLong();
                o.hold = in.readLong();
                if (in.readBoolean())
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

        final int leaseCount = in.readInt();
        final Lease[] leases = new Lease[leaseCount];
        final long[][] victimIds = new long[leaseCount][];
        final long[] successorIds = new long[leaseCount];
        final boolean[] indexed = new boolean[leaseCount];
        for (int i = 0; i < leaseCount; i++)
        {
            final Lease l = new Lease();
            l.reset(in.readLong());
            l.state = in.readInt();
            l.renter = e.accounts.get(in.readLong());
            l.machine = e.machines.get(in.readLong());
            l.owner = l.machine.owner;
            l.market = l.machine.market;
            l.gpus = in.readInt();
            l.price = in.readLong();
            l.startMs = in.readLong();
            l.maxDurationMs = in.readLong();
            l.settledMs = in.readLong();
            l.totalCost = in.readLong();
            l.totalFee = in.readLong();
            l.hold = in.readLong();
            final int notice = in.readInt();
            l.notice = notice < 0 ? null : NoticeReason.values()[notice];
            l.effectiveMs = in.readLong();
            successorIds[i] = in.readLong();
            l.successorGpus = in.readInt();
            final int waiting = in.readInt();
            indexed[i] = in.readBoolean();
            final int sources = in.readInt();
            victimIds[i] = new long[sources];
            for (int s = 0; s < sources; s++)
            {
                final long askUid = in.readLong();
                final boolean live = in.readBoolean();
                final long askOrderId = in.readLong();
                final int gpus = in.readInt();
                victimIds[i][s] = in.readLong();
                l.addSource(live ? byUid.get(askUid) : null, askUid, askOrderId, gpus, null);
            }
            l.waitingSources = waiting;
            leases[i] = l;
            e.leases.put(l.id, l);
            l.machine.addLease(l);
            l.renter.addRented(l);
            l.owner.addOwned(l);
        }
        for (int i = 0; i < leaseCount; i++)
        {
            final Lease l = leases[i];
            l.successor = successorIds[i] == 0 ? null : e.leases.get(successorIds[i]);
            for (int s = 0; s < l.sourceCount; s++)
            {
                l.sourceVictim[s] = victimIds[i][s] == 0 ? null : e.leases.get(victimIds[i][s]);
            }
            if (indexed[i])
            {
                l.market.preemptible.add(l);
            }
        }

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

    private static <T> T[] sorted(final T[] items, final java.util.function.ToLongFunction<T> id)
    {
        Arrays.sort(items, Comparator.comparingLong(id));
        return items;
    }
}
