package io.gpux.engine;

import io.gpux.engine.event.Event;
import io.gpux.engine.event.EventType;
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
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every event carries nothing but its own type's fields (SCENARIO-FORMAT.md's output table), whatever
 * came before it: a guard for the emitter's methods, and for any cheaper way of resetting the reused
 * event between events.
 */
class EmitterTest
{
    private static final Set<String> ALWAYS = Set.of("type", "sequence", "timeMs", "commandSequence",
        "bidPrices", "bidGpus", "askPrices", "askGpus");
    private static final Map<EventType, Set<String>> FIELDS = new EnumMap<>(EventType.class);

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
        FIELDS.put(EventType.PREEMPT_NOTICE, Set.of("leaseId", "noticeReason", "effectiveMs", "accountId"));
        FIELDS.put(EventType.LEASE_ENDED, Set.of("leaseId", "endReason", "cost", "fee", "renterId", "ownerId"));
        FIELDS.put(EventType.SETTLED, Set.of("leaseId", "charge", "fee", "period", "ms", "renterId", "ownerId"));
        FIELDS.put(EventType.BALANCE, Set.of("accountId", "balance", "available"));
        FIELDS.put(EventType.MACHINE_ONLINE, Set.of("machineId", "ownerId"));
        FIELDS.put(EventType.MACHINE_OFFLINE, Set.of("machineId", "ownerId"));
        FIELDS.put(EventType.BOOK, Set.of("marketId", "bidLevels", "askLevels"));
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
            if (Modifier.isStatic(f.getModifiers()) || ALWAYS.contains(f.getName()) || allowed.contains(f.getName()))
            {
                continue;
            }
            try
            {
                final Object v = f.get(e);
                final boolean unset = v == null || Boolean.FALSE.equals(v) ||
                    (v instanceof Number n && n.longValue() == 0);
                if (!unset)
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
