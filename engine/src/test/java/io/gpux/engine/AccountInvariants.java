package io.gpux.engine;

import io.gpux.engine.book.Order;
import io.gpux.engine.command.TimeInForce;
import io.gpux.engine.event.Event;
import io.gpux.engine.funds.Account;
import io.gpux.engine.lease.Lease;
import io.gpux.engine.machine.Machine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;
import java.util.function.UnaryOperator;

import static io.gpux.engine.Invariants.cost;
import static io.gpux.engine.Invariants.holdMs;
import static io.gpux.engine.Invariants.require;

/**
 * The accounts' rules: money (rulebook sections 1, 3 and invariant 12.3: conserved to the micro-unit, no
 * balance negative, each balance what its deposits and {@code SETTLED} events give, fees the exchange's),
 * holds (sections 9, 13.25: {@code held} = the bids' holds + the leases' holds, each bid's hold exact),
 * open orders (4, 13.9: each account's list in acceptance order, every open bid booked, an ask booked
 * when it has GPUs and its machine is online) and the account's lists of its leases and machines.
 */
final class AccountInvariants
{
    private final MatchingEngine engine;
    private final EventLedger ledger;
    /** Money put in by accepted deposits. */
    private long deposits;
    /** Deposits announced by {@link #expectDeposit} and not yet confirmed by a BALANCE event. */
    private final Map<Long, Long> pendingDeposits = new HashMap<>();

    AccountInvariants(final MatchingEngine engine, final EventLedger ledger)
    {
        this.engine = engine;
        this.ledger = ledger;
    }

    void expectDeposit(final long accountId, final long amount)
    {
        pendingDeposits.put(accountId, amount);
    }

    /** A rejected DEPOSIT prints no BALANCE and adds nothing. */
    void forgetPendingDeposits()
    {
        pendingDeposits.clear();
    }

    long deposits()
    {
        return deposits;
    }

    void onBalance(final Event e)
    {
        final Long amount = pendingDeposits.remove(e.accountId);
        require(amount != null, "BALANCE of account " + e.accountId + " without a deposit");
        deposits += amount;
        final long balance = ledger.deposit(e.accountId, amount);
        require(e.balance == balance, "BALANCE of account " + e.accountId + ": balance " + e.balance +
            ", ledger says " + balance);
        final Account a = engine.account(e.accountId);
        require(e.available == a.balance - a.held, "BALANCE available " + e.available + " != balance - held");
    }

    void checkMoney()
    {
        long balances = 0;
        for (final Account a : engine.accounts.values())
        {
            balances += a.balance;
            require(a.balance >= 0, a.name + ": negative balance " + a.balance);
            require(a.held >= 0, a.name + ": negative held " + a.held);
            require(a.held <= a.balance, a.name + ": held " + a.held + " > balance " + a.balance + " (available < 0)");
            final long expected = ledger.balance(a.id);
            require(a.balance == expected, a.name + ": balance " + a.balance + ", but deposits and SETTLED events give " +
                expected);
        }
        require(engine.exchangeFees == ledger.fees(), "exchange fees " + engine.exchangeFees +
            ", SETTLED fees sum to " + ledger.fees());
        require(balances + engine.exchangeFees == deposits, "money not conserved: balances " + balances + " + fees " +
            engine.exchangeFees + " != deposits " + deposits);
        require(engine.totalMoney() == deposits, "totalMoney() " + engine.totalMoney() + " != deposits " + deposits);
    }

    void checkAccounts(final Map<Order, Long> inBook)
    {
        int shouldBeInBook = 0;
        for (final Account a : engine.accounts.values())
        {
            int n = 0;
            long bidHolds = 0;
            long prevSeq = Long.MIN_VALUE;
            Order prev = null;
            for (Order o = a.firstOpen; o != null; o = o.accountNext)
            {
                final String ow = a.name + " order " + o.clientOrderId + " (uid " + o.uid + ")";
                n++;
                require(n <= a.openOrders.size() + 1, a.name + ": open-order list longer than its map (a cycle?)");
                require(o.open, ow + " is in the account's list but closed");
                require(o.account == a, ow + " belongs to another account");
                require(a.openOrders.get(o.clientOrderId) == o, ow + " is not reachable by its client order id");
                require(o.accountPrev == prev, ow + ": broken account list back link");
                require(o.acceptSeq > prevSeq, ow + ": account list out of acceptance order");
                require(o.priority >= o.acceptSeq, ow + ": priority older than its acceptance");
                require(o.tif == TimeInForce.GTC, ow + " is " + o.tif + " but still open (IOC/FOK close right after entry)");
                prevSeq = o.acceptSeq;
                prev = o;
                final boolean booked = o.inBook();
                require(booked == inBook.containsKey(o), ow + ": inBook() " + booked + " but book walk says " + !booked);
                if (o.bid)
                {
                    require(o.machine == null, ow + ": a bid with a machine");
                    require(o.openGpus > 0, ow + ": an open bid with " + o.openGpus + " open GPUs (a filled bid closes)");
                    require(booked, ow + ": an open bid is not in the book");
                    final long hold = cost(o.openGpus, o.price, holdMs(o.market, o.maxDurationMs));
                    require(o.hold == hold, ow + ": bid hold " + o.hold + ", expected " + hold + " for " + o.openGpus +
                        " GPUs at " + o.price);
                    bidHolds += o.hold;
                    shouldBeInBook++;
                }
                else
                {
                    final Machine m = o.machine;
                    require(m != null && m.owner == a, ow + ": an ask on a machine of another owner");
                    require(o.market == m.market, ow + ": ask market is not its machine's market");
                    require(o.openGpus >= 0, ow + ": negative open GPUs");
                    require(o.hold == 0, ow + ": an ask with a hold");
                    require(!o.gang, ow + ": a gang ask");
                    final boolean shouldBook = o.openGpus > 0 && m.online;
                    require(booked == shouldBook, ow + ": in book " + booked + ", but openGpus " + o.openGpus +
                        " machine online " + m.online);
                    if (shouldBook)
                    {
                        shouldBeInBook++;
                    }
                    boolean onMachine = false;
                    for (Order x = m.firstAsk; x != null; x = x.machineNext)
                    {
                        onMachine |= x == o;
                    }
                    require(onMachine, ow + ": not in its machine's ask list");
                }
            }
            require(a.lastOpen == prev, a.name + ": lastOpen is not the end of its list");
            require(n == a.openOrders.size(), a.name + ": " + n + " orders in its list, " + a.openOrders.size() +
                " in its map");
            long leaseHolds = 0;
            for (final Lease l : engine.leases.values())
            {
                if (l.renter == a)
                {
                    leaseHolds += l.hold;
                }
            }
            require(a.held == bidHolds + leaseHolds, a.name + ": held " + a.held + " != bid holds " + bidHolds +
                " + lease holds " + leaseHolds);
        }
        require(inBook.size() == shouldBeInBook, "books hold " + inBook.size() + " orders, " + shouldBeInBook +
            " open orders should be in them");
    }

    /**
     * Each account's lists of its leases as renter, as owner, and of its machines hold exactly what a walk
     * of every lease and machine finds, in id order, with counts and back links that agree. Needs no
     * events: it also checks an engine just restored from a snapshot.
     */
    void checkAccountIndexes()
    {
        final Map<Account, List<Long>> rented = new HashMap<>();
        final Map<Account, List<Long>> owned = new HashMap<>();
        final Map<Account, List<Long>> machines = new HashMap<>();
        final Lease[] leases = engine.leases.values().toArray(new Lease[0]);
        Arrays.sort(leases, Comparator.comparingLong(l -> l.id));
        for (final Lease l : leases)
        {
            rented.computeIfAbsent(l.renter, a -> new ArrayList<>()).add(l.id);
            owned.computeIfAbsent(l.machine.owner, a -> new ArrayList<>()).add(l.id);
        }
        final Machine[] all = engine.machines.values().toArray(new Machine[0]);
        Arrays.sort(all, Comparator.comparingLong(m -> m.id));
        for (final Machine m : all)
        {
            machines.computeIfAbsent(m.owner, a -> new ArrayList<>()).add(m.id);
        }
        for (final Account a : engine.accounts.values())
        {
            checkList(a.name + ": rented leases", a.firstRented, l -> l.renterNext, l -> l.renterPrev, l -> l.id,
                l -> engine.leases.get(l.id) == l, rented.getOrDefault(a, List.of()), a.rentedLeaseCount());
            checkList(a.name + ": owned leases", a.firstOwned, l -> l.ownerNext, l -> l.ownerPrev, l -> l.id,
                l -> engine.leases.get(l.id) == l, owned.getOrDefault(a, List.of()), a.ownedLeaseCount());
            checkList(a.name + ": machines", a.firstMachine, m -> m.ownerNext, m -> m.ownerPrev, m -> m.id,
                m -> engine.machines.get(m.id) == m, machines.getOrDefault(a, List.of()), a.machineCount());
        }
    }

    /** An intrusive list holds the expected ids in order, its entries live, its back links and count right. */
    private static <T> void checkList(
        final String what, final T first, final UnaryOperator<T> next,
        final UnaryOperator<T> prev, final ToLongFunction<T> id,
        final Predicate<T> live, final List<Long> expected, final int count)
    {
        final List<Long> ids = new ArrayList<>();
        T before = null;
        for (T x = first; x != null && ids.size() <= expected.size(); x = next.apply(x))
        {
            require(prev.apply(x) == before, what + ": " + id.applyAsLong(x) + " links back to the wrong entry");
            require(live.test(x), what + ": " + id.applyAsLong(x) + " is not live");
            ids.add(id.applyAsLong(x));
            before = x;
        }
        require(ids.equals(expected), what + " " + ids + ", expected " + expected);
        require(count == ids.size(), what + ": count " + count + ", expected " + ids.size());
    }
}
