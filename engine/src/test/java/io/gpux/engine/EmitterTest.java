package io.gpux.engine;

import io.gpux.engine.book.Order;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.event.CancelReason;
import io.gpux.engine.event.EndReason;
import io.gpux.engine.event.Event;
import io.gpux.engine.event.EventType;
import io.gpux.engine.event.NoticeReason;
import io.gpux.engine.event.RejectReason;
import io.gpux.engine.funds.Account;
import io.gpux.engine.lease.Lease;
import io.gpux.engine.machine.Machine;
import io.gpux.engine.market.Market;
import io.gpux.engine.replay.RandomScenario;
import io.gpux.engine.replay.ScenarioException;
import io.gpux.engine.replay.ScenarioReplayer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.StringReader;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every event carries nothing but its own type's fields (the output table of docs/market-rules.md,
 * section 15), whatever came before it: a guard for the emitter's methods, and for any cheaper way of
 * resetting the reused event between events.
 */
class EmitterTest
{
    private static final Set<String> ALWAYS = Set.of("type", "sequence", "timeMs", "commandSequence",
        "bidPrices", "bidGpus", "askPrices", "askGpus");
    private static final Map<EventType, Set<String>> FIELDS = new EnumMap<>(EventType.class);
    /** A private event's numbers for its recipient accounts: set when the engine holds the account. */
    private static final Set<String> NUMBERS = Set.of("accountSeq0", "previous0", "accountSeq1", "previous1");

    static
    {
        FIELDS.put(EventType.ACCEPTED, Set.of("orderId", "accountId"));
        FIELDS.put(EventType.REJECTED, Set.of("command", "rejectReason", "orderId", "accountId", "marketId",
            "machineId", "leaseId", "namesMarket"));
        FIELDS.put(EventType.CANCELLED, Set.of("orderId", "accountId", "cancelReason", "remaining"));
        FIELDS.put(EventType.FILL, Set.of("orderId", "accountId", "counterOrderId", "leaseId", "gpus", "price",
            "preemptsLeaseId"));
        FIELDS.put(EventType.TRADE, Set.of("marketId", "gpus", "price"));
        FIELDS.put(EventType.LEASE_STARTED, Set.of("leaseId", "renterId", "ownerId", "machineId", "marketId", "gpus",
            "price"));
        FIELDS.put(EventType.PREEMPT_NOTICE, Set.of("leaseId", "noticeReason", "effectiveMs", "accountId",
            "ownerId"));
        FIELDS.put(EventType.LEASE_ENDED, Set.of("leaseId", "endReason", "cost", "fee", "renterId", "ownerId"));
        FIELDS.put(EventType.SETTLED, Set.of("leaseId", "charge", "fee", "period", "ms", "renterId", "ownerId"));
        FIELDS.put(EventType.BALANCE, Set.of("accountId", "balance", "available"));
        FIELDS.put(EventType.MACHINE_ONLINE, Set.of("machineId", "ownerId"));
        FIELDS.put(EventType.MACHINE_OFFLINE, Set.of("machineId", "ownerId"));
        FIELDS.put(EventType.BOOK, Set.of("marketId", "bidLevels", "askLevels"));
    }

    /**
     * Every emitter method, each field of its event set to something other than its default, and then every
     * method again: whatever type came before, the event carries only its own fields (and all of them).
     */
    @Test
    void nothingOfAnEventOfOneTypeSurvivesIntoTheNextOfAnyType()
    {
        final Map<EventType, Consumer<Emitter>> emit = emitters();
        assertEquals(EventType.values().length, emit.size(), "an emitter for every event type");
        final List<String> problems = new ArrayList<>();
        for (final EventType first : EventType.values())
        {
            for (final EventType second : EventType.values())
            {
                final List<Event> seen = new ArrayList<>();
                final Emitter emitter = new Emitter(e -> seen.add(new Event().copyFrom(e)), new IdMap<>());
                emitter.now = 7;
                emitter.commandSequence = 9;
                emit.get(first).accept(emitter);
                emit.get(second).accept(emitter);
                assertEquals(2, seen.size());
                final Event e = seen.get(1);
                assertEquals(second, e.type);
                assertEquals(2, e.sequence);
                assertEquals(7, e.timeMs);
                assertEquals(9, e.commandSequence);
                check(e, first + " then " + second, problems, new int[EventType.values().length]);
                for (final String field : FIELDS.get(second))
                {
                    if (isUnset(value(e, field)))
                    {
                        problems.add(first + " then " + second + ": " + field + " was not set (the test's emitter sets all)");
                    }
                }
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems.subList(0, Math.min(20, problems.size()))));
    }

    /** For each event type, an emitter call (as the engine makes it) that sets every field of the type. */
    private static Map<EventType, Consumer<Emitter>> emitters()
    {
        final Market market = new Market(31, "M");
        final Account renter = new Account(32, "R", 0);
        final Account owner = new Account(33, "O", 0);
        final Machine machine = new Machine(34, "RIG", owner, market, 8, 0, 0, 0, 0);
        final Order order = new Order();
        order.account = renter;
        order.clientOrderId = 35;
        final Lease lease = new Lease();
        lease.id = 36;
        lease.renter = renter;
        lease.owner = owner;
        lease.machine = machine;
        lease.market = market;
        lease.gpus = 3;
        lease.price = 37;
        lease.totalCost = 38;
        lease.totalFee = 39;
        final Command cmd = new Command().reset(CommandType.MASS_CANCEL, 1);
        cmd.orderId = 40;
        cmd.accountId = 41;
        cmd.marketId = 42;
        cmd.machineId = 43;
        cmd.leaseId = 44;
        cmd.hasMarket = true;
        final Map<EventType, Consumer<Emitter>> m = new EnumMap<>(EventType.class);
        m.put(EventType.ACCEPTED, o -> o.accepted(order));
        m.put(EventType.REJECTED, o -> o.rejected(cmd, RejectReason.UNKNOWN_ORDER));
        m.put(EventType.CANCELLED, o -> o.cancelled(order, CancelReason.USER, 4));
        m.put(EventType.FILL, o -> o.fill(45, 46, 47, lease, 5, 48, 49));
        m.put(EventType.TRADE, o -> o.trade(50, 6, 51));
        m.put(EventType.LEASE_STARTED, o -> o.leaseStarted(lease));
        m.put(EventType.PREEMPT_NOTICE, o -> o.notice(lease, NoticeReason.OUTBID, 52));
        m.put(EventType.LEASE_ENDED, o -> o.leaseEnded(lease, EndReason.RELEASED));
        m.put(EventType.SETTLED, o -> o.settled(lease, 53, 54, 7, 55));
        m.put(EventType.BALANCE, o -> o.balance(56, 57, 58));
        m.put(EventType.MACHINE_ONLINE, o -> o.machine(EventType.MACHINE_ONLINE, 59, 60));
        m.put(EventType.MACHINE_OFFLINE, o -> o.machine(EventType.MACHINE_OFFLINE, 61, 62));
        m.put(EventType.BOOK, o ->
        {
            // as Admin.book fills it
            final Event e = o.bookEvent();
            e.marketId = 63;
            e.bidLevels = 1;
            e.bidPrices[0] = 64;
            e.bidGpus[0] = 2;
            e.askLevels = 1;
            e.askPrices[0] = 65;
            e.askGpus[0] = 3;
            o.emit(e);
        });
        return m;
    }

    private static Object value(final Event e, final String field)
    {
        try
        {
            return Event.class.getDeclaredField(field).get(e);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static boolean isUnset(final Object v)
    {
        return v == null || Boolean.FALSE.equals(v) || (v instanceof Number n && n.longValue() == 0);
    }

    @Test
    void everyEventCarriesOnlyItsOwnFieldsOnRandomScenarios() throws Exception
    {
        final List<String> problems = new ArrayList<>();
        final int[] types = new int[EventType.values().length];
        for (long seed = 1; seed <= 20; seed++)
        {
            run(RandomScenario.scenario(seed, 3_000), "seed " + seed, problems, types);
        }
        for (final EventType type : EventType.values())
        {
            if (type != EventType.BOOK)
            {
                assertTrue(types[type.ordinal()] > 0, "no " + type + " event in the random scenarios");
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems.subList(0, Math.min(20, problems.size()))));
    }

    @Test
    void everyEventCarriesOnlyItsOwnFieldsOnGoldenScenarios() throws Exception
    {
        final List<String> problems = new ArrayList<>();
        final int[] types = new int[EventType.values().length];
        final Path dir = Path.of("src/test/resources/scenarios");
        try (Stream<Path> files = Files.walk(dir))
        {
            for (final Path p : files.filter(f -> f.toString().endsWith(".scn")).sorted().toList())
            {
                run(Files.readString(p), p.getFileName().toString(), problems, types);
            }
        }
        assertTrue(types[EventType.BOOK.ordinal()] > 0, "no BOOK event in the golden scenarios");
        assertTrue(problems.isEmpty(), String.join("\n", problems.subList(0, Math.min(20, problems.size()))));
    }

    private static void run(final String scenario, final String name, final List<String> problems, final int[] types)
        throws IOException
    {
        final ScenarioReplayer replayer = new ScenarioReplayer(new StringBuilder());
        replayer.engine().sink(e -> check(e, name, problems, types));
        try
        {
            replayer.replay(new StringReader(scenario));
        }
        catch (final ScenarioException ex)
        {
            // A scenario meant to fail parsing: the events before the failure were checked.
        }
    }

    private static void check(final Event e, final String name, final List<String> problems, final int[] types)
    {
        types[e.type.ordinal()]++;
        final Set<String> allowed = FIELDS.get(e.type);
        for (final Field f : Event.class.getDeclaredFields())
        {
            final boolean numbered = e.type != EventType.TRADE && e.type != EventType.BOOK && NUMBERS.contains(f.getName());
            if (Modifier.isStatic(f.getModifiers()) || ALWAYS.contains(f.getName()) || allowed.contains(f.getName()) || numbered)
            {
                continue;
            }
            try
            {
                final Object v = f.get(e);
                if (!isUnset(v))
                {
                    problems.add(name + ": event " + e.sequence + " " + e.type + " carries " + f.getName() + "=" + v);
                }
            }
            catch (final IllegalAccessException ex)
            {
                throw new IllegalStateException(ex);
            }
        }
    }
}
