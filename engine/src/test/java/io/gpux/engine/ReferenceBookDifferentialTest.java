package io.gpux.engine;

import io.gpux.engine.replay.ScenarioReplayer;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Differential test of plain order flow: the engine and {@link ReferenceBook} (a naive price-time
 * priority book) read the same random scenario lines (one market with preemption off, an owner and a
 * market maker with huge machines, renters with huge deposits, no constraints; GTC/IOC/FOK, postOnly,
 * cancels, replaces, mass cancels, releases, BOOK), and must print exactly the same lines for every
 * command: every FILL (order, counter, lease, GPUs, price) in order, TRADE, LEASE_STARTED, CANCELLED,
 * REJECTED, the settlement of released leases, and the aggregated BOOK. Ten times the tries, and a second
 * stream of 100,000 commands, under {@code -Pstress} ({@link StressTries}).
 */
@AddLifecycleHook(StressTries.class)
class ReferenceBookDifferentialTest
{
    static final String MARKET = "GPU";
    static final String[] RENTERS = {"r1", "r2", "r3", "r4", "mm"};
    static final String[] OWNERS = {"own", "mm"};
    static final Map<String, String> MACHINE_OWNER = Map.of("big", "own", "mmbox", "mm");
    static final Map<String, String> ROLES = Map.of("own", "OWNER", "mm", "MARKET_MAKER", "r1", "RENTER", "r2", "RENTER",
        "r3", "RENTER", "r4", "RENTER");
    static final int SLOTS = 12;

    static final List<String> HEADER = List.of(
        "0 MARKET id=GPU preemption=off",
        "0 CONFIG heartbeatTimeoutMs=0",
        "0 ACCOUNT id=own roles=OWNER",
        "0 ACCOUNT id=mm roles=MARKET_MAKER",
        "0 ACCOUNT id=r1 roles=RENTER",
        "0 ACCOUNT id=r2 roles=RENTER",
        "0 ACCOUNT id=r3 roles=RENTER",
        "0 ACCOUNT id=r4 roles=RENTER",
        "0 DEPOSIT account=r1 amount=1000000000",
        "0 DEPOSIT account=r2 amount=1000000000",
        "0 DEPOSIT account=r3 amount=1000000000",
        "0 DEPOSIT account=r4 amount=1000000000",
        "0 DEPOSIT account=mm amount=1000000000",
        "0 MACHINE id=big owner=own market=GPU gpus=1000000000",
        "0 MACHINE id=mmbox owner=mm market=GPU gpus=1000000000",
        "0 HEARTBEAT machine=big",
        "0 HEARTBEAT machine=mmbox");

    enum Kind
    {
        ASK, BID, CANCEL, REPLACE, MASS_CANCEL, RELEASE, BOOK
    }

    /**
     * One random step: kind, who (account index), slot (order id), gpus, price step, tif (0 GTC, 1 IOC,
     * 2 FOK), flag (postOnly; for REPLACE which fields; for RELEASE a wrong account or lease), pick, dt.
     */
    record Step(Kind kind, int who, int slot, int gpus, int priceK, int tif, int flag, int pick, int dt)
    {
    }

    // ----------------------------------------------------------------------------------- rendering

    /** Turns a step into a scenario line; RELEASE picks among the reference's live leases. */
    static String render(final Step s, final long time, final ReferenceBook ref)
    {
        final String t = time + " ";
        return switch (s.kind())
        {
            case ASK ->
            {
                final String owner = OWNERS[s.who() % OWNERS.length];
                final String machine = owner.equals("own") ? "big" : "mmbox";
                yield t + "ASK id=o" + s.slot() + " account=" + owner + " machine=" +
                    (s.flag() == 2 ? (machine.equals("big") ? "mmbox" : "big") : machine) + " gpus=" + s.gpus() +
                    " price=" + price(10_000 + 10L * (s.priceK() - 5)) + tif(s.tif()) +
                    (s.flag() == 1 ? " postOnly=true" : "");
            }
            case BID -> t + "BID id=o" + s.slot() + " account=" + RENTERS[s.who() % RENTERS.length] + " market=" + MARKET +
                " gpus=" + s.gpus() + " price=" + price(10_000 + 10L * (s.priceK() - 15)) + tif(s.tif()) +
                (s.flag() == 1 ? " postOnly=true" : "");
            case CANCEL -> t + "CANCEL id=o" + s.slot() + " account=" + account(s.who());
            case REPLACE ->
            {
                final String account = account(s.who());
                final ReferenceBook.Ord o = ref.find(account, "o" + s.slot());
                final boolean bid = o == null ? s.pick() % 2 == 0 : o.bid;
                final long price = 10_000 + 10L * (s.priceK() - (bid ? 15 : 5));
                final String keepPrice = o == null ? "" : " price=" + price(o.price);
                yield t + "REPLACE id=o" + s.slot() + " account=" + account + switch (s.flag())
                {
                    case 0 -> " price=" + price(price);
                    case 1 -> " gpus=" + s.gpus();
                    case 2 -> " price=" + price(price) + " gpus=" + s.gpus();
                    case 3 -> keepPrice + " gpus=" + Math.max(0, o == null ? 1 : o.open - s.pick() % 3);
                    default -> "";
                };
            }
            case MASS_CANCEL -> t + "MASS_CANCEL account=" + account(s.who()) + (s.flag() == 1 ? " market=" + MARKET : "");
            case RELEASE ->
            {
                final String renter = RENTERS[s.who() % RENTERS.length];
                final List<ReferenceBook.RLease> mine = new ArrayList<>();
                for (final ReferenceBook.RLease l : ref.leases.values())
                {
                    if (l.renter.equals(renter))
                    {
                        mine.add(l);
                    }
                }
                if (s.flag() == 1 || mine.isEmpty())
                {
                    // someone else's lease, or one that has ended or never existed
                    yield t + "RELEASE lease=L" + (1 + s.pick()) + " account=" + renter;
                }
                yield t + "RELEASE lease=L" + mine.get(s.pick() % mine.size()).id + " account=" + renter;
            }
            case BOOK -> t + "BOOK market=" + MARKET + (s.flag() == 1 ? " depth=" + (1 + s.pick() % 4) : " depth=1000");
        };
    }

    static String account(final int who)
    {
        return who < RENTERS.length ? RENTERS[who] : OWNERS[(who - RENTERS.length) % OWNERS.length];
    }

    static String tif(final int tif)
    {
        return tif == 0 ? "" : tif == 1 ? " tif=IOC" : " tif=FOK";
    }

    /** A price for the scenario; zero or below is written as 0.0000 (an invalid price). */
    static String price(final long ticks)
    {
        return ReferenceBook.price(Math.max(0, ticks));
    }

    // ------------------------------------------------------------------------------------ the run

    /** Feeds the steps to the engine and the reference; fails at the first line where they differ. */
    static void run(final List<Step> steps, final int bookEvery)
    {
        final StringBuilder out = new StringBuilder();
        final ScenarioReplayer engine = new ScenarioReplayer(out);
        final ReferenceBook ref = new ReferenceBook(MARKET, MACHINE_OWNER, ROLES);
        final List<String> lines = new ArrayList<>(HEADER);
        try
        {
            for (final String h : HEADER)
            {
                engine.line(h);
            }
            long time = 1;
            for (int i = 0; i < steps.size(); i++)
            {
                final Step s = steps.get(i);
                time += s.dt();
                final String line = render(s, time, ref);
                check(engine, ref, out, lines, line);
                if (bookEvery > 0 && i % bookEvery == bookEvery - 1)
                {
                    check(engine, ref, out, lines, time + " BOOK market=" + MARKET + " depth=1000");
                }
            }
            check(engine, ref, out, lines, time + " BOOK market=" + MARKET + " depth=1000");
        }
        catch (final io.gpux.engine.replay.ScenarioException ex)
        {
            throw new AssertionError(ex);
        }
    }

    private static void check(
        final ScenarioReplayer engine, final ReferenceBook ref, final StringBuilder out, final List<String> lines,
        final String line) throws io.gpux.engine.replay.ScenarioException
    {
        lines.add(line);
        out.setLength(0);
        engine.line(line);
        final List<String> expected = ref.apply(line);
        final String want = expected.isEmpty() ? "" : String.join("\n", expected) + "\n";
        final String got = out.toString();
        if (!want.equals(got))
        {
            final int from = Math.max(0, lines.size() - 60);
            fail("engine and reference differ at line " + lines.size() + ": " + line + "\n--- expected:\n" + want +
                "--- engine:\n" + got + "--- scenario (" + (from == 0 ? "all" : "last " + (lines.size() - from)) +
                " lines):\n" + String.join("\n", lines.subList(from, lines.size())) + "\n");
        }
    }

    // ----------------------------------------------------------------------------- random streams

    static Step randomStep(final Random r)
    {
        final int k = r.nextInt(100);
        final Kind kind = k < 30 ? Kind.ASK : k < 62 ? Kind.BID : k < 72 ? Kind.CANCEL : k < 84 ? Kind.REPLACE :
            k < 85 ? Kind.MASS_CANCEL : k < 99 ? Kind.RELEASE : Kind.BOOK;
        final int g = r.nextInt(100);
        final int gpus = g < 2 ? 0 : g < 4 ? 1025 + r.nextInt(3) : g < 8 ? 1 + r.nextInt(1024) : 1 + r.nextInt(40);
        final int t = r.nextInt(100);
        final int tif = t < 75 ? 0 : t < 90 ? 1 : 2;
        final int flag = switch (kind)
        {
            case ASK -> r.nextInt(100) < 8 ? 1 : r.nextInt(100) < 2 ? 2 : 0;
            case BID -> r.nextInt(100) < 8 ? 1 : 0;
            case REPLACE -> r.nextInt(4);
            case RELEASE -> r.nextInt(100) < 8 ? 1 : 0;
            case MASS_CANCEL, BOOK -> r.nextInt(2);
            case CANCEL -> 0;
        };
        final int p = r.nextInt(100);
        final int priceK = p < 1 ? -10_000 : r.nextInt(21);
        return new Step(kind, r.nextInt(RENTERS.length + OWNERS.length), r.nextInt(SLOTS), gpus, priceK, tif, flag,
            r.nextInt(1000), r.nextInt(3));
    }

    /** One long stream in the everyday build, a second one under {@code -Pstress}. */
    static LongStream longStreamSeeds()
    {
        return StressTries.stress() ? LongStream.of(20261130L, 7L) : LongStream.of(20261130L);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("longStreamSeeds")
    void hundredThousandCommands(final long seed)
    {
        final Random r = new Random(seed);
        final List<Step> steps = new ArrayList<>();
        for (int i = 0; i < 100_000; i++)
        {
            steps.add(randomStep(r));
        }
        run(steps, 500);
    }

    @Test
    void headerIsQuiet() throws Exception
    {
        // sanity: the header prints only the deposits and the machines coming online
        final String out = ScenarioReplayer.replay(String.join("\n", HEADER) + "\n");
        assertEquals(7, out.split("\n").length, out);
    }

    @Provide
    @SuppressWarnings("unchecked")
    Arbitrary<List<Step>> steps()
    {
        final Arbitrary<Kind> kind = Arbitraries.frequency(Tuple.of(30, Kind.ASK), Tuple.of(32, Kind.BID),
            Tuple.of(10, Kind.CANCEL), Tuple.of(12, Kind.REPLACE), Tuple.of(1, Kind.MASS_CANCEL),
            Tuple.of(14, Kind.RELEASE), Tuple.of(1, Kind.BOOK));
        final Arbitrary<Integer> gpus = Arbitraries.frequencyOf(Tuple.of(95, Arbitraries.integers().between(1, 12)),
            Tuple.of(5, Arbitraries.of(0, 1024, 1025)));
        final Arbitrary<Integer> tif = Arbitraries.frequency(Tuple.of(7, 0), Tuple.of(2, 1), Tuple.of(1, 2));
        final Arbitrary<Step> step = Combinators.combine(List.of(
                kind.map(Kind::ordinal), Arbitraries.integers().between(0, RENTERS.length + OWNERS.length - 1),
                Arbitraries.integers().between(0, 5), gpus, Arbitraries.integers().between(0, 20), tif,
                Arbitraries.integers().between(0, 3), Arbitraries.integers().between(0, 30),
                Arbitraries.integers().between(0, 2)))
            .as(v -> new Step(Kind.values()[v.get(0)], v.get(1), v.get(2), v.get(3), v.get(4), v.get(5),
                v.get(0) == Kind.ASK.ordinal() || v.get(0) == Kind.BID.ordinal() ? (v.get(6) == 1 ? 1 : 0) :
                    v.get(0) == Kind.RELEASE.ordinal() ? (v.get(6) == 3 ? 1 : 0) : v.get(6), v.get(7), v.get(8)));
        return step.list().ofMinSize(1).ofMaxSize(400);
    }

    /** Short streams with few order ids and prices, so that jqwik can shrink a failure to a few lines. */
    @Property(tries = 200)
    void engineMatchesReferenceBook(@ForAll("steps") final List<Step> steps)
    {
        run(steps, 50);
    }
}
