package io.gpux.engine;

import io.gpux.engine.book.Order;
import io.gpux.engine.funds.Account;
import io.gpux.engine.lease.Lease;
import io.gpux.engine.machine.Machine;
import io.gpux.engine.machine.Reliability;
import io.gpux.engine.market.Market;
import io.gpux.engine.replay.RandomScenario;
import io.gpux.engine.replay.Symbols;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A guard over the state's entities: every declared instance field of a market, account, machine (and its
 * reliability), order and lease either survives a snapshot (set to a random other value, written, read back
 * into a fresh engine: the value is there) and moves the state hash (the same change alone changes the
 * hash), or is listed below with the reason it need not. A field added to an entity but not to its
 * {@code write}, {@code read} or {@code hash} fails here, by name.
 */
class EntityFieldCoverageTest
{
    /**
     * Fields the snapshot and the hash do not carry as values, by entity: references to other entities
     * (carried as their ids or rebuilt from them), intrusive list links, pool and index bookkeeping, and
     * values derived from other state.
     */
    private static final Map<Class<?>, Map<String, String>> NOT_VALUES = Map.of(
        Market.class, Map.of(
            "bids", "rebuilt from the open orders that rest in the book; the walk hashes the book",
            "asks", "rebuilt from the open orders that rest in the book; the walk hashes the book",
            "preemptible", "rebuilt from the leases' preemptible flag; the walk hashes the index",
            "gpus", "derived: counted from the market's machines as they are read",
            "largestMachineGpus", "derived: counted from the market's machines as they are read",
            "regionGpus", "derived: counted from the market's machines as they are read",
            "regionLargest", "derived: counted from the market's machines as they are read"),
        Account.class, Map.ofEntries(
            Map.entry("openOrders", "a read-only view of the engine's index of open orders"),
            Map.entry("orderIndex", "the engine's index of open orders, rebuilt as the orders are read"),
            Map.entry("openCount", "derived: counted as the orders are read"),
            Map.entry("rentedCount", "derived: counted as the leases are read"),
            Map.entry("ownedCount", "derived: counted as the leases are read"),
            Map.entry("machineCount", "derived: counted as the machines are read"),
            Map.entry("firstOpen", "list link: the orders are written in the account's section, in order"),
            Map.entry("lastOpen", "list link"),
            Map.entry("firstRented", "list link, rebuilt from the leases"),
            Map.entry("lastRented", "list link"),
            Map.entry("firstOwned", "list link, rebuilt from the leases"),
            Map.entry("lastOwned", "list link"),
            Map.entry("firstMachine", "list link, rebuilt from the machines"),
            Map.entry("lastMachine", "list link")),
        Machine.class, Map.ofEntries(
            Map.entry("owner", "reference, written as its id"),
            Map.entry("market", "reference, written as its id"),
            Map.entry("reliability", "checked field by field as an entity of its own"),
            Map.entry("firstAsk", "list link: the machine's asks are written by uid, in order"),
            Map.entry("lastAsk", "list link"),
            Map.entry("firstLease", "list link, rebuilt from the leases"),
            Map.entry("lastLease", "list link"),
            Map.entry("ownerPrev", "list link, rebuilt from the machines"),
            Map.entry("ownerNext", "list link"),
            Map.entry("touched", "transient: whether a reader has yet to see the offer change"),
            Map.entry("touchedNext", "transient list link of the touched machines"),
            Map.entry("timeoutTimer", "reference: the timers are written in their own section"),
            Map.entry("birthdayTimer", "reference: the timers are written in their own section"),
            Map.entry("dayTimer", "reference: the timers are written in their own section")),
        Order.class, Map.ofEntries(
            Map.entry("open", "every order in the state is open (closed ones are back in the pool)"),
            Map.entry("account", "reference: the order is written in its account's section"),
            Map.entry("market", "reference, written as its id"),
            Map.entry("machine", "reference, written as its id"),
            Map.entry("level", "book membership, written as whether it rests in the book"),
            Map.entry("levelPrev", "list link: the book is rebuilt in priority order"),
            Map.entry("levelNext", "list link"),
            Map.entry("accountPrev", "list link"),
            Map.entry("accountNext", "list link"),
            Map.entry("machinePrev", "list link"),
            Map.entry("machineNext", "list link")),
        Lease.class, Map.ofEntries(
            Map.entry("renter", "reference, written as its id"),
            Map.entry("owner", "reference: the machine's owner"),
            Map.entry("machine", "reference, written as its id"),
            Map.entry("market", "reference: the machine's market"),
            Map.entry("noticeTimer", "reference: the timers are written in their own section"),
            Map.entry("expiryTimer", "reference: the timers are written in their own section"),
            Map.entry("periodTimer", "reference: the timers are written in their own section"),
            Map.entry("sourceCount", "the length of the source arrays, whose elements are checked"),
            Map.entry("sourceAsk", "references, written as the ask's uid and whether it is still that open order"),
            Map.entry("sourceVictim", "references, written as the victim's id"),
            Map.entry("successor", "reference, written as its id"),
            Map.entry("machinePrev", "list link, rebuilt from the leases"),
            Map.entry("machineNext", "list link"),
            Map.entry("renterPrev", "list link"),
            Map.entry("renterNext", "list link"),
            Map.entry("ownerPrev", "list link"),
            Map.entry("ownerNext", "list link"),
            Map.entry("indexLevel", "index membership, written as whether the lease is preemptible"),
            Map.entry("indexPrev", "index link: the index is rebuilt from the leases"),
            Map.entry("indexNext", "index link")),
        Reliability.class, Map.of());

    private static MatchingEngine engine;
    private static long baseline;
    private static final Random RANDOM = new Random(20261201);

    @BeforeAll
    static void buildEngine() throws Exception
    {
        engine = new MatchingEngine(event -> { });
        for (final var c : SnapshotEquivalenceTest.parse(new Symbols(), RandomScenario.scenario(42, 4000)))
        {
            engine.apply(c);
        }
        baseline = engine.stateHash();
    }

    @TestFactory
    List<DynamicTest> everyEntityFieldSurvivesTheSnapshotAndMovesTheHash()
    {
        final Market market = engine.markets.values().iterator().next();
        final Account account = pick(engine.accounts.values(), a -> a.lastSeq > 0 && a.firstOpen != null);
        final Machine machine = pick(engine.machines.values(), m -> m.reliability.started());
        final Order ask = pick(openOrders(), o -> o.machine != null && o.inBook());
        final Lease lease = pick(engine.leases.values(), l -> l.sourceCount > 0);
        final List<DynamicTest> tests = new ArrayList<>();
        add(tests, market, e -> e.markets.get(market.id));
        add(tests, account, e -> e.accounts.get(account.id));
        add(tests, machine, e -> e.machines.get(machine.id));
        add(tests, machine.reliability, e -> e.machines.get(machine.id).reliability);
        add(tests, ask, e -> findOrder(e, ask.uid));
        add(tests, lease, e -> e.leases.get(lease.id));
        return tests;
    }

    private static void add(final List<DynamicTest> tests, final Object entity, final Function<MatchingEngine, Object> find)
    {
        final Class<?> type = entity.getClass();
        final Map<String, String> notValues = NOT_VALUES.get(type);
        final List<String> names = new ArrayList<>();
        for (final Field f : type.getDeclaredFields())
        {
            if (Modifier.isStatic(f.getModifiers()) || f.isSynthetic())
            {
                continue;
            }
            names.add(f.getName());
            if (notValues.containsKey(f.getName()))
            {
                continue;
            }
            tests.add(DynamicTest.dynamicTest(type.getSimpleName() + "." + f.getName(), () -> check(entity, f, find)));
        }
        tests.add(DynamicTest.dynamicTest(type.getSimpleName() + ": every listed field exists", () ->
        {
            for (final String listed : notValues.keySet())
            {
                assertTrue(names.contains(listed), type.getSimpleName() + "." + listed + " is listed but no longer exists");
            }
        }));
    }

    private static void check(final Object entity, final Field f, final Function<MatchingEngine, Object> find)
        throws Exception
    {
        final String name = entity.getClass().getSimpleName() + "." + f.getName();
        f.setAccessible(true);
        final Object original = f.get(entity);
        final Object changed;
        if (f.getType().isArray())
        {
            assertTrue(f.getType().getComponentType().isPrimitive(), name + ": an array of references the guard "
                + "does not know; check the snapshot and the hash carry it, then list it with its reason");
            changed = copyOf(original);
            Array.set(changed, 0, other(f.getType().getComponentType(), Array.get(original, 0), name));
        }
        else
        {
            changed = other(f.getType(), original, name);
        }
        f.set(entity, changed);
        try
        {
            final MatchingEngine restored = SnapshotEquivalenceTest.restore(SnapshotEquivalenceTest.snapshot(engine));
            final Object copy = find.apply(restored);
            assertNotNull(copy, name + ": the entity is not found after the snapshot");
            assertEquals(describe(changed), describe(f.get(copy)),
                name + " does not survive the snapshot: write and read it in " + entity.getClass().getSimpleName());
            assertNotEquals(baseline, engine.stateHash(),
                name + " is not in the state hash: add it to " + entity.getClass().getSimpleName() + ".hash");
        }
        finally
        {
            f.set(entity, original);
        }
        assertEquals(baseline, engine.stateHash(), name + ": the state is back as it was");
    }

    /** A random value of the field's type other than {@code value}; for an unknown type, a failure naming the field. */
    private static Object other(final Class<?> type, final Object value, final String name)
    {
        if (type == long.class)
        {
            return (Long)value + 1_000_000_007L + RANDOM.nextInt(1_000_000);
        }
        if (type == int.class)
        {
            return (Integer)value + 1 + RANDOM.nextInt(1000);
        }
        if (type == boolean.class)
        {
            return !(Boolean)value;
        }
        if (type == String.class)
        {
            return value + "X" + RANDOM.nextInt(100);
        }
        if (type.isEnum())
        {
            final Object[] constants = type.getEnumConstants();
            return value == null ? constants[0] : constants[(((Enum<?>)value).ordinal() + 1) % constants.length];
        }
        return fail(name + ": a field of type " + type.getSimpleName() + " the guard does not know; check the "
            + "snapshot and the hash carry it, then list it with its reason");
    }

    private static Object copyOf(final Object array)
    {
        final int n = Array.getLength(array);
        final Object copy = Array.newInstance(array.getClass().getComponentType(), n);
        System.arraycopy(array, 0, copy, 0, n);
        return copy;
    }

    private static String describe(final Object value)
    {
        if (value != null && value.getClass().isArray())
        {
            return String.valueOf(Array.get(value, 0));
        }
        return Objects.toString(value);
    }

    private static <T> T pick(final Iterable<T> items, final java.util.function.Predicate<T> wanted)
    {
        for (final T item : items)
        {
            if (wanted.test(item))
            {
                return item;
            }
        }
        return fail("the scenario has no such entity");
    }

    private static List<Order> openOrders()
    {
        final List<Order> orders = new ArrayList<>();
        for (final Account a : engine.accounts.values())
        {
            for (Order o = a.firstOpen; o != null; o = o.accountNext)
            {
                orders.add(o);
            }
        }
        return orders;
    }

    private static Order findOrder(final MatchingEngine e, final long uid)
    {
        for (final Account a : e.accounts.values())
        {
            for (Order o = a.firstOpen; o != null; o = o.accountNext)
            {
                if (o.uid == uid)
                {
                    return o;
                }
            }
        }
        return null;
    }
}
